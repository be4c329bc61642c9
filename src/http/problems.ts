/**
 * Every error of the resource interface is an RFC 9457 problem document (`application/problem+json`).
 * Authentication failures also carry the RFC 6750 §3 `WWW-Authenticate` challenge.
 */
import { SwitchboardError } from '../core/errors.js';
import { bearerChallenge, type ChallengeOptions } from './challenge.js';
import { headerRecord } from './json.js';
import { problemAnswer } from './problem.js';
import { type Answer, toResponse } from './responses.js';

export interface ProblemOptions {
  readonly headers?: HeadersInit;
  /** The request that failed: a 401 then says whether the credentials it sent were bad. */
  readonly request?: Request;
  /** What a Bearer challenge adds (the resource metadata URL). */
  readonly challenge?: ChallengeOptions;
}

/**
 * Renders an error as problem+json. A `SwitchboardError` keeps its status, message and field errors;
 * anything else becomes a generic 500 with no internal detail.
 *
 * @example
 * catch (error) { return renderProblem(error); }
 */
export function renderProblem(error: unknown, options: ProblemOptions = {}): Response {
  return toResponse(problemOf(error, options));
}

/** {@link renderProblem} as an answer, for the route pipeline to finish before it is built. */
export function problemOf(error: unknown, options: ProblemOptions = {}): Answer {
  const challenge = bearerChallenge(error, options.request, options.challenge);
  return problemAnswer(
    error,
    challenge ? headerRecord(options.headers, { 'www-authenticate': challenge }) : options.headers,
  );
}

/** A 404 for a path nothing is served at. */
export function routeNotFound(pathname: string): SwitchboardError {
  return new SwitchboardError('not_found', `Nothing is served at ${pathname}.`);
}
