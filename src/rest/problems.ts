/**
 * Every error of the resource interface is an RFC 9457 problem document (`application/problem+json`).
 * Authentication failures also carry the RFC 6750 §3 `WWW-Authenticate` challenge.
 */
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { problemResponse } from '../internal/problem.js';

export interface ProblemOptions {
  /** Whether the request carried credentials (a 401 then says `error="invalid_token"`). */
  readonly hadCredentials?: boolean;
  readonly headers?: HeadersInit;
  /** The scope the route needs, named in a 403 challenge. */
  readonly scope?: string;
}

/**
 * Renders an error as problem+json. A `SwitchboardError` keeps its status, message and field errors;
 * anything else becomes a generic 500 with no internal detail.
 *
 * @example
 * catch (error) { return renderProblem(error); }
 */
export function renderProblem(error: unknown, options: ProblemOptions = {}): Response {
  const response = problemResponse(error, options.headers);
  if (!isSwitchboardError(error)) return response;
  if (error.status === 401) {
    const challenge = options.hadCredentials
      ? `Bearer realm="switchboard", error="invalid_token", error_description="${quoted(error.message)}"`
      : 'Bearer realm="switchboard"';
    response.headers.set('www-authenticate', challenge);
  } else if (error.status === 403) {
    const scope = options.scope;
    if (scope !== undefined && error.details.some((d) => d.code === 'insufficient_scope')) {
      response.headers.set(
        'www-authenticate',
        `Bearer realm="switchboard", error="insufficient_scope", scope="${quoted(scope)}"`,
      );
    }
  }
  return response;
}

/** A 404 for a path nothing is served at. */
export function routeNotFound(pathname: string): SwitchboardError {
  return new SwitchboardError('not_found', `Nothing is served at ${pathname}.`);
}

function quoted(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '');
}
