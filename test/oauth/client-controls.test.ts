/**
 * What an operator decides about a registered client over the admin routes: approve one that registered
 * itself, disable (its tokens stop at once) and enable it, delete it, and restrict the MCP tools it may call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { postMcp, toolCall } from '../support/mcp.js';
import {
  ADMIN_KEY,
  authorizationUrl,
  codeExchange,
  type Demo,
  get,
  openConsentPage,
  REDIRECT,
  randomVerifier,
  startDemo,
  tokenRequest,
} from './support.js';

const AGENT_REDIRECT = 'http://127.0.0.1:9911/oauth/callback';
const LIST_TOOLS = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describe('operators approve, disable, enable, delete and restrict OAuth clients', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${demo.base}/oauth${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** A confidential app of its own, and Ada's tokens for it through the real pages. */
  async function appWithTokens(scopes: readonly string[]) {
    const secret = `sbcs_${randomVerifier()}`;
    const { client } = await demo.switchboard.oauth!.registerClient({
      name: 'Agent app',
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: [...scopes],
      secret,
    });
    const authorization = authorizationUrl(demo, { client_id: client.id, scope: scopes.join(' ') });
    const { status, body } = await codeExchange(demo, authorization, demo.ada, { id: client.id, secret });
    expect(status, JSON.stringify(body)).toBe(200);
    return {
      id: client.id,
      secret,
      token: String(body.access_token),
      refreshToken: String(body.refresh_token),
    };
  }

  const mcp = (token: string, message: unknown) => postMcp(`${demo.base}/mcp`, token, message);
  const toolNames = async (token: string) => {
    const answer = (await (await mcp(token, LIST_TOOLS)).json()) as { result: { tools: { name: string }[] } };
    return answer.result.tools.map((t) => t.name);
  };

  it('approves a self-registered client: the consent page no longer calls it unverified', async () => {
    const registered = await fetch(`${demo.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Agent',
        redirect_uris: [AGENT_REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    const clientId = String(((await registered.json()) as { client_id: string }).client_id);
    const consentUrl = () =>
      authorizationUrl(demo, { client_id: clientId, redirect_uri: AGENT_REDIRECT, scope: 'crm.clients.read' })
        .url;
    expect((await openConsentPage(consentUrl())).html).toContain('Unverified app.');
    expect(await (await admin('GET', `/clients/${clientId}`)).json()).toMatchObject({
      selfRegistered: true,
      approved: false,
      disabled: false,
      mcpTools: null,
    });

    const approved = await admin('POST', `/clients/${clientId}/approve`);
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ id: clientId, selfRegistered: true, approved: true });
    const page = await openConsentPage(consentUrl());
    expect(page.response.status).toBe(200);
    expect(page.html).not.toContain('Unverified');
    expect((await admin('POST', '/clients/oac_nobody/approve')).status).toBe(404);
  });

  it('disables a client: its tokens are refused at once on /api and /mcp, and it gets no new ones', async () => {
    const app = await appWithTokens(['crm.clients.read']);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, app.token)).status).toBe(200);
    expect((await mcp(app.token, LIST_TOOLS)).status).toBe(200);

    const disabled = await admin('POST', `/clients/${app.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(await disabled.json()).toMatchObject({ id: app.id, disabled: true });
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, app.token)).status).toBe(401);
    expect((await mcp(app.token, LIST_TOOLS)).status).toBe(401);
    // Neither a refresh nor a new authorization: the endpoints know no such client.
    const refreshed = await tokenRequest(
      demo,
      { grant_type: 'refresh_token', refresh_token: app.refreshToken },
      { id: app.id, secret: app.secret },
    );
    expect([refreshed.status, refreshed.body.error]).toEqual([401, 'invalid_client']);
    const url = authorizationUrl(demo, { client_id: app.id, scope: 'crm.clients.read' }).url;
    const refused = await openConsentPage(url);
    expect(refused.response.status).toBe(400);
    expect(refused.html).toContain('not registered');
    expect(await (await admin('GET', `/grants?client_id=${app.id}`)).json()).toEqual({ items: [] });

    // Enabled, it may authorize again; the tokens it held stay revoked.
    const enabled = await admin('POST', `/clients/${app.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(await enabled.json()).toMatchObject({ id: app.id, disabled: false });
    expect((await openConsentPage(url)).response.status).toBe(200);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, app.token)).status).toBe(401);
    expect((await admin('POST', '/clients/oac_nobody/disable')).status).toBe(404);
    expect((await admin('POST', '/clients/oac_nobody/enable')).status).toBe(404);
  });

  it('deletes a client after revoking its grants: its token stops working and the client is gone', async () => {
    const app = await appWithTokens(['crm.clients.read']);
    expect((await admin('DELETE', `/clients/${app.id}`)).status).toBe(204);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, app.token)).status).toBe(401);
    expect((await mcp(app.token, LIST_TOOLS)).status).toBe(401);
    expect((await admin('GET', `/clients/${app.id}`)).status).toBe(404);
    expect((await admin('DELETE', `/clients/${app.id}`)).status).toBe(204);
  });

  it('restricts a client to list_bookings: its token sees and calls that tool only', async () => {
    const app = await appWithTokens(['calendar.bookings.read', 'crm.clients.read']);
    expect(await toolNames(app.token)).toEqual(
      expect.arrayContaining(['list_bookings', 'get_booking', 'list_clients']),
    );

    const restricted = await admin('PUT', `/clients/${app.id}/mcp-tools`, { tools: ['list_bookings'] });
    expect(restricted.status).toBe(200);
    expect(await restricted.json()).toMatchObject({ id: app.id, mcpTools: ['list_bookings'] });
    expect(await toolNames(app.token)).toEqual(['list_bookings']);
    const listed = (await (await mcp(app.token, toolCall('list_bookings'))).json()) as {
      result: { isError?: boolean; structuredContent: { items: unknown[] } };
    };
    expect(listed.result.isError).toBeUndefined();
    expect(listed.result.structuredContent.items).toBeInstanceOf(Array);
    // Refused as a tool that does not exist, as a tool its scopes do not allow is.
    const refused = (await (await mcp(app.token, toolCall('get_booking', { id: 'bkg_1' }))).json()) as {
      error: { code: number; message: string };
    };
    expect(refused.error).toEqual({ code: -32602, message: 'Unknown tool: get_booking' });
    // Another client of the same user is not restricted.
    const other = await appWithTokens(['calendar.bookings.read']);
    expect(await toolNames(other.token)).toContain('get_booking');

    // Lifted: every tool its scopes allow again.
    expect((await admin('PUT', `/clients/${app.id}/mcp-tools`, { tools: null })).status).toBe(200);
    expect(await toolNames(app.token)).toEqual(
      expect.arrayContaining(['list_bookings', 'get_booking', 'list_clients']),
    );
  });

  it('another instance on the same storage applies a changed restriction within 5 seconds', async () => {
    const app = await appWithTokens(['calendar.bookings.read']);
    const other = createSwitchboard({
      storage: demo.switchboard.storage,
      clock: demo.clock,
      oauth: { adminApiKey: ADMIN_KEY },
      graphql: false,
    });
    const toolsThere = async () => {
      const response = await other.fetch(
        new Request(`${demo.base}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${app.token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify(LIST_TOOLS),
        }),
      );
      return ((await response.json()) as { result: { tools: { name: string }[] } }).result.tools.map(
        (t) => t.name,
      );
    };
    try {
      expect(await toolsThere()).toContain('get_booking');
      expect((await admin('PUT', `/clients/${app.id}/mcp-tools`, { tools: ['list_bookings'] })).status).toBe(
        200,
      );
      // Here at once; there once what that instance kept of the client is 5 seconds old.
      expect(await toolNames(app.token)).toEqual(['list_bookings']);
      demo.clock.advance(5_001);
      expect(await toolsThere()).toEqual(['list_bookings']);
    } finally {
      await other.close();
    }
  });

  it('allows a restriction to name only the tools /mcp serves', async () => {
    const path = `/clients/${demo.publicClient.id}/mcp-tools`;
    const unknown = await admin('PUT', path, { tools: ['list_bookings', 'list_invoices'] });
    expect(unknown.status).toBe(422);
    const problem = (await unknown.json()) as { errors: { field: string; code: string; message: string }[] };
    expect(problem.errors).toEqual([
      expect.objectContaining({ code: 'unknown_tool', message: 'Unknown MCP tool "list_invoices".' }),
    ]);
    expect((await admin('PUT', path, { tools: 'list_bookings' })).status).toBe(422);
    expect((await admin('PUT', path, {})).status).toBe(422);
    expect((await admin('PUT', '/clients/oac_nobody/mcp-tools', { tools: [] })).status).toBe(404);
    // None at all is a restriction too: the client may call no tool.
    expect(await (await admin('PUT', path, { tools: [] })).json()).toMatchObject({ mcpTools: [] });
  });
});
