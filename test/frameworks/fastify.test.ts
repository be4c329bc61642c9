/** examples/frameworks/fastify.ts over real HTTP: Switchboard in a parser-free Fastify 5 plugin. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningFastifyApp, startFastifyApp } from '../../examples/frameworks/fastify.js';
import { ADMIN_KEY, itServesSwitchboard } from './support.js';

// The example imports the package as an app would: the built one (`npm test` builds it first).

describe('Switchboard in Fastify 5', () => {
  let app: RunningFastifyApp;
  beforeAll(async () => {
    app = await startFastifyApp({ port: 0, adminApiKey: ADMIN_KEY });
  });
  afterAll(() => app?.close());

  itServesSwitchboard('fastify', () => app);

  it('hands Switchboard a body without a content type', async () => {
    // Not refused by Fastify (415): Switchboard answers it, as it would on its own server.
    const untyped = await fetch(`${app.url}/api/v1/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      body: new TextEncoder().encode('{"name":"x"}'),
    });
    expect(untyped.headers.get('content-type')).toBe('application/problem+json');
  });
});
