/** What a failed call answers: the problem document (RFC 9457) the server sent, as an error to throw. */

/** One field's complaint in a problem's `errors`. */
export interface FieldProblem {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

/**
 * An answer of 400 and above. `code` is the machine-readable code of docs/errors.md (`not_found`,
 * `validation_failed`, `rate_limited` …); `detail` is the message meant for a person.
 *
 * @example
 * try { await api.orders.get(id) } catch (error) {
 *   if (error instanceof SwitchboardApiError && error.status === 404) return null;
 *   throw error;
 * }
 */
export class SwitchboardApiError extends Error {
  override readonly name = 'SwitchboardApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The problem's `code`, or `http_<status>` when the answer was no problem document. */
  readonly code: string;
  readonly detail: string;
  /** What each invalid field was refused for. */
  readonly errors: readonly FieldProblem[];
  /** How long the server asked to wait (`Retry-After`), in ms, when it said. */
  readonly retryAfterMs: number | null;

  constructor(
    status: number,
    problem: { code?: unknown; detail?: unknown; title?: unknown; errors?: unknown } | null,
    retryAfterMs: number | null,
  ) {
    const detail = typeof problem?.detail === 'string' ? problem.detail : `The server answered ${status}.`;
    super(detail);
    this.status = status;
    this.code = typeof problem?.code === 'string' ? problem.code : `http_${status}`;
    this.detail = detail;
    this.errors = Array.isArray(problem?.errors) ? (problem.errors as FieldProblem[]) : [];
    this.retryAfterMs = retryAfterMs;
  }
}
