/**
 * The budgets of a GraphQL WebSocket: its operations take from the caller's (the storage's, shared
 * with HTTP), its messages from its own (in process, no round trip per message).
 */
import { GraphQLError } from 'graphql';
import { isSwitchboardError } from '../../core/errors.js';
import type { Logger } from '../../core/runtime.js';
import { describeLimit, type LocalBucket, type RateLimiter } from '../../http/rate-limit.js';
import type { Charge } from '../admission.js';

/** Close code for a socket that sends more messages than its budget (RFC 6455 §7.4.1 "Policy Violation"). */
export const FLOODING_CLOSE_CODE = 1008;

/**
 * Takes what a request is charged from its caller's budget (see `admit`: a subscription 1 in
 * `subscribe`, a query or mutation its cost in `graphql`, a refused one its tokens). Nothing when it
 * fits, else the error to answer its id with.
 */
export async function chargeOperation(
  limiter: RateLimiter,
  caller: string,
  charge: Charge,
  logger: Logger,
): Promise<GraphQLError | undefined> {
  try {
    await limiter.takeFor(caller, charge.cls, charge.units);
    return undefined;
  } catch (error) {
    if (isSwitchboardError(error) && error.code === 'rate_limited')
      return new GraphQLError(error.message, {
        extensions: { code: 'rate_limited', retryAfter: error.retryAfter ?? 1 },
      });
    logger.log('error', 'graphql-ws rate limit failed', { error: String(error) });
    return new GraphQLError('Unexpected error.', { extensions: { code: 'internal' } });
  }
}

/**
 * One socket's budget of messages. Once spent, the socket is closed (1008) with the limit as the
 * reason, and nothing more it sends is handled. A class: one small object per socket.
 */
export class MessageBudget {
  #flooded = false;

  constructor(
    readonly bucket: LocalBucket,
    /** The socket, closed once the budget is spent. */
    readonly socket: { close(code: number, reason: string): unknown },
  ) {}

  /** Spends one unit for a message: whether to handle it. */
  take(): boolean {
    if (this.#flooded) return false;
    if (this.bucket.take()) return true;
    this.#flooded = true;
    void this.socket.close(FLOODING_CLOSE_CODE, describeLimit('message', this.bucket.rule));
    return false;
  }
}
