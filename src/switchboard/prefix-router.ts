/**
 * The top-level router: handlers mounted at path prefixes, declared in any order. The longest prefix
 * that matches serves the request (`/api/v1/webhook-endpoints` before `/api/v1`), at a segment
 * boundary (`/graphql` serves `/graphql/…`, not `/graphqlx`).
 */

import type { ConnectionInfo } from '../http/request-context.js';

/**
 * A Web-standard request handler: a `Request` in, a `Response` out, as fetch-based runtimes serve it.
 * `info` gives what the runtime knows beyond the request: the peer's address (see {@link ConnectionInfo}).
 */
export type FetchHandler = (request: Request, info?: ConnectionInfo) => Promise<Response>;

/** One handler and the path prefix it serves. */
export interface Mount {
  readonly prefix: string;
  readonly handle: FetchHandler;
  /** The interface it serves, as metrics label it (`rest`, `graphql`, `oauth`…). */
  readonly name?: string;
}

/** The mount of a path: the one at the longest matching prefix, or `undefined`. */
export function prefixRouter(mounts: readonly Mount[]): (pathname: string) => Mount | undefined {
  const seen = new Set<string>();
  for (const { prefix } of mounts) {
    if (seen.has(prefix)) throw new Error(`Two handlers are mounted at ${prefix}.`);
    seen.add(prefix);
  }
  const longestFirst = [...mounts].sort((a, b) => b.prefix.length - a.prefix.length);
  // Each prefix with its boundary, made once: a request makes no string to match.
  const under = longestFirst.map(({ prefix }) => `${prefix}/`);
  return (pathname) => {
    for (let i = 0; i < longestFirst.length; i++) {
      const mount = longestFirst[i]!;
      if (pathname === mount.prefix || pathname.startsWith(under[i]!)) return mount;
    }
    return undefined;
  };
}
