/**
 * Who received which message, and when. One message is in flight at a time (a round): it is settled
 * when every live subscriber has it, or at the timeout; latency = arrival − t0 (just before the POST).
 */
import { performance } from 'node:perf_hooks';
import type { SubscriberEvents } from './subscription.js';

interface Round {
  readonly content: string;
  /** performance.now() of each subscriber's arrival; NaN until it arrives. */
  readonly arrivals: Float64Array;
  /** Live subscribers still without it. */
  pending: number;
  settle(): void;
}

export class Deliveries implements SubscriberEvents {
  /** 1 for a subscriber that stopped: no round waits for it. */
  private readonly stopped: Uint8Array;
  private round: Round | undefined;
  failures = 0;
  /** How many subscribers failed, by reason. */
  readonly reasons = new Map<string, number>();

  constructor(readonly size: number) {
    this.stopped = new Uint8Array(size);
  }

  next(index: number, content: string): void {
    const round = this.round;
    if (!round || content !== round.content || !Number.isNaN(round.arrivals[index]!)) return;
    round.arrivals[index] = performance.now();
    if (!this.stopped[index] && --round.pending === 0) round.settle();
  }

  failed(index: number, reason: string): void {
    if (this.stopped[index]) return;
    this.stopped[index] = 1;
    this.failures++;
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    const round = this.round;
    if (round && Number.isNaN(round.arrivals[index]!) && --round.pending === 0) round.settle();
  }

  /**
   * Expects the message with `content`; `send` is called with t0 taken just before it. Resolves with
   * the latencies (ms) of the subscribers that got it in time, and the live ones that did not.
   */
  async deliver(
    content: string,
    send: () => Promise<void>,
    timeoutMs: number,
  ): Promise<{ latencies: number[]; missing: number[] }> {
    let timer: NodeJS.Timeout | undefined;
    const arrivals = new Float64Array(this.size).fill(Number.NaN);
    const settled = new Promise<void>((settle) => {
      const pending = this.size - this.failures;
      this.round = { content, arrivals, pending, settle };
      if (pending === 0) settle();
      timer = setTimeout(settle, timeoutMs);
    });
    let t0 = 0;
    try {
      t0 = performance.now();
      await send();
      await settled;
    } finally {
      clearTimeout(timer);
      this.round = undefined;
    }
    const latencies: number[] = [];
    const missing: number[] = [];
    arrivals.forEach((arrival, i) => {
      if (!Number.isNaN(arrival)) latencies.push(arrival - t0);
      else if (!this.stopped[i]) missing.push(i);
    });
    return { latencies, missing };
  }
}
