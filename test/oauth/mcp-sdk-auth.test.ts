import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, postMcp, toolCall } from '../support/mcp.js';
import { authorizeThroughPage, type Demo, get, startDemo } from './support.js';

const AGENT_REDIRECT = 'http://127.0.0.1:9912/callback';

describe("the MCP SDK's own auth provider against the authorization server", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  it('discovers (RFC 9728, RFC 8414), registers itself (RFC 7591) and gets a token through the real pages', async () => {
    const provider = new MemoryOAuthProvider(AGENT_REDIRECT, 'SDK agent');
    const serverUrl = `${demo.base}/mcp`;
    expect(await auth(provider, { serverUrl, scope: 'crm.clients.read' })).toBe('REDIRECT');
    expect(provider.client?.client_id).toMatch(/^oac_/);
    const url = provider.authorizationUrl!;
    expect(url.origin).toBe(demo.base);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    const callback = await authorizeThroughPage(url, demo.ada, demo.base);
    const code = callback.searchParams.get('code')!;
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');
    const token = provider.saved!.access_token;
    expect(provider.saved!.refresh_token).toBeTruthy();
    // The SDK asks for the MCP resource (RFC 8707), so the token is for /mcp only, where it acts for Ada.
    expect(url.searchParams.get('resource')).toBe(serverUrl);
    const getClient = async (id: string): Promise<{ isError?: boolean }> => {
      const response = await postMcp(serverUrl, token, toolCall('get_client', { id }));
      expect(response.status).toBe(200);
      return ((await response.json()) as { result: { isError?: boolean } }).result;
    };
    expect((await getClient(demo.ada.id)).isError).toBeFalsy();
    expect((await getClient(demo.grace.id)).isError).toBe(true);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, token)).status).toBe(401);
  });
});
