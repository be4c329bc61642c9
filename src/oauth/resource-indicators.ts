/**
 * Resource indicators (RFC 8707): a client names the resources it wants a token for, and the token is
 * bound to them (its audience), so a token leaked from one API is no good on another. The resources
 * are those the protected resource metadata lists (see `PROTECTED_RESOURCE_PATHS`).
 */
import { isStorableText } from '../core/storable-text.js';
import { oauthError } from './oauth-error.js';
import { PROTECTED_RESOURCE_PATHS } from './protected-resource.js';

/** The resource paths a request path falls under; REST's versions (`/api/v1`) are resources of their own too. */
function servedPath(path: string): boolean {
  if (path === '') return true;
  return PROTECTED_RESOURCE_PATHS.some(
    (base) => base !== '' && (path === base || path.startsWith(`${base}/`)),
  );
}

/**
 * The `resource` parameters of an authorization or token request, normalised (no trailing slash), in
 * the order given and without repeats. Each must be an absolute URI without a fragment (RFC 8707 §2)
 * naming a resource of this server: the issuer's origin, or it followed by `/mcp`, `/graphql` or
 * `/api` (or a path below `/api`, such as `/api/v1`). Anything else is `invalid_target`.
 */
export function parseResources(params: URLSearchParams, issuer: string): string[] {
  const origin = new URL(issuer).origin;
  const resources: string[] = [];
  for (const value of params.getAll('resource')) {
    if (value === '') continue;
    let url: URL;
    try {
      if (!isStorableText(value) || !/^[a-z][a-z0-9+.-]*:/i.test(value)) throw new TypeError();
      url = new URL(value);
    } catch {
      throw oauthError('invalid_target', 'resource must be an absolute URI.');
    }
    if (url.hash !== '' || value.includes('#'))
      throw oauthError('invalid_target', 'resource must not have a fragment.');
    const path = url.pathname.replace(/\/+$/, '');
    if (url.origin !== origin || url.search !== '' || !servedPath(path)) {
      throw oauthError('invalid_target', `This server does not serve the resource ${value}.`);
    }
    const resource = `${origin}${path}`;
    if (!resources.includes(resource)) resources.push(resource);
  }
  return resources;
}

/**
 * The audience of a token from a grant and the resources the token request asked for: those asked,
 * which must be among the grant's when it has any (a request may narrow, never widen), else the
 * grant's. No resources anywhere: no audience, usable on every resource.
 */
export function audienceFor(granted: readonly string[], requested: readonly string[]): readonly string[] {
  if (granted.length > 0) {
    for (const resource of requested) {
      if (!granted.includes(resource))
        throw oauthError(
          'invalid_target',
          `The resource ${resource} was not granted; a token cannot widen it.`,
        );
    }
  }
  return requested.length > 0 ? requested : granted;
}

/**
 * Whether a token with `audience` may be used on a request to `url`: an empty audience goes
 * everywhere; otherwise the request's path must be at or below the path of one of the audience's
 * resources (the origin itself covers every path). The origin is not compared: behind a proxy the
 * request may carry another host than the issuer, and the audience was checked against the issuer
 * when the token was issued.
 */
export function audienceAllows(audience: readonly string[] | undefined, url: string): boolean {
  if (!audience || audience.length === 0) return true;
  const path = new URL(url).pathname;
  return audience.some((resource) => {
    const base = new URL(resource).pathname.replace(/\/+$/, '');
    return base === '' || path === base || path.startsWith(`${base}/`);
  });
}
