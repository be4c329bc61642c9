/**
 * Versions in the path (spec section 9): several handler sets side by side, e.g. a deprecated `/api/v1`
 * beside `/api/v2`, each a mount `createSwitchboard` serves.
 */
import type { CorsOptions } from '../http/cors.js';
import type { DeprecationNotice } from '../http/deprecation.js';
import type { OpenApiInfo } from '../http/openapi.js';
import type { AnyRoute } from '../http/route.js';
import type { RestHandler, RestLimits, RouteRuntime } from '../http/route-handler.js';
import { createRestHandler, type RestHandlerOptions } from './handler.js';
import type { ApiVersion } from './routes/index.js';

/** One version of the interface: where it lives, which representation it speaks, whether it is on its way out. */
export interface RestVersion {
  readonly basePath: string;
  readonly apiVersion?: ApiVersion;
  readonly deprecation?: DeprecationNotice;
  /** Extra routes of this version only (added to the shared ones). */
  readonly routes?: readonly AnyRoute[];
  readonly info?: OpenApiInfo;
}

/** A handler set and the path prefix it answers under. */
export interface RestMount {
  readonly prefix: string;
  readonly handle: RestHandler;
}

/** Route sets served on mounts of their own whose routes still belong in a version's document. */
export interface MountedRouteSets {
  /**
   * E.g. the webhook admin handler on `/api/v1/webhook-endpoints`: its routes are listed in the
   * OpenAPI document of the version with the same base path. A set under a base path no version has
   * (OAuth administration on `/oauth`) is listed in every version's document under its full path.
   */
  readonly mounted?: readonly RestHandler[];
}

/**
 * The settings of the REST interface, what `createSwitchboard`'s `rest` takes: the versions to mount
 * and what every version shares. The domain, authenticator, budgets and runtime are the switchboard's.
 */
export interface RestConfig extends MountedRouteSets {
  /** Default: `/api/v1` only. */
  readonly versions?: readonly RestVersion[];
  /** More routes served and documented in every version. */
  readonly routes?: readonly AnyRoute[];
  readonly limits?: RestLimits;
  /** CORS for browser callers; off when omitted. */
  readonly cors?: CorsOptions | false;
  /** The OpenAPI document's title and version, unless a version gives its own. */
  readonly info?: OpenApiInfo;
}

/** What every version of {@link createRestVersions} shares: the handler options but the version's own. */
export interface RestSharedOptions
  extends Omit<RestHandlerOptions, 'basePath' | 'apiVersion' | 'deprecation'>,
    MountedRouteSets {}

/** The default: the current interface at `/api/v1`. */
export const DEFAULT_VERSIONS: readonly RestVersion[] = [{ basePath: '/api/v1', apiVersion: 1 }];

/**
 * Creates one REST handler set per version, from the shared options plus the version's own, each as a
 * mount with the `prefix` it answers under.
 *
 * @example
 * const mounts = createRestVersions(runtime, { domain, authenticate }, [
 *   { basePath: '/api/v1', apiVersion: 1, deprecation: { deprecatedAt: new Date('2026-01-01'), successor: '/api/v2' } },
 *   { basePath: '/api/v2', apiVersion: 2 },
 * ]);
 */
export function createRestVersions(
  runtime: RouteRuntime,
  shared: RestSharedOptions,
  versions: readonly RestVersion[] = DEFAULT_VERSIONS,
): RestMount[] {
  const { mounted = [], ...options } = shared;
  const bases = new Set(versions.map(({ basePath }) => basePath.replace(/\/+$/, '')));
  const elsewhere = mounted.filter((set) => !bases.has(set.basePath));
  return versions.map((version) => {
    const basePath = version.basePath.replace(/\/+$/, '');
    const neighbours = mounted.filter((set) => set.basePath === basePath).flatMap((set) => set.routes);
    const handle = createRestHandler(runtime, {
      ...options,
      ...version,
      elsewhere,
      info: version.info ?? options.info,
      routes: [...neighbours, ...(options.routes ?? []), ...(version.routes ?? [])],
    });
    return { prefix: handle.basePath, handle };
  });
}
