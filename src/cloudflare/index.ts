/**
 * The Cloudflare Workers adapter. A Worker serves `switchboard.fetch` as it is; what it lacks is the
 * timers a server runs background work on. `createWorker` does that work after each request that may
 * have written (under `ctx.waitUntil`) and on cron triggers, so webhooks go out and are retried.
 *
 * @example
 * import { env } from 'cloudflare:workers';
 * import { createSwitchboard } from 'switchboard-kit';
 * import { createWorker } from 'switchboard-kit/cloudflare';
 * const switchboard = createSwitchboard({ oauth: { adminApiKey: env.SWITCHBOARD_API_KEY } });
 * export default createWorker(switchboard);
 *
 * @packageDocumentation
 */
export {
  createWorker,
  type SwitchboardWorker,
  type WorkerExecutionContext,
  type WorkerScheduledController,
  type WorkerSwitchboard,
} from './worker.js';
