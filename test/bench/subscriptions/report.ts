/** One line per (mode, N), and the failure reasons under it. */
import type { Result } from './measure.js';

const whole = new Intl.NumberFormat('en-US');

export function formatResult(r: Result): string[] {
  const head = `${r.mode.padEnd(6)} N=${whole.format(r.subscribers).padEnd(7)}`;
  if (r.error) return [`${head}  ${r.error}`];
  const unit = r.mode === 'sse' ? 'streams' : 'sockets';
  const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
  const line = [
    head,
    `${whole.format(r.connections)} ${unit} (open ${r.openSeconds.toFixed(1)} s)`.padEnd(28),
    `delivered ${whole.format(r.delivered)}/${whole.format(r.expected)}`.padEnd(28),
    `p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  max ${ms(r.max)}`.padEnd(40),
    `per idle subscriber: heap ${kb(r.heapPerSubscriber)}, RSS ${kb(r.rssPerSubscriber)}`.padEnd(50),
    `failures ${whole.format(r.failures)}`,
  ].join('  ');
  const reasons = Object.entries(r.reasons).map(([reason, n]) => `    ${whole.format(n)} × ${reason}`);
  return [line, ...reasons];
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}
