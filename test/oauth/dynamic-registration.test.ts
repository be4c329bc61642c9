import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerChallenge } from '../../src/http/challenge.js';
import { SwitchboardError } from '../../src/index.js';
import { resourceMetadataUrl } from '../../src/oauth/index.js';
import {
  ADMIN_KEY,
  authorizationUrl,
  type Demo,
  get,
  openConsentPage,
  signInOnPage,
  startDemo,
  submitConsent,
  tokenRequest,
} from './support.js';

// An MCP agent's own loopback callback (RFC 8252), nothing the demo registered.
const AGENT_REDIRECT = 'http://127.0.0.1:9911/oauth/callback';

function register(demo: Demo, metadata: unknown): Promise<Response> {
  return fetch(`${demo.base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
}

describe('dynamic client registration (RFC 7591) found through RFC 9728', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ rateLimits: { rules: { register: { limit: 20, windowMs: 3_600_000 } } } });
  });
  afterAll(() => demo.close());

  it('leads an agent from the resource to a token that works on REST, through the real pages', async () => {
    // Discovery: the resource names its authorization server, whose metadata names the registration endpoint.
    const resource = await get(demo, '/.well-known/oauth-protected-resource/mcp');
    expect(resource.status).toBe(200);
    const prm = (await resource.json()) as Record<string, unknown>;
    expect(prm).toMatchObject({
      resource: `${demo.base}/mcp`,
      authorization_servers: [demo.base],
      bearer_methods_supported: ['header'],
    });
    expect(prm.scopes_supported).toContain('crm.clients.read');
    expect(prm.scopes_supported).not.toContain('admin.oauth.write');
    const root = (await (await get(demo, '/.well-known/oauth-protected-resource')).json()) as {
      resource: string;
    };
    expect(root.resource).toBe(demo.base);
    const asUrl = `${(prm.authorization_servers as string[])[0]}/.well-known/oauth-authorization-server`;
    const as = (await (await fetch(asUrl)).json()) as Record<string, string>;
    expect(as.registration_endpoint).toBe(`${demo.base}/oauth/register`);

    const registered = await register(demo, {
      client_name: 'Claude-ish agent',
      redirect_uris: [AGENT_REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'crm.clients.read crm.orders.read',
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('cache-control')).toBe('no-store');
    const info = (await registered.json()) as Record<string, unknown>;
    expect(info).toMatchObject({
      client_name: 'Claude-ish agent',
      redirect_uris: [AGENT_REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'crm.clients.read crm.orders.read',
    });
    expect(info.client_id_issued_at).toBeTypeOf('number');
    const clientId = String(info.client_id);

    // Code + PKCE through the real sign-in and consent pages, which call the client unverified.
    const { url, verifier } = authorizationUrl(demo, {
      client_id: clientId,
      redirect_uri: AGENT_REDIRECT,
      scope: 'crm.clients.read',
    });
    const signInPage = await openConsentPage(url);
    expect(signInPage.response.status).toBe(200);
    expect(signInPage.html).toContain('Unverified app.');
    const consent = await signInOnPage(signInPage, demo.ada, demo.base);
    expect(consent.signIn).toBe(false);
    expect(consent.html).toContain('Unverified app.');
    expect(consent.html).toContain('<strong>127.0.0.1:9911</strong>');
    const answer = await submitConsent(consent, {}, demo.base);
    expect(answer.status).toBe(303);
    const callback = new URL(answer.headers.get('location')!);
    const { status, body } = await tokenRequest(
      demo,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: AGENT_REDIRECT,
        code_verifier: verifier,
      },
      { id: clientId },
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.scope).toBe('crm.clients.read');
    const token = String(body.access_token);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, token)).status).toBe(200);
    // Not another user's records: the token is Ada's.
    expect((await get(demo, `/api/v1/clients/${demo.grace.id}`, token)).status).toBe(404);

    // An admin sees it, marked as having registered itself; the clients an admin set up are not.
    const listed = await fetch(`${demo.base}/oauth/clients`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    const clients = ((await listed.json()) as { items: { id: string; selfRegistered: boolean }[] }).items;
    expect(clients.find((c) => c.id === clientId)?.selfRegistered).toBe(true);
    expect(clients.find((c) => c.id === demo.publicClient.id)?.selfRegistered).toBe(false);
  });

  it('does not call a client an admin set up unverified', async () => {
    const page = await openConsentPage(authorizationUrl(demo).url);
    expect(page.response.status).toBe(200);
    expect(page.html).not.toContain('Unverified app.');
  });

  it('refuses an administration scope, an unknown scope, a secret and a bad redirect URI', async () => {
    const base = { redirect_uris: [AGENT_REDIRECT], token_endpoint_auth_method: 'none' };
    const cases: [unknown, string][] = [
      [{ ...base, scope: 'crm.clients.read admin.oauth.write' }, 'invalid_client_metadata'],
      [{ ...base, scope: 'crm.everything' }, 'invalid_client_metadata'],
      [{ ...base, token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
      [{ ...base, grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
      [{ ...base, redirect_uris: ['http://agent.example.com/cb'] }, 'invalid_redirect_uri'],
      [{ ...base, redirect_uris: [] }, 'invalid_redirect_uri'],
    ];
    for (const [metadata, error] of cases) {
      const response = await register(demo, metadata);
      expect(response.status, JSON.stringify(metadata)).toBe(400);
      expect(await response.json()).toMatchObject({ error });
    }
  });
});

describe('the registration budget and the switch', () => {
  it('answers 429 once an address has spent its registrations', async () => {
    const demo = await startDemo({ rateLimits: { rules: { register: { limit: 3, windowMs: 3_600_000 } } } });
    try {
      const metadata = { redirect_uris: [AGENT_REDIRECT], client_name: 'Looping agent' };
      for (let i = 0; i < 3; i++) expect((await register(demo, metadata)).status).toBe(201);
      const refused = await register(demo, metadata);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    } finally {
      await demo.close();
    }
  });

  it('is gone, from the metadata too, with dynamicRegistration: false', async () => {
    const off = await startDemo({ oauth: { adminApiKey: ADMIN_KEY, dynamicRegistration: false } });
    try {
      const metadata = await get(off, '/.well-known/oauth-authorization-server');
      expect(((await metadata.json()) as Record<string, unknown>).registration_endpoint).toBeUndefined();
      expect((await register(off, { redirect_uris: [AGENT_REDIRECT] })).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe('the challenge names the resource metadata', () => {
  it('adds resource_metadata when given, and nothing otherwise', () => {
    const error = new SwitchboardError('unauthorized', 'Sign in.');
    const url = resourceMetadataUrl('https://api.example.com/anything', '/mcp');
    expect(url).toBe('https://api.example.com/.well-known/oauth-protected-resource/mcp');
    expect(bearerChallenge(error, undefined, { resourceMetadata: url })).toBe(
      `Bearer realm="switchboard", resource_metadata="${url}"`,
    );
    expect(bearerChallenge(error)).toBe('Bearer realm="switchboard"');
  });
});
