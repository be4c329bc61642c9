/** The rules of the token endpoint, one test each, over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import {
  authorizationUrl,
  authorizeThroughPage,
  type Demo,
  get,
  REDIRECT,
  randomVerifier,
  startDemo,
  tokenRequest,
  tokensFor,
} from './support.js';

describe('token endpoint', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  /** A fresh code for Ada, and the verifier that goes with it. */
  const freshCode = async (params: Record<string, string | null> = {}) => {
    const { url, verifier } = authorizationUrl(demo, params);
    const callback = await authorizeThroughPage(url, demo.ada, demo.base);
    return { code: callback.searchParams.get('code')!, verifier };
  };
  const exchange = (code: string, verifier: string | null, extra: Record<string, string> = {}) =>
    tokenRequest(demo, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      ...(verifier === null ? {} : { code_verifier: verifier }),
      ...extra,
    });

  it('answers with no-store and the RFC 6749 §5.1 fields', async () => {
    const { code, verifier } = await freshCode();
    const { status, body, headers } = await exchange(code, verifier);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'crm.clients.read crm.orders.read',
    });
    expect(body.access_token).toMatch(/^sbat_/);
    expect(body.refresh_token).toMatch(/^sbrt_/);
  });

  it('accepts client_secret_post as well as client_secret_basic', async () => {
    const { code, verifier } = await freshCode();
    const { status } = await tokenRequest(
      demo,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      'post',
    );
    expect(status).toBe(200);
  });

  it('refuses a wrong client secret with invalid_client and a Basic challenge', async () => {
    const { code, verifier } = await freshCode();
    const { status, body, headers } = await tokenRequest(
      demo,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { id: demo.confidential.id, secret: 'sbcs_wrong_secret_0123456789abcdefghij' },
    );
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('refuses a confidential client that sends no secret', async () => {
    const { code, verifier } = await freshCode();
    const { status, body } = await tokenRequest(
      demo,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { id: demo.confidential.id },
    );
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
  });

  it('refuses a wrong PKCE verifier', async () => {
    const { code } = await freshCode();
    const { status, body } = await exchange(code, randomVerifier());
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
  });

  it('refuses a code issued with a challenge when the verifier is missing', async () => {
    const { code } = await freshCode();
    expect((await exchange(code, null)).body.error).toBe('invalid_grant');
  });

  it('refuses a verifier for a code issued without a challenge (downgrade protection)', async () => {
    const { code } = await freshCode({ code_challenge: null, code_challenge_method: null });
    expect((await exchange(code, randomVerifier())).body.error).toBe('invalid_grant');
  });

  it('refuses a redirect_uri that differs from the authorization request', async () => {
    const { code, verifier } = await freshCode();
    const { body } = await exchange(code, verifier, { redirect_uri: 'http://127.0.0.1:8765/other' });
    expect(body.error).toBe('invalid_grant');
  });

  it('refuses a code redeemed by another client', async () => {
    const { code, verifier } = await freshCode();
    const { body } = await tokenRequest(
      demo,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { id: demo.publicClient.id },
    );
    expect(body.error).toBe('invalid_grant');
  });

  it('refuses a code used twice and revokes the tokens issued from it', async () => {
    const { code, verifier } = await freshCode();
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    const token = first.body.access_token as string;
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, token)).status).toBe(200);
    const second = await exchange(code, verifier);
    expect(second.body.error).toBe('invalid_grant');
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, token)).status).toBe(401);
    const refreshed = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
    });
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('lets exactly one of 20 concurrent exchanges of the same code win', async () => {
    const { code, verifier } = await freshCode();
    const results = await Promise.all(Array.from({ length: 20 }, () => exchange(code, verifier)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.error === 'invalid_grant')).toHaveLength(19);
  });

  it('refuses an expired code (default lifetime 60 s)', async () => {
    const { code, verifier } = await freshCode();
    demo.clock.advance(60_001);
    expect((await exchange(code, verifier)).body.error).toBe('invalid_grant');
  });

  it('only accepts a code lifetime of 1 to 5 minutes', () => {
    expect(() => createSwitchboard({ oauth: { codeTtlMs: 30_000 } })).toThrow(/60 000 to 300 000/);
    expect(() => createSwitchboard({ oauth: { codeTtlMs: 600_000 } })).toThrow(/60 000 to 300 000/);
    expect(createSwitchboard({ oauth: { codeTtlMs: 300_000 } }).oauth).toBeDefined();
  });

  it('refuses to widen scopes on refresh', async () => {
    // Nothing granted to the app before: the grant holds this consent's scope only.
    const admin = demo.switchboard.oauth!.admin;
    for (const grant of await admin.listGrants({ userId: demo.ada.id })) await admin.revokeGrant(grant.id);
    const tokens = await tokensFor(demo, demo.ada, { scope: 'crm.clients.read' });
    const { status, body } = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      scope: 'crm.clients.read crm.orders.read',
    });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_scope');
  });

  it('refuses the password grant and unknown grant types', async () => {
    const { body } = await tokenRequest(demo, { grant_type: 'password', username: 'ada', password: 'x' });
    expect(body.error).toBe('unsupported_grant_type');
  });

  it('refuses client credentials for a client not registered for them', async () => {
    const { body } = await tokenRequest(demo, { grant_type: 'client_credentials' });
    expect(body.error).toBe('unauthorized_client');
  });

  it('refuses an expired refresh token family once the grant has ended', async () => {
    const tokens = await tokensFor(demo);
    demo.clock.advance(91 * 86_400_000);
    const { body } = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(body.error).toBe('invalid_grant');
  });

  it('never shows a stack trace: a malformed body gets a plain OAuth error', async () => {
    const response = await fetch(`${demo.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"authorization_code"}',
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts/);
  });
});

describe('token endpoint from a browser app', () => {
  it('answers a CORS preflight and allows any origin (no cookies involved)', async () => {
    const demo = await startDemo();
    try {
      const preflight = await fetch(`${demo.base}/oauth/token`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      const { headers } = await tokenRequest(demo, { grant_type: 'client_credentials' });
      expect(headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await demo.close();
    }
  });
});

describe('token endpoint limits', () => {
  it('refuses a body over the size limit', async () => {
    const demo = await startDemo();
    try {
      const { status, body } = await tokenRequest(demo, {
        grant_type: 'client_credentials',
        pad: 'x'.repeat(20_000),
      });
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_request');
    } finally {
      await demo.close();
    }
  });
});
