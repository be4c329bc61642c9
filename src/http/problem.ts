import { type ErrorCode, isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { jsonResponse } from './json.js';

/** Base URI of the `type` of every problem document; each code has a page in `docs/errors.md`. */
export const PROBLEM_TYPE_BASE = 'https://switchboard-kit.dev/problems/';

const TITLES: Record<ErrorCode, string> = {
  bad_request: 'Bad request',
  validation_failed: 'Validation failed',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  unavailable: 'Service unavailable',
  internal: 'Internal server error',
};

/**
 * Renders an error as RFC 9457 problem details. Unexpected errors become a generic `internal` problem:
 * the caller never sees a stack trace or an internal message.
 */
export function problemResponse(error: unknown, headers: HeadersInit = {}): Response {
  const known = isSwitchboardError(error)
    ? error
    : new SwitchboardError('internal', 'Something went wrong on our side. Try again later.');
  const body = {
    type: `${PROBLEM_TYPE_BASE}${known.code}`,
    title: TITLES[known.code],
    status: known.status,
    detail: known.message,
    code: known.code,
    ...(known.details.length ? { errors: known.details } : {}),
  };
  const withRetry =
    known.retryAfter === undefined
      ? headers
      : { ...Object.fromEntries(new Headers(headers)), 'retry-after': String(known.retryAfter) };
  return jsonResponse(known.status, body, withRetry, 'application/problem+json');
}
