/**
 * Every error of the resource interface is an RFC 9457 problem document (`application/problem+json`).
 * Authentication failures also carry the RFC 6750 §3 `WWW-Authenticate` challenge.
 */
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { headerRecord } from '../internal/json.js';
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
  const challenge = isSwitchboardError(error) ? challengeFor(error, options) : undefined;
  return problemResponse(
    error,
    challenge ? headerRecord(options.headers, { 'www-authenticate': challenge }) : options.headers,
  );
}

/** The RFC 6750 §3 challenge a 401, or a 403 for a missing scope, carries. */
function challengeFor(error: SwitchboardError, options: ProblemOptions): string | undefined {
  if (error.status === 401) {
    return options.hadCredentials
      ? `Bearer realm="switchboard", error="invalid_token", error_description="${quoted(error.message)}"`
      : 'Bearer realm="switchboard"';
  }
  const scope = options.scope;
  if (
    error.status === 403 &&
    scope !== undefined &&
    error.details.some((d) => d.code === 'insufficient_scope')
  )
    return `Bearer realm="switchboard", error="insufficient_scope", scope="${quoted(scope)}"`;
  return undefined;
}

/** A 404 for a path nothing is served at. */
export function routeNotFound(pathname: string): SwitchboardError {
  return new SwitchboardError('not_found', `Nothing is served at ${pathname}.`);
}

function quoted(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '');
}
