/**
 * An MCP agent set up by nobody: the SDK's own `Client` over `StreamableHTTPClientTransport`, with its
 * own OAuth provider, meets a 401 at /mcp, discovers the authorization server (RFC 9728, RFC 8414),
 * registers itself (RFC 7591) and sends its user through the real sign-in and consent pages, driven
 * in Chromium; the code comes back, the token is for /mcp (RFC 8707), and the agent's tool calls then
 * act for that user only. A key with one read scope sees only that resource's read tools.
 */
import { existsSync } from 'node:fs';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookings as bookingResource } from '../../src/index.js';
import { ADMIN_KEY, type Demo, get, startDemo } from '../oauth/support.js';
import { MemoryOAuthProvider } from '../support/mcp.js';

const executablePath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const AGENT_REDIRECT = 'http://127.0.0.1:9913/callback';

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

describe('an MCP agent that sets itself up, with a person signing in in a browser', () => {
  let demo: Demo;
  let browser: Browser;
  const bookings: Record<'ada' | 'grace', string> = { ada: '', grace: '' };

  beforeAll(async () => {
    if (!executablePath) throw new Error('Install Chromium (apt-get install chromium) or set CHROMIUM_PATH.');
    demo = await startDemo();
    for (const who of ['ada', 'grace'] as const) {
      const booking = await demo.switchboard.domain.of(bookingResource).create({
        clientId: demo[who].id,
        service: `${who}'s haircut`,
        startsAt: '2026-12-01T10:00:00Z',
        durationMinutes: 30,
      });
      bookings[who] = booking.id;
    }
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('discovers, registers, signs Ada in through the pages, and then acts for Ada only', async () => {
    const provider = new MemoryOAuthProvider(AGENT_REDIRECT, 'Booking agent');
    const url = new URL(`${demo.base}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'booking-agent', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    // The SDK found the authorization server from the 401 and registered itself.
    expect(provider.client?.client_id).toMatch(/^oac_/);
    const authorization = provider.authorizationUrl!;
    expect(authorization.origin).toBe(demo.base);
    expect(authorization.searchParams.get('resource')).toBe(url.href);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');

    // Ada, in a browser: the sign-in page, then the consent page naming an unverified app.
    const page = await (await browser.newContext()).newPage();
    let callback: URL | undefined;
    await page.route(`${AGENT_REDIRECT}**`, (route) => {
      callback = new URL(route.request().url());
      return route.fulfill({ status: 200, body: 'back in the agent' });
    });
    await page.goto(authorization.href);
    await page.getByLabel('E-mail', { exact: true }).fill(demo.ada.email);
    await page.getByLabel('Password', { exact: true }).fill(demo.ada.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Allow Booking agent access?' }).waitFor();
    expect(await page.getByText('Unverified app').count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${AGENT_REDIRECT}**`);
    const code = callback?.searchParams.get('code');
    expect(code).toBeTruthy();

    await first.finishAuth(code!);
    expect(provider.saved?.access_token).toBeTruthy();
    const agent = new Client({ name: 'booking-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    try {
      const names = (await agent.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['list_bookings', 'get_booking', 'move_booking']));

      // Ada's bookings only, whatever the agent asks for.
      const listed = (await agent.callTool({ name: 'list_bookings', arguments: {} })) as ToolResult;
      const items = (listed.structuredContent as { items: { id: string }[] }).items.map((b) => b.id);
      expect(items).toEqual([bookings.ada]);
      const hers = (await agent.callTool({
        name: 'get_booking',
        arguments: { id: bookings.grace },
      })) as ToolResult;
      expect(hers.isError).toBe(true);
      const moved = (await agent.callTool({
        name: 'move_booking',
        arguments: { id: bookings.grace, status: 'cancelled' },
      })) as ToolResult;
      expect(moved.isError).toBe(true);
      expect((await demo.switchboard.domain.of(bookingResource).get(bookings.grace)).status).toBe(
        'requested',
      );
      const own = (await agent.callTool({
        name: 'move_booking',
        arguments: { id: bookings.ada, status: 'cancelled' },
      })) as ToolResult;
      expect(own.structuredContent).toMatchObject({ id: bookings.ada, status: 'cancelled' });
    } finally {
      await agent.close();
    }
    // The token was asked for /mcp: it is refused on REST.
    expect((await get(demo, `/api/v1/bookings/${bookings.ada}`, provider.saved!.access_token)).status).toBe(
      401,
    );
  });

  it('with a key holding only calendar.bookings.read, the agent sees the booking read tools and nothing else', async () => {
    const created = await fetch(`${demo.base}/oauth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Booking reader', scopes: ['calendar.bookings.read'] }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const agent = new Client({ name: 'reader', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${demo.base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      expect((await agent.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'get_booking',
        'list_bookings',
      ]);
    } finally {
      await agent.close();
    }
  });
});
