/** examples/frameworks/hono.ts over real HTTP: Switchboard's fetch handler behind Hono on Node. */
import { afterAll, beforeAll, describe } from 'vitest';
import { type RunningHonoApp, startHonoApp } from '../../examples/frameworks/hono.js';
import { ADMIN_KEY, itServesSwitchboard } from './support.js';

// The example imports the package as an app would: the built one (`npm test` builds it first).

describe('Switchboard in Hono', () => {
  let app: RunningHonoApp;
  beforeAll(async () => {
    app = await startHonoApp({ port: 0, adminApiKey: ADMIN_KEY });
  });
  afterAll(() => app?.close());

  itServesSwitchboard('hono', () => app);
});
