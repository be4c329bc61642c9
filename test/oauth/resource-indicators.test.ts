import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMcp } from '../support/mcp.js';
import {
  authorizationUrl,
  authorizeThroughPage,
  type Demo,
  get,
  REDIRECT,
  startDemo,
  tokenRequest,
} from './support.js';

/** Ada's tokens through the real pages, for the `resources` named in the authorization request. */
async function tokensFor(
  demo: Demo,
  resources: readonly string[],
  atToken: readonly string[] = [],
): Promise<{ status: number; body: Record<string, unknown> }> {
  // Each consent on a grant of its own: what Ada granted the app before would widen it (one grant per
  // user and app), and these tests are about one authorization's resources.
  const admin = demo.switchboard.oauth!.admin;
  for (const grant of await admin.listGrants({ userId: demo.ada.id })) await admin.revokeGrant(grant.id);
  const { url, verifier } = authorizationUrl(demo);
  for (const resource of resources) url.searchParams.append('resource', resource);
  const callback = await authorizeThroughPage(url, demo.ada, demo.base);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  for (const resource of atToken) form.append('resource', resource);
  return rawToken(demo, form);
}

/** The token endpoint with a form that may repeat a parameter (tokenRequest takes a record). */
async function rawToken(
  demo: Demo,
  form: URLSearchParams,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${demo.base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${btoa(`${demo.confidential.id}:${demo.confidential.secret}`)}`,
    },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** tools/list over a raw JSON-RPC POST to /mcp. */
function listTools(demo: Demo, token: string): Promise<Response> {
  return postMcp(`${demo.base}/mcp`, token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
}

describe('resource indicators (RFC 8707): tokens bound to the resources they were asked for', () => {
  let demo: Demo;
  let mcp: string;
  let api: string;
  beforeAll(async () => {
    demo = await startDemo({ graphql: {} });
    mcp = `${demo.base}/mcp`;
    api = `${demo.base}/api`;
  });
  afterAll(() => demo.close());

  it('binds a token asked for /mcp to /mcp: it lists tools there and is refused on REST with the challenge', async () => {
    const { status, body } = await tokensFor(demo, [mcp]);
    expect(status).toBe(200);
    const token = String(body.access_token);
    const tools = await listTools(demo, token);
    expect(tools.status).toBe(200);
    const listed = (await tools.json()) as { result: { tools: { name: string }[] } };
    expect(listed.result.tools.map((t) => t.name)).toContain('list_clients');
    const rest = await get(demo, '/api/v1/clients', token);
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('lets a token asked for both resources work on both, and one asked for none work everywhere', async () => {
    const both = String((await tokensFor(demo, [mcp, `${api}/`])).body.access_token);
    expect((await listTools(demo, both)).status).toBe(200);
    expect((await get(demo, '/api/v1/clients', both)).status).toBe(200);
    const unbound = String((await tokensFor(demo, [])).body.access_token);
    expect((await listTools(demo, unbound)).status).toBe(200);
    expect((await get(demo, '/api/v1/clients', unbound)).status).toBe(200);
    // A version of REST is a resource of its own, below /api.
    const v1 = String((await tokensFor(demo, [`${api}/v1`])).body.access_token);
    expect((await get(demo, '/api/v1/clients', v1)).status).toBe(200);
    expect((await listTools(demo, v1)).status).toBe(401);
  });

  it('refuses a foreign, relative or fragment resource with invalid_target, back at the redirect URI', async () => {
    for (const resource of ['https://elsewhere.example.com/mcp', '/mcp', `${mcp}#x`, `${demo.base}/admin`]) {
      const { url } = authorizationUrl(demo, { resource });
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_target');
    }
    const machine = await tokenRequest(
      demo,
      { grant_type: 'client_credentials', resource: 'https://elsewhere.example.com/api' },
      demo.machine,
    );
    expect(machine).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  it('shows the audience on introspection, of the access token and of the refresh token', async () => {
    const { body } = await tokensFor(demo, [mcp, api]);
    const introspect = async (token: string): Promise<Record<string, unknown>> => {
      const response = await fetch(`${demo.base}/oauth/introspect`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${btoa(`${demo.confidential.id}:${demo.confidential.secret}`)}`,
        },
        body: new URLSearchParams({ token }),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    expect(await introspect(String(body.access_token))).toMatchObject({ active: true, aud: [mcp, api] });
    expect(await introspect(String(body.refresh_token))).toMatchObject({ active: true, aud: [mcp, api] });
    const unbound = await tokensFor(demo, []);
    expect(await introspect(String(unbound.body.access_token))).not.toHaveProperty('aud');
  });

  it('lets a refresh or the code exchange narrow the audience, never widen it', async () => {
    const { body } = await tokensFor(demo, [mcp]);
    const widened = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      resource: api,
    });
    expect(widened).toMatchObject({ status: 400, body: { error: 'invalid_target' } });

    const wide = await tokensFor(demo, [mcp, api]);
    const narrowed = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: String(wide.body.refresh_token),
      resource: mcp,
    });
    expect(narrowed.status).toBe(200);
    const token = String(narrowed.body.access_token);
    expect((await listTools(demo, token)).status).toBe(200);
    expect((await get(demo, '/api/v1/clients', token)).status).toBe(401);
    // Without a resource, the refresh gets the grant's again.
    const again = await tokenRequest(demo, {
      grant_type: 'refresh_token',
      refresh_token: String(narrowed.body.refresh_token),
    });
    expect((await get(demo, '/api/v1/clients', String(again.body.access_token))).status).toBe(200);

    const exchanged = await tokensFor(demo, [mcp, api], [api]);
    expect(exchanged.status).toBe(200);
    expect((await listTools(demo, String(exchanged.body.access_token))).status).toBe(401);
  });

  it('names the protected resource metadata in every API 401 (RFC 9728 §5.1): REST, GraphQL and MCP', async () => {
    const metadata = (path: string) =>
      `resource_metadata="${demo.base}/.well-known/oauth-protected-resource${path}"`;
    const graphql = (headers: Record<string, string>) =>
      fetch(`${demo.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
    const bad = { authorization: 'Bearer sbat_not_a_token' };
    const answers: [Response, string][] = [
      [await get(demo, '/api/v1/clients'), '/api'],
      [await get(demo, '/api/v1/clients', 'sbat_not_a_token'), '/api'],
      [await graphql(bad), '/graphql'],
      [await listTools(demo, 'sbat_not_a_token'), '/mcp'],
      [await get(demo, '/api/v1/clients', String((await tokensFor(demo, [mcp])).body.access_token)), '/api'],
    ];
    for (const [response, path] of answers) {
      expect(response.status).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer realm="switchboard"/);
      expect(challenge).toContain(metadata(path));
    }
    // The token endpoint's own errors are OAuth errors, not resource challenges.
    const token = await fetch(`${demo.base}/oauth/token`, { method: 'POST', headers: bad });
    expect(token.headers.get('www-authenticate') ?? '').not.toContain('resource_metadata');
  });

  it('binds a client credentials token to the resource it asked for', async () => {
    const { status, body } = await tokenRequest(
      demo,
      { grant_type: 'client_credentials', resource: api },
      demo.machine,
    );
    expect(status).toBe(200);
    expect((await get(demo, '/api/v1/clients', String(body.access_token))).status).toBe(200);
    expect((await listTools(demo, String(body.access_token))).status).toBe(401);
  });
});
