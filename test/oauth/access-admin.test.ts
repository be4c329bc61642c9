/**
 * What users authorized, and the API keys machines use, managed through the one admin service: over the
 * admin routes with real HTTP, and in code as `oauth.admin`. Revoking a grant ends its tokens at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthGrantView } from '../../src/oauth/index.js';
import {
  ADMIN_KEY,
  authorizationUrl,
  codeExchange,
  type Demo,
  get,
  startDemo,
  tokenRequest,
  tokensFor,
} from './support.js';

describe('Grants and API keys administration', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  const admin = (method: string, path: string, key = ADMIN_KEY) =>
    fetch(`${demo.base}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  const grantsOf = async (query: string): Promise<OAuthGrantView[]> => {
    const response = await admin('GET', `/oauth/grants?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return ((await response.json()) as { items: OAuthGrantView[] }).items;
  };
  /** Ends what `user` granted the Support bot before, so the next consent makes a grant of its own. */
  const revokeSupportBot = async (user: Demo['ada']) => {
    const live = await demo.switchboard.oauth!.admin.listGrants({
      userId: user.id,
      clientId: demo.confidential.id,
    });
    for (const grant of live) await demo.switchboard.oauth!.admin.revokeGrant(grant.id);
  };
  /** Signs `user` in through the consent page; resolves with the tokens and the (new) grant that made them. */
  const signIn = async (user: Demo['ada']) => {
    await revokeSupportBot(user);
    const before = new Set((await grantsOf(`user_id=${user.id}`)).map((g) => g.id));
    const tokens = await tokensFor(demo, user);
    const fresh = (await grantsOf(`user_id=${user.id}`)).filter((g) => !before.has(g.id));
    expect(fresh).toHaveLength(1);
    return { tokens, grant: fresh[0]! };
  };

  it('lists the grant a user gave an app, with the app’s name, and no other user’s', async () => {
    const { grant } = await signIn(demo.ada);
    expect(grant).toEqual({
      id: expect.stringMatching(/^grt_/),
      clientId: demo.confidential.id,
      clientName: 'Support bot',
      userId: demo.ada.id,
      scopes: ['crm.clients.read', 'crm.orders.read'],
      createdAt: new Date(demo.clock.now()).toISOString(),
      expiresAt: new Date(demo.clock.now() + 90 * 86_400_000).toISOString(),
    });
    expect((await grantsOf(`user_id=${demo.grace.id}`)).map((g) => g.id)).not.toContain(grant.id);
    expect((await grantsOf(`client_id=${demo.confidential.id}`)).map((g) => g.id)).toContain(grant.id);
    expect(await grantsOf(`client_id=${demo.publicClient.id}`)).toEqual([]);
  });

  it('ends a revoked grant’s access token and refresh token at once', async () => {
    const { tokens, grant } = await signIn(demo.grace);
    expect((await get(demo, '/api/v1/clients', tokens.access_token)).status).toBe(200);

    expect((await admin('DELETE', `/oauth/grants/${grant.id}`)).status).toBe(204);

    const api = await get(demo, '/api/v1/clients', tokens.access_token);
    expect(api.status).toBe(401);
    expect(api.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refresh = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await grantsOf(`user_id=${demo.grace.id}`)).map((g) => g.id)).not.toContain(grant.id);
  });

  it('leaves the user’s grants to other apps working when one is revoked', async () => {
    const chat = { id: demo.publicClient.id };
    const kept = await codeExchange(demo, authorizationUrl(demo, { client_id: chat.id }), demo.ada, chat);
    const revoked = await signIn(demo.ada);
    await demo.switchboard.oauth!.admin.revokeGrant(revoked.grant.id);
    expect((await get(demo, '/api/v1/clients', revoked.tokens.access_token)).status).toBe(401);
    expect((await get(demo, '/api/v1/clients', String(kept.body.access_token))).status).toBe(200);
  });

  it('keeps one grant per user and app: consenting again widens it, and every token of both consents lives in it', async () => {
    await revokeSupportBot(demo.ada);
    const first = await tokensFor(demo, demo.ada, { scope: 'crm.clients.read' });
    const [grant] = await grantsOf(`user_id=${demo.ada.id}&client_id=${demo.confidential.id}`);
    expect(grant?.scopes).toEqual(['crm.clients.read']);

    demo.clock.advance(1_000);
    const second = await tokensFor(demo, demo.ada, { scope: 'crm.orders.read' });
    const widened = await grantsOf(`user_id=${demo.ada.id}&client_id=${demo.confidential.id}`);
    expect(widened).toEqual([
      {
        ...grant,
        scopes: ['crm.clients.read', 'crm.orders.read'],
        // The sign-in's end moves with the newest consent; the grant keeps its first day.
        expiresAt: new Date(demo.clock.now() + 90 * 86_400_000).toISOString(),
      },
    ]);
    // A token carries what its own consent granted; both consents' tokens work.
    expect(second.scope).toBe('crm.orders.read');
    expect((await get(demo, '/api/v1/clients', first.access_token)).status).toBe(200);
    expect((await get(demo, `/api/v1/orders/${demo.ada.orderId}`, second.access_token)).status).toBe(200);

    // The first consent's refresh token still rotates, within the widened grant.
    const refreshed = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(String(refreshed.body.scope).split(' ').sort()).toEqual(['crm.clients.read', 'crm.orders.read']);
    demo.clock.advance(10_001); // past the grace a concurrent refresh gets
    const replayed = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
    });
    expect(replayed.body.error).toBe('invalid_grant');
    // A replayed refresh token revokes the grant: every token of both consents ends.
    expect((await get(demo, '/api/v1/clients', second.access_token)).status).toBe(401);
    expect(await grantsOf(`user_id=${demo.ada.id}&client_id=${demo.confidential.id}`)).toEqual([]);

    // Consenting after a revocation starts a new grant.
    await tokensFor(demo, demo.ada, { scope: 'crm.clients.read' });
    const [fresh] = await grantsOf(`user_id=${demo.ada.id}&client_id=${demo.confidential.id}`);
    expect(fresh?.id).not.toBe(grant?.id);
    expect(fresh?.scopes).toEqual(['crm.clients.read']);
  });

  it('answers 204 to revoking a grant twice, or one that does not exist', async () => {
    const { grant } = await signIn(demo.ada);
    expect((await admin('DELETE', `/oauth/grants/${grant.id}`)).status).toBe(204);
    expect((await admin('DELETE', `/oauth/grants/${grant.id}`)).status).toBe(204);
    expect((await admin('DELETE', '/oauth/grants/grt_nobody')).status).toBe(204);
  });

  it('keeps the grant routes to holders of admin.oauth.write', async () => {
    expect((await fetch(`${demo.base}/oauth/grants`)).status).toBe(401);
    const { key } = await demo.switchboard.oauth!.admin.createApiKey({
      name: 'Reader',
      scopes: ['crm.clients.read'],
    });
    for (const method of ['GET', 'DELETE']) {
      const response = await admin(method, `/oauth/grants${method === 'GET' ? '' : '/grt_x'}`, key);
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toContain('scope="admin.oauth.write"');
    }
  });

  it('lists an API key created in code with its last use, and refuses it once revoked', async () => {
    const oauthAdmin = demo.switchboard.oauth!.admin;
    const { apiKey, key } = await oauthAdmin.createApiKey({ name: 'CRM sync', scopes: ['crm.clients.read'] });
    expect(key).toMatch(/^sbk_/);
    expect(apiKey).toMatchObject({ name: 'CRM sync', lastUsedAt: null, revokedAt: null });

    demo.clock.advance(5_000);
    expect((await get(demo, '/api/v1/clients', key)).status).toBe(200);
    const listed = (await oauthAdmin.listApiKeys()).find((k) => k.id === apiKey.id)!;
    expect(listed.lastUsedAt).toBe(new Date(demo.clock.now()).toISOString());
    expect(Object.keys(listed).sort()).toEqual(
      ['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scopes'].sort(),
    );

    await oauthAdmin.revokeApiKey(apiKey.id);
    expect((await get(demo, '/api/v1/clients', key)).status).toBe(401);
    const revoked = (await oauthAdmin.listApiKeys()).find((k) => k.id === apiKey.id)!;
    expect(revoked.revokedAt).toBe(new Date(demo.clock.now()).toISOString());
  });

  it('refuses an API key with an unknown scope, naming the scope', async () => {
    const refused = await demo.switchboard
      .oauth!.admin.createApiKey({ name: 'Odd', scopes: ['crm.clients.read', 'no.such.scope'] })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'scopes.1', code: 'unknown_scope', message: 'Unknown scope "no.such.scope".' }],
    });
  });

  it('reports every problem of a client registration at once', async () => {
    const refused = await demo.switchboard
      .oauth!.admin.registerClient({
        name: '',
        type: 'public',
        redirectUris: ['https://app.example.com/cb#x'],
        scopes: [],
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'validation_failed' });
    expect((refused as { details: { field: string; code: string }[] }).details).toEqual([
      expect.objectContaining({ field: 'name', code: 'required' }),
      expect.objectContaining({ field: 'redirectUris.0', code: 'invalid_redirect_uri' }),
      expect.objectContaining({ field: 'scopes', code: 'too_few' }),
    ]);
  });

  it('does not let an admin choose a client’s id or secret', async () => {
    const { client, secret } = await demo.switchboard.oauth!.admin.registerClient({
      name: 'Chosen',
      type: 'confidential',
      redirectUris: ['https://chosen.example.com/cb'],
      scopes: ['crm.clients.read'],
      id: 'oac_chosen',
      secret: 'sbcs_chosen_by_the_caller_0123456789abcdef',
    });
    expect(client.id).not.toBe('oac_chosen');
    expect(secret).not.toBe('sbcs_chosen_by_the_caller_0123456789abcdef');
    expect(secret).toMatch(/^sbcs_/);
  });
});
