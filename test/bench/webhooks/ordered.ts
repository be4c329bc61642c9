/**
 * Ordered delivery's cost: the same queue of events, many per subject (a client created, then updated
 * again and again), drained by one endpoint with `ordering: "none"` and by one with `"subject"`, each
 * round in a fresh paused server. Ordered, a subject has one delivery in flight at a time, so the rate
 * is bounded by the subjects in flight times the receiver's round trip, not by the endpoint's cap alone.
 * Rounds alternate (unordered, ordered, …) so a drift of the machine falls on both.
 */
import type { RunningServer } from '../http/processes.js';
import { JSON_AUTH, pendingDeliveries, startDispatch } from './api.js';
import { eachLimited, endRound, type PipelineContext, patience, startSwitchboard } from './pipeline.js';
import { countPaths, now, waitForStats } from './stats.js';

/** Events of each subject: its `client.created` and as many `client.updated`. */
const PER_SUBJECT = 10;
const PATH = '/ordered';

export interface OrderedRound {
  readonly ordering: 'none' | 'subject';
  /** Distinct events delivered per second. */
  readonly rate: number;
  readonly seconds: number;
  readonly duplicates: number;
}

export interface OrderedResult {
  readonly storage: string;
  readonly subjects: number;
  readonly events: number;
  readonly rounds: readonly OrderedRound[];
}

export async function runOrdered(context: PipelineContext): Promise<OrderedResult> {
  const subjects = Math.max(1, Math.round(context.options.events / PER_SUBJECT));
  const events = subjects * PER_SUBJECT;
  const rounds: OrderedRound[] = [];
  for (let r = 1; r <= context.options.rounds; r++) {
    for (const ordering of ['none', 'subject'] as const) {
      const round = await orderedRound(context, ordering, subjects);
      rounds.push(round);
      context.log(
        `  ordered (${context.stack.name}) round ${r}/${context.options.rounds}  ordering ${ordering}: ` +
          `${Math.round(round.rate).toLocaleString('en-US')}/s in ${round.seconds.toFixed(2)} s`,
      );
    }
  }
  return { storage: context.stack.name, subjects, events, rounds };
}

async function call<T>(server: RunningServer, method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: JSON_AUTH,
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

async function orderedRound(
  context: PipelineContext,
  ordering: 'none' | 'subject',
  subjects: number,
): Promise<OrderedRound> {
  const events = subjects * PER_SUBJECT;
  const server = await startSwitchboard(context, { BENCH_PAUSED: '1' });
  const url = `${context.receiver.url}${PATH}`;
  const { id: endpointId } = await call<{ id: string }>(server, 'POST', '/api/v1/webhook-endpoints', {
    url,
    eventTypes: ['client.*'],
    ordering,
  });
  // Each subject's events are written one after another; the subjects side by side.
  const run = Math.random().toString(36).slice(2, 8);
  const indexes = Array.from({ length: subjects }, (_, i) => i);
  await eachLimited(indexes, 16, async (i) => {
    const email = `ordered-${run}-${i}@example.com`;
    const { id } = await call<{ id: string }>(server, 'POST', '/api/v1/clients', { name: 'Bench 0', email });
    for (let n = 1; n < PER_SUBJECT; n++)
      await call(server, 'PATCH', `/api/v1/clients/${id}`, { name: `Bench ${n}` });
  });
  const deadline = now() + patience(events);
  while ((await pendingDeliveries(server, endpointId)) < events) {
    if (now() > deadline) throw new Error(`ordered: the ${events} deliveries were never all queued`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const started = now();
  await startDispatch(server);
  const stats = await waitForStats(
    context.receiver.url,
    `${events} deliveries to ${PATH}`,
    (s) => (s.byPath[PATH]?.unique ?? 0) >= events,
    (s) => `${s.byPath[PATH]?.unique ?? 0} distinct events, ${s.duplicates} duplicates`,
    patience(events),
  );
  const counts = countPaths(stats, (path) => path === PATH);
  await endRound(context, server, [endpointId]);
  const ms = counts.lastAt - started;
  return { ordering, rate: events / (ms / 1000), seconds: ms / 1000, duplicates: counts.duplicates };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export function formatOrdered(result: OrderedResult): string[] {
  const of = (ordering: 'none' | 'subject') =>
    median(result.rounds.filter((r) => r.ordering === ordering).map((r) => r.rate));
  const [none, subject] = [of('none'), of('subject')];
  const duplicates = result.rounds.reduce((sum, r) => sum + r.duplicates, 0);
  const label = `ordered ${result.events.toLocaleString('en-US')} events, ${result.subjects} subjects × ${PER_SUBJECT} → 1 endpoint (${result.storage})`;
  return [
    `${label}: unordered ${Math.round(none).toLocaleString('en-US')}/s · ordered by subject ` +
      `${Math.round(subject).toLocaleString('en-US')}/s · ratio ${(subject / none).toFixed(2)}× · duplicates ${duplicates}`,
  ];
}
