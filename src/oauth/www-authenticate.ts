import { isSwitchboardError } from '../core/errors.js';
import { problemResponse } from '../internal/problem.js';

/** The error codes of a bearer-token challenge (RFC 6750 §3.1). */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

const BEARER_CODES = new Set<string>(['invalid_request', 'invalid_token', 'insufficient_scope']);

export interface ChallengeOptions {
  /** Default `switchboard`. */
  readonly realm?: string;
}

/**
 * The `WWW-Authenticate` value for an error thrown by the guard (401) or by `requireScope` (403), or
 * `null` when the error is about something else (RFC 6750 §3).
 *
 * @example
 * wwwAuthenticate(error) // 'Bearer realm="switchboard", error="insufficient_scope", scope="crm.orders.read"'
 */
export function wwwAuthenticate(error: unknown, options: ChallengeOptions = {}): string | null {
  if (!isSwitchboardError(error)) return null;
  const detail = error.details.find((d) => BEARER_CODES.has(d.code));
  if (error.code !== 'unauthorized' && !detail) return null;
  const parts = [`realm="${options.realm ?? 'switchboard'}"`];
  if (detail) {
    parts.push(`error="${detail.code}"`);
    parts.push(`error_description="${quoteSafe(error.message)}"`);
    const scope = /^Missing scope: (\S+)$/.exec(detail.message)?.[1];
    if (detail.code === 'insufficient_scope' && scope) parts.push(`scope="${quoteSafe(scope)}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}

/**
 * Renders an authentication or authorization failure: problem+json (RFC 9457) with the
 * `WWW-Authenticate` challenge of RFC 6750 §3. REST and GraphQL call this at their boundary for
 * errors from the guard and from `requireScope`; other errors render as plain problems.
 *
 * @example
 * try { principal = await authenticate(request); } catch (error) { return authErrorResponse(error); }
 */
export function authErrorResponse(error: unknown, options: ChallengeOptions = {}): Response {
  const response = problemResponse(error);
  const challenge = wwwAuthenticate(error, options);
  if (challenge) response.headers.set('www-authenticate', challenge);
  return response;
}

function quoteSafe(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '');
}
