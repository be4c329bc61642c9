/**
 * Fan-out: one event to many endpoints (`/e/<i>` on the receiver) plus one whose receiver hangs for
 * 30 s (`/slow`), which must not hold the others back. The clock runs from the create's 201 until every
 * `/e/*` endpoint has the event. Endpoints are registered and deleted through the admin API, a few at
 * a time; when that is slow, the log says how slow.
 */
import { createClient, registerEndpoint } from './api.js';
import {
  ADMIN_PARALLEL,
  eachLimited,
  endRound,
  type PipelineContext,
  patience,
  startSwitchboard,
} from './pipeline.js';
import { countPaths, now, waitForStats } from './stats.js';

export interface FanoutResult {
  readonly storage: string;
  readonly endpoints: number;
  /** From the 201 to the last `/e/*` arrival. */
  readonly seconds: number;
  readonly rate: number;
  /** From the 201 to the first `/e/*` arrival, and to the slow endpoint's request. */
  readonly firstMs: number;
  readonly slowMs: number | undefined;
  readonly duplicates: number;
  /** Seconds the registrations took. */
  readonly registerSeconds: number;
}

const isFast = (path: string): boolean => path.startsWith('/e/');

export async function runFanout(context: PipelineContext): Promise<FanoutResult> {
  const { endpoints } = context.options;
  const receiver = context.receiver.url;
  const server = await startSwitchboard(context);
  const urls = [`${receiver}/slow`, ...Array.from({ length: endpoints }, (_, i) => `${receiver}/e/${i}`)];
  const ids: string[] = [];
  const registering = now();
  await eachLimited(urls, ADMIN_PARALLEL, async (url) => void ids.push(await registerEndpoint(server, url)));
  const registerSeconds = (now() - registering) / 1000;
  context.log(
    `  fanout (${context.stack.name}) ${urls.length} endpoints registered in ${registerSeconds.toFixed(1)} s`,
  );

  await createClient(server, `fanout-${crypto.randomUUID()}@example.com`);
  const created = now();
  const stats = await waitForStats(
    receiver,
    `the event at all ${endpoints} /e/* endpoints`,
    (s) => countPaths(s, isFast).paths >= endpoints,
    (s) =>
      `${countPaths(s, isFast).paths} endpoints reached, slow one ${s.byPath['/slow'] ? '' : 'not '}reached`,
    patience(endpoints),
  );
  const fast = countPaths(stats, isFast);
  const slow = stats.byPath['/slow'];
  await endRound(context, server, ids);
  const seconds = (fast.lastAt - created) / 1000;
  return {
    storage: context.stack.name,
    endpoints,
    seconds,
    rate: endpoints / seconds,
    firstMs: fast.firstAt - created,
    slowMs: slow ? slow.firstAt - created : undefined,
    duplicates: fast.duplicates,
    registerSeconds,
  };
}
