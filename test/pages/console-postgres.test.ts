/**
 * The console on PostgreSQL, over real HTTP without a browser: two instances sharing one database and
 * one console secret, so a session opened on one works on the other, and what one creates the other
 * shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const ADMIN = 'sbk_console_pg_admin_key_0123456789abcdefghij';

describe('the console on PostgreSQL, two instances', () => {
  let db: TestDatabase;
  const instances: { switchboard: Switchboard; server: NodeServer }[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      const switchboard = createSwitchboard({
        storage: await db.storage(),
        oauth: { adminApiKey: ADMIN },
        console: { secret: 'one secret for every instance' },
      });
      await switchboard.oauth!.ready;
      instances.push({
        switchboard,
        server: await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] }),
      });
    }
  });
  afterAll(async () => {
    for (const { server } of instances) await server.close();
    await db?.drop();
  });

  it('signs in on one instance, creates an endpoint on the other, and both show it', async () => {
    const [a, b] = instances.map((i) => i.server.url);
    const signIn = await fetch(`${a}/console/sign-in`, {
      method: 'POST',
      body: new URLSearchParams({ api_key: ADMIN }),
      redirect: 'manual',
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    // The other instance opens the session, and its forms carry the session's CSRF token.
    const page = await (await fetch(`${b}/console/webhooks`, { headers: { cookie } })).text();
    expect(page).toContain('<h1>Webhook endpoints</h1>');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const created = await fetch(`${b}/console/webhooks`, {
      method: 'POST',
      headers: { cookie, origin: b! },
      body: new URLSearchParams({
        _csrf: csrf,
        url: 'https://hooks.example.com/crm',
        eventTypes: 'client.*',
      }),
      redirect: 'manual',
    });
    // See Other to the endpoint's page, which shows the secret once (sealed in a cookie of the session).
    expect(created.status).toBe(303);
    const shown = created.headers.get('set-cookie')!.split(';')[0]!;
    const endpointPage = await fetch(new URL(created.headers.get('location')!, b), {
      headers: { cookie: `${cookie}; ${shown}` },
    });
    expect(await endpointPage.text()).toMatch(/<code class="secret">whsec_/);
    const listed = await (await fetch(`${a}/console/webhooks`, { headers: { cookie } })).text();
    expect(listed).toContain('https://hooks.example.com/crm');
  });
});
