import { ERROR_CATALOGUE } from '../core/error-catalogue.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { type HeaderRecord, headerRecord } from './json.js';
import { type Answer, toResponse } from './responses.js';

/**
 * The `type` of every problem document: a reference relative to the server, where `createSwitchboard`
 * serves the page of each code (`/problems/not_found`), the same text as docs/errors.md.
 */
export const PROBLEM_TYPE_BASE = '/problems/';

/**
 * Renders an error as RFC 9457 problem details. Unexpected errors become a generic `internal` problem:
 * the caller never sees a stack trace or an internal message.
 */
export function problemResponse(error: unknown, headers: HeadersInit = {}): Response {
  return toResponse(problemAnswer(error, headers));
}

/** {@link problemResponse} as an answer, for the route pipeline to finish before it is built. */
export function problemAnswer(error: unknown, headers?: HeadersInit): Answer {
  const known = isSwitchboardError(error)
    ? error
    : new SwitchboardError('internal', 'Something went wrong on our side. Try again later.');
  const body = {
    type: `${PROBLEM_TYPE_BASE}${known.code}`,
    title: ERROR_CATALOGUE[known.code].title,
    status: known.status,
    detail: known.message,
    code: known.code,
    ...known.members,
    ...(known.details.length ? { errors: known.details } : {}),
  };
  const record: HeaderRecord = headerRecord(headers, { 'content-type': 'application/problem+json' });
  if (known.retryAfter !== undefined) record['retry-after'] = String(known.retryAfter);
  return { status: known.status, headers: record, body: JSON.stringify(body) };
}
