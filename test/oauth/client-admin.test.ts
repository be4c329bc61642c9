/** Managing registered OAuth clients over the admin routes: edit them, rotate a secret with an overlap. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type Demo, REDIRECT, startDemo, tokenRequest } from './support.js';

describe('OAuth client administration', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${demo.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('edits a client’s name, redirect URIs and scopes by the rules registration applies', async () => {
    const path = `/oauth/clients/${demo.publicClient.id}`;
    const changed = await admin('PATCH', path, {
      name: 'Chat widget v2',
      redirectUris: [REDIRECT, 'https://widget.example.com/callback'],
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      name: 'Chat widget v2',
      redirectUris: [REDIRECT, 'https://widget.example.com/callback'],
      type: 'public',
    });
    expect(await (await admin('GET', path)).json()).toMatchObject({ name: 'Chat widget v2' });
    const refused = await admin('PATCH', path, { redirectUris: ['https://widget.example.com/cb#frag'] });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain('invalid_redirect_uri');
    expect((await admin('PATCH', path, { scopes: ['no.such.scope'] })).status).toBe(422);
    expect((await admin('PATCH', '/oauth/clients/oac_nobody', { name: 'x' })).status).toBe(404);
  });

  it('rotates a secret: the old one works during the overlap only, the new one at once', async () => {
    const { id, secret: old } = demo.machine;
    const rotated = await admin('POST', `/oauth/clients/${id}/secret`, { overlapSeconds: 60 });
    expect(rotated.status).toBe(200);
    const body = (await rotated.json()) as { secret: string; previousSecretValidUntil: string };
    expect(body.secret).toMatch(/^sbcs_/);
    expect(body.secret).not.toBe(old);
    const token = (secret: string) =>
      tokenRequest(demo, { grant_type: 'client_credentials' }, { id, secret });
    expect((await token(old)).status).toBe(200);
    expect((await token(body.secret)).status).toBe(200);
    demo.clock.advance(61_000);
    expect((await token(old)).status).toBe(401);
    expect((await token(body.secret)).status).toBe(200);
    // The secret is shown once: it is nowhere in the client's record.
    expect(JSON.stringify(await (await admin('GET', `/oauth/clients/${id}`)).json())).not.toContain(
      body.secret,
    );
  });

  it('refuses to rotate a public client’s secret (it has none) and an overlap beyond 7 days', async () => {
    expect((await admin('POST', `/oauth/clients/${demo.publicClient.id}/secret`, {})).status).toBe(409);
    const tooLong = await admin('POST', `/oauth/clients/${demo.machine.id}/secret`, {
      overlapSeconds: 700_000,
    });
    expect(tooLong.status).toBe(422);
  });
});
