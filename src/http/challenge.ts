/**
 * The one Bearer challenge (RFC 6750 §3) every interface sends with a 401, and with a 403 for a missing
 * scope: REST, GraphQL and the OAuth resource errors alike.
 */
import { isSwitchboardError } from '../core/errors.js';
import { problemResponse } from './problem.js';
import type { RequestContext } from './request-context.js';

/** The error codes of a Bearer challenge (RFC 6750 §3.1). */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

const BEARER_CODES = new Set<string>(['invalid_request', 'invalid_token', 'insufficient_scope']);

export const REALM = 'switchboard';

/** What else a challenge may carry besides the error. */
export interface ChallengeOptions {
  /**
   * The URL of the protected resource metadata (RFC 9728 §5.1): sent as `resource_metadata="…"` so a
   * client that meets a 401 can discover the authorization server on its own (MCP clients do).
   */
  readonly resourceMetadata?: string;
}

/** What the context of a request adds to its challenges: the resource metadata of its API. */
export function challengeOptionsOf(context: RequestContext): ChallengeOptions {
  const metadata = context.resourceMetadata;
  return metadata ? { resourceMetadata: metadata(context.request) } : {};
}

/**
 * The `WWW-Authenticate` value for an authentication (401) or scope (403) failure, or `undefined` for
 * any other error. No credentials: the realm, and the scope when it is known (§3.1 wants no error code
 * then). Bad credentials: `error="invalid_token"` (or `invalid_request`) and a description. Missing
 * scope: `error="insufficient_scope"` and the scope, which the error carries as data. Given the
 * request, a 401 without a Bearer code counts as `invalid_token` when credentials were sent. With
 * `options.resourceMetadata`, the challenge names the resource's metadata URL (RFC 9728 §5.1).
 *
 * @example
 * bearerChallenge(error) // 'Bearer realm="switchboard", error="insufficient_scope", error_description="…", scope="crm.orders.read"'
 */
export function bearerChallenge(
  error: unknown,
  request?: Request,
  options: ChallengeOptions = {},
): string | undefined {
  if (!isSwitchboardError(error)) return undefined;
  // A host's own authenticate may throw a bare 401: with credentials sent, they were not good.
  const sent = request?.headers.has('authorization') ? 'invalid_token' : undefined;
  const code =
    error.details.find((d) => BEARER_CODES.has(d.code))?.code ?? (error.status === 401 ? sent : undefined);
  if (error.status === 403 && code !== 'insufficient_scope') return undefined;
  if (error.status !== 401 && error.status !== 403) return undefined;
  const parts = [`realm="${REALM}"`];
  if (code) parts.push(`error="${code}"`, `error_description="${quoted(error.message)}"`);
  if (error.scope) parts.push(`scope="${quoted(error.scope)}"`);
  if (options.resourceMetadata) parts.push(`resource_metadata="${quoted(options.resourceMetadata)}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** Header values are printable ASCII, and quotes would end the quoted string. */
function quoted(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '');
}

/**
 * An authentication or authorization failure as problem+json (RFC 9457) with its Bearer challenge;
 * any other error as a plain problem. For hosts guarding their own routes with the guard.
 *
 * @example
 * try { principal = await guard(request); } catch (error) { return authErrorResponse(error); }
 */
export function authErrorResponse(
  error: unknown,
  request?: Request,
  options: ChallengeOptions = {},
): Response {
  const challenge = bearerChallenge(error, request, options);
  return problemResponse(error, challenge ? { 'www-authenticate': challenge } : {});
}
