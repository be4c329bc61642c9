/**
 * Finds the route a request names: Hono's RegExpRouter (every path of a handler set compiled into one
 * regular expression per method, built on first use) over the path the request URL already holds. The
 * query string is parsed only when the route declares a query.
 */
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { pathnameOf } from './url.js';

/** A routed request: its entry and raw (still percent-encoded) path params. */
export interface Match<T> {
  readonly entry: T;
  readonly params: Record<string, string>;
}

export interface RouteTable<T> {
  /** `path` is OpenAPI style, relative to the base path: `/clients/{id}`. */
  add(method: string, path: string, entry: T): void;
  match(method: string, path: string): Match<T> | undefined;
  /** The methods served at a path, for `Allow` (405 and OPTIONS). */
  methodsAt(path: string): string[];
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function createRouteTable<T>(): RouteTable<T> {
  const router = new RegExpRouter<T>();
  const table: RouteTable<T> = {
    add(method, path, entry) {
      router.add(method, path.replace(/\{(\w+)\}/g, ':$1'), entry);
    },
    match(method, path) {
      const [handlers, stash] = router.match(method, path);
      const first = handlers[0];
      if (!first) return undefined;
      const [entry, indexes] = first;
      const params: Record<string, string> = {};
      // RegExpRouter gives either param → index into the stash, or the values themselves.
      for (const name in indexes) {
        const at = (indexes as Record<string, number | string>)[name]!;
        params[name] = stash ? stash[at as number]! : (at as string);
      }
      return { entry, params };
    },
    methodsAt(path) {
      return METHODS.filter((method) => table.match(method, path) !== undefined);
    },
  };
  return table;
}

/**
 * The part of a request's path under `basePath`, without trailing slashes (`/api/v1/clients/` is
 * `/clients`), or undefined when the request is not for this handler set.
 */
export function routePathOf(url: string, basePath: string): string | undefined {
  const pathname = pathnameOf(url);
  if (!pathname.startsWith(basePath)) return undefined;
  let path = pathname.slice(basePath.length);
  if (path !== '' && path[0] !== '/') return undefined;
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end--;
  if (end !== path.length) path = path.slice(0, end);
  return path === '' ? '/' : path;
}

/** The query string as name → value (a repeated name → its values). */
export function queryOf(url: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const start = url.indexOf('?');
  if (start === -1) return query;
  const hash = url.indexOf('#', start);
  for (const [name, value] of new URLSearchParams(url.slice(start + 1, hash === -1 ? undefined : hash))) {
    const known = query[name];
    query[name] = known === undefined ? value : [...(Array.isArray(known) ? known : [known]), value];
  }
  return query;
}
