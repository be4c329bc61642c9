/**
 * One error model for every interface. Each interface renders a {@link SwitchboardError} its own way:
 * problem+json for REST, `extensions.code` for GraphQL, OAuth `error` codes, WebSocket close codes.
 */

/** Stable, machine-readable error codes. Callers can `switch (err.code)`. */
export type ErrorCode =
  | 'bad_request'
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'gone'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/** One failing field: `field` is a dotted path into the input (`email`, `items.0.price`). */
export interface FieldError {
  readonly field: string;
  /** Machine-readable reason: `required`, `invalid_format`, `too_long`, `unknown_field`, … */
  readonly code: string;
  readonly message: string;
}

export interface SwitchboardErrorOptions {
  readonly details?: readonly FieldError[];
  readonly cause?: unknown;
  /** Overrides the status derived from the code (e.g. 400 instead of 422 for a malformed body). */
  readonly status?: number;
  /** Seconds after which the same request may succeed; answered as `Retry-After`. */
  readonly retryAfter?: number;
  /** The scope the request needs and the caller lacks; named in the Bearer challenge (RFC 6750 §3). */
  readonly scope?: string;
  /**
   * Data the caller acts on, beside the code: members of the problem document (RFC 9457 §3.2) and of
   * GraphQL's `extensions`, e.g. the feed's `oldestCursor` when a cursor is `gone`.
   */
  readonly members?: Readonly<Record<string, string>>;
}

/**
 * The error every building block throws for expected failures. Anything else that escapes is a bug:
 * interfaces log it and answer a generic `internal` error without details.
 *
 * @example
 * throw new SwitchboardError('not_found', 'No client with id "cli_1".');
 */
export class SwitchboardError extends Error {
  override readonly name = 'SwitchboardError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: readonly FieldError[];
  readonly retryAfter: number | undefined;
  readonly scope: string | undefined;
  readonly members: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? STATUS[code];
    this.details = options.details ?? [];
    this.retryAfter = options.retryAfter;
    this.scope = options.scope;
    this.members = options.members ?? {};
  }

  /** The safe, serialisable view of this error: no stack, no cause. */
  toJSON(): { code: ErrorCode; message: string; details: readonly FieldError[] } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Whether a thrown value is a {@link SwitchboardError}, an expected failure; anything else is a bug. */
export function isSwitchboardError(value: unknown): value is SwitchboardError {
  return value instanceof SwitchboardError;
}

/** The HTTP status that belongs to an error code. */
export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}
