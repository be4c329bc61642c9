/** One line per (mode, N), and the failure reasons under it; the floor's line (--floor) right below. */
import type { Result } from './measure.js';

const whole = new Intl.NumberFormat('en-US');

/** Switchboard's latency divided by the floor's, same mode and N (NaN when either is missing). */
export interface FloorRatios {
  readonly p50: number;
  readonly p99: number;
}

export function vsFloor(switchboard: Result, floor: Result): FloorRatios {
  return { p50: switchboard.p50 / floor.p50, p99: switchboard.p99 / floor.p99 };
}

/** `ratios`, on the floor's line: Switchboard's p50 and p99 as multiples of the floor's. */
export function formatResult(r: Result, ratios?: FloorRatios): string[] {
  // The floor's line sits under Switchboard's, same mode and N: its label alone says what it is.
  const head =
    r.server === 'floor'
      ? '  floor'.padEnd(16)
      : `${r.mode.padEnd(6)} N=${whole.format(r.subscribers).padEnd(7)}`;
  if (r.error) return [`${head}  ${r.error}`];
  const unit = r.mode === 'sse' ? 'streams' : 'sockets';
  const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
  const failures = `failures ${whole.format(r.failures)}`;
  const line = [
    head,
    `${whole.format(r.connections)} ${unit} (open ${r.openSeconds.toFixed(1)} s)`.padEnd(28),
    `delivered ${whole.format(r.delivered)}/${whole.format(r.expected)}`.padEnd(28),
    `p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  max ${ms(r.max)}`.padEnd(40),
    `per idle subscriber: heap ${kb(r.heapPerSubscriber)}, RSS ${kb(r.rssPerSubscriber)}`.padEnd(50),
    ...(ratios
      ? [failures.padEnd(14), `switchboard p50 ${times(ratios.p50)} floor, p99 ${times(ratios.p99)} floor`]
      : [failures]),
  ].join('  ');
  const reasons = Object.entries(r.reasons).map(([reason, n]) => `    ${whole.format(n)} × ${reason}`);
  return [line, ...reasons];
}

/** The median and spread of each ratio over rounds of one (mode, N). */
export function formatRounds(mode: string, n: number, rounds: readonly FloorRatios[]): string {
  const of = (pick: (r: FloorRatios) => number): string => {
    const sorted = rounds.map(pick).sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    return `${times(median)} (${times(sorted[0]!)}–${times(sorted.at(-1)!)})`;
  };
  return `${mode} N=${whole.format(n)} over ${rounds.length} rounds: switchboard p50 ${of((r) => r.p50)} floor, p99 ${of((r) => r.p99)} floor`;
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

function times(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a';
}
