/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose
 * client_id is a URL is what the JSON document at that URL says, fetched by the authorization server
 * from a real loopback HTTP server (allowed by the development outbound policy) and never stored.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, postMcp, toolCall } from '../support/mcp.js';
import {
  authorizationUrl,
  authorizeThroughPage,
  codeExchange,
  type Demo,
  openConsentPage,
  REDIRECT,
  startDemo,
  tokenRequest,
} from './support.js';

const DEV_OUTBOUND = { allowHttp: true, allowPrivateAddresses: true };

interface Served {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body: string;
}

/** Serves documents by path and counts the requests for each, as an app's own site would. */
class DocumentServer {
  readonly documents = new Map<string, Served>();
  readonly hits = new Map<string, number>();
  base = '';
  private server: Server | undefined;

  constructor(private readonly make = createServer) {}

  async start(options: Record<string, unknown> = {}): Promise<void> {
    this.server = (this.make as (o: unknown, h: unknown) => Server)(
      options,
      (request: IncomingMessage, response: ServerResponse) => {
        const path = new URL(request.url ?? '/', 'http://x').pathname;
        this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
        const served = this.documents.get(path);
        if (!served) return void response.writeHead(404).end();
        response.writeHead(served.status ?? 200, { 'content-type': 'application/json', ...served.headers });
        response.end(served.body);
      },
    );
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.base = `${this.make === createServer ? 'http' : 'https'}://127.0.0.1:${port}`;
  }

  /** Serves `document` (a metadata document unless `served` says otherwise) at `path`; answers its URL. */
  serve(path: string, document: (url: string) => unknown, served: Partial<Served> = {}): string {
    const url = `${this.base}${path}`;
    this.documents.set(path, { body: JSON.stringify(document(url)), ...served });
    return url;
  }

  hitsOf(url: string): number {
    return this.hits.get(new URL(url).pathname) ?? 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const agentDocument =
  (extra: Record<string, unknown> = {}) =>
  (url: string): Record<string, unknown> => ({
    client_id: url,
    client_name: 'Doc agent',
    client_uri: 'https://agent.example',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: 'crm.clients.read crm.orders.read',
    ...extra,
  });

/** The authorization page for `clientId`, as a browser opens it: status and HTML. */
async function authorizePage(demo: Demo, clientId: string): Promise<{ status: number; html: string }> {
  const { url } = authorizationUrl(demo, { client_id: clientId, scope: 'crm.clients.read' });
  const page = await openConsentPage(url);
  return { status: page.response.status, html: page.html };
}

describe('client ID metadata documents', () => {
  let demo: Demo;
  const site = new DocumentServer();
  beforeAll(async () => {
    await site.start();
    demo = await startDemo(
      { rateLimits: { rules: { register: { limit: 100, windowMs: 3_600_000 } } } },
      { outbound: DEV_OUTBOUND },
    );
  });
  afterAll(async () => {
    await demo.close();
    await site.close();
  });

  it('the authorization server metadata says it supports them', async () => {
    const metadata = (await (
      await fetch(`${demo.base}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  it('a URL client_id gets a token through the real pages with PKCE and a resource, which works on /mcp', async () => {
    const clientId = site.serve('/agents/doc-agent.json', agentDocument());
    const resource = `${demo.base}/mcp`;
    const { url, verifier } = authorizationUrl(demo, {
      client_id: clientId,
      scope: 'crm.clients.read',
      resource,
    });
    const page = await openConsentPage(url);
    expect(page.response.status).toBe(200);
    // Unverified, with the host the app describes itself at and the host the answer goes to.
    expect(page.html).toContain('Unverified app.');
    expect(page.html).toContain(`describes itself at <strong>${new URL(clientId).host}</strong>`);

    const { status, body } = await codeExchange(
      demo,
      { url, verifier },
      demo.ada,
      { id: clientId },
      { resource },
    );
    expect(status).toBe(200);
    expect(body.scope).toBe('crm.clients.read');
    const response = await postMcp(
      resource,
      String(body.access_token),
      toolCall('get_client', { id: demo.ada.id }),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();

    const refreshed = await tokenRequest(
      demo,
      { grant_type: 'refresh_token', refresh_token: String(body.refresh_token) },
      { id: clientId },
    );
    expect(refreshed.status).toBe(200);
    // One fetch for the whole flow (page, sign-in, consent, code exchange, refresh); nothing stored.
    expect(site.hitsOf(clientId)).toBe(1);
    expect(await demo.switchboard.storage.oauth.clients.get(clientId)).toBeNull();
  });

  it('keeps a document for its Cache-Control max-age (at least a minute), then fetches it again', async () => {
    const clientId = site.serve('/agents/cached.json', agentDocument(), {
      headers: { 'cache-control': 'public, max-age=120' },
    });
    expect((await authorizePage(demo, clientId)).status).toBe(200);
    expect((await authorizePage(demo, clientId)).status).toBe(200);
    demo.clock.advance(119_000);
    expect((await authorizePage(demo, clientId)).status).toBe(200);
    expect(site.hitsOf(clientId)).toBe(1);
    demo.clock.advance(2_000);
    expect((await authorizePage(demo, clientId)).status).toBe(200);
    expect(site.hitsOf(clientId)).toBe(2);
  });

  it('concurrent requests for one document share one fetch', async () => {
    const clientId = site.serve('/agents/concurrent.json', agentDocument());
    const pages = await Promise.all([1, 2, 3, 4].map(() => authorizePage(demo, clientId)));
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 200]);
    expect(site.hitsOf(clientId)).toBe(1);
  });

  it.each([
    [
      'a client_id other than its URL',
      agentDocument({ client_id: 'https://elsewhere.example/x.json' }),
      {},
      "Its client_id is not the document's URL exactly.",
    ],
    [
      'no redirect_uris',
      agentDocument({ redirect_uris: undefined }),
      {},
      'redirect_uris must be a non-empty array of URLs.',
    ],
    [
      'a secret authentication method',
      agentDocument({ token_endpoint_auth_method: 'client_secret_basic' }),
      {},
      'token_endpoint_auth_method must be',
    ],
    ['a client_secret', agentDocument({ client_secret: 'shh' }), {}, 'It must not hold a client_secret'],
    [
      'an administration scope',
      agentDocument({ scope: 'crm.clients.read admin.oauth.write' }),
      {},
      'may not ask for administration',
    ],
    [
      'a grant type other than code and refresh',
      agentDocument({ grant_types: ['client_credentials'] }),
      {},
      'grant_types may hold only',
    ],
    [
      'a body served as HTML',
      agentDocument(),
      { headers: { 'content-type': 'text/html' } },
      'It is not served as application/json.',
    ],
    ['a body that is not JSON', agentDocument(), { body: '{ not json' }, 'It is not valid JSON.'],
    [
      'a body over 16 KiB',
      agentDocument({ padding: 'x'.repeat(20_000) }),
      {},
      'It is larger than 16384 bytes.',
    ],
    ['a 404', agentDocument(), { status: 404 }, 'It answered 404, not 200.'],
  ])(
    'refuses a document with %s, on an error page that says so (no redirect)',
    async (_, document, served, message) => {
      const path = `/refused/${Math.random().toString(36).slice(2)}.json`;
      const clientId = site.serve(path, document, served as Partial<Served>);
      const { status, html } = await authorizePage(demo, clientId);
      expect(status).toBe(400);
      const text = html.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
      expect(text).toContain(`The app's metadata document at ${clientId} could not be used.`);
      expect(text).toContain(message);
    },
  );

  it('refuses a redirect without following it', async () => {
    const target = site.serve('/agents/moved-here.json', agentDocument());
    const clientId = site.serve('/agents/moved.json', () => ({}), {
      status: 302,
      headers: { location: target },
    });
    const { status, html } = await authorizePage(demo, clientId);
    expect(status).toBe(400);
    expect(html).toContain('It answered 302, a redirect; redirects are not followed.');
    expect(site.hitsOf(target)).toBe(0);
  });

  it('refuses a redirect_uri the document does not list', async () => {
    const clientId = site.serve('/agents/other-redirect.json', agentDocument());
    const { url } = authorizationUrl(demo, { client_id: clientId, redirect_uri: 'https://evil.example/cb' });
    const page = await openConsentPage(url);
    expect(page.response.status).toBe(400);
    expect(page.html).toContain('The app asked to send you to an address it has not registered.');
  });

  it('refuses URLs that cannot be a client_id before fetching anything', async () => {
    for (const [clientId, message] of [
      [`${site.base}/`, 'Its URL must have a path'],
      [`${site.base}/agents/a.json#frag`, 'Its URL must not contain a fragment.'],
      [
        `http://user:pw@127.0.0.1:${new URL(site.base).port}/agents/a.json`,
        'Its URL must not contain credentials.',
      ],
      [`${site.base}/agents/../agents/a.json`, 'Its URL must be written in its normal form'],
    ] as const) {
      const { status, html } = await authorizePage(demo, clientId);
      expect(status).toBe(400);
      expect(html).toContain(message);
    }
    expect(site.hitsOf(`${site.base}/agents/a.json`)).toBe(0);
  });

  it('answers invalid_client at the token endpoint when the document cannot be used', async () => {
    const clientId = site.serve('/agents/token-refused.json', agentDocument({ redirect_uris: [] }));
    const { status, body } = await tokenRequest(
      demo,
      {
        grant_type: 'authorization_code',
        code: 'sbac_x',
        redirect_uri: REDIRECT,
        code_verifier: 'v'.repeat(43),
      },
      { id: clientId },
    );
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(body.error_description).toBe(
      `The app's metadata document at ${clientId} could not be used. redirect_uris must be a non-empty array of URLs.`,
    );
  });
});

describe('client ID metadata documents under other settings', () => {
  const site = new DocumentServer();
  beforeAll(() => site.start());
  afterAll(() => site.close());

  it('the default outbound policy fetches nothing from a private address', async () => {
    const demo = await startDemo({}, { outbound: { allowHttp: true } });
    try {
      const clientId = site.serve('/agents/private.json', agentDocument());
      const { status, html } = await authorizePage(demo, clientId);
      expect(status).toBe(400);
      expect(html).toContain('must not point to a private or reserved address');
      // And with no policy at all, https only.
      const strict = await startDemo();
      try {
        expect((await authorizePage(strict, clientId)).html).toContain('Its URL must use https.');
        const https = `https://127.0.0.1:${new URL(site.base).port}/agents/private.json`;
        expect((await authorizePage(strict, https)).html).toContain(
          'must not point to a private or reserved address',
        );
      } finally {
        await strict.close();
      }
      expect(site.hitsOf(clientId)).toBe(0);
    } finally {
      await demo.close();
    }
  });

  it("createSwitchboard fetches documents under the webhooks' outbound policy when OAuth has none", async () => {
    const demo = await startDemo({ webhooks: { outbound: DEV_OUTBOUND } });
    try {
      const clientId = site.serve('/agents/shared-policy.json', agentDocument());
      expect((await authorizePage(demo, clientId)).status).toBe(200);
      expect(site.hitsOf(clientId)).toBe(1);
    } finally {
      await demo.close();
    }
  });

  it('turned off, a URL client_id is an unknown client and nothing is fetched', async () => {
    const demo = await startDemo({}, { outbound: DEV_OUTBOUND, clientIdMetadataDocuments: false });
    try {
      const clientId = site.serve('/agents/off.json', agentDocument());
      const { status, html } = await authorizePage(demo, clientId);
      expect(status).toBe(400);
      expect(html).toContain('The app that sent you here is not registered.');
      expect(site.hitsOf(clientId)).toBe(0);
      const metadata = (await (
        await fetch(`${demo.base}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      expect(metadata).not.toHaveProperty('client_id_metadata_document_supported');
    } finally {
      await demo.close();
    }
  });

  it("a fetch is charged to the caller's register budget; a cached document is not", async () => {
    const demo = await startDemo(
      { rateLimits: { rules: { register: { limit: 2, windowMs: 3_600_000 } } } },
      { outbound: DEV_OUTBOUND },
    );
    try {
      const first = site.serve('/budget/1.json', agentDocument());
      const second = site.serve('/budget/2.json', agentDocument());
      const third = site.serve('/budget/3.json', agentDocument());
      expect((await authorizePage(demo, first)).status).toBe(200);
      expect((await authorizePage(demo, second)).status).toBe(200);
      expect((await authorizePage(demo, first)).status).toBe(200);
      const refused = await authorizePage(demo, third);
      expect(refused.status).toBe(400);
      expect(refused.html).toMatch(/too many client registrations/i);
      expect(site.hitsOf(third)).toBe(0);
    } finally {
      await demo.close();
    }
  });
});

/** The server's outbound fetch, trusting the test's own certificate authority (GET only). */
function fetchTrusting(ca: string): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const request = httpsRequest(
        new URL(String(input)),
        {
          method: 'GET',
          ca,
          headers: init?.headers as Record<string, string>,
          signal: init?.signal ?? undefined,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve(
              new Response(Buffer.concat(chunks), {
                status: response.statusCode ?? 0,
                headers: response.headers as Record<string, string>,
              }),
            ),
          );
        },
      );
      request.on('error', reject);
      request.end();
    })) as typeof fetch;
}

describe("the MCP SDK's auth() with a clientMetadataUrl", () => {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  const site = new DocumentServer(createHttpsServer as unknown as typeof createServer);
  let demo: Demo;
  beforeAll(async () => {
    // A certificate for 127.0.0.1, trusted only by the switchboard's fetch: the SDK wants an https URL.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    await site.start({ key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert });
    demo = await startDemo(
      { fetch: fetchTrusting(cert) },
      { outbound: { allowPrivateAddresses: true }, dynamicRegistration: false },
    );
  });
  afterAll(async () => {
    await demo?.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('uses the URL as its client_id, without registering, and gets a token for /mcp', async () => {
    const clientId = site.serve('/sdk-agent.json', agentDocument({ client_name: 'SDK agent' }));
    const provider = new MemoryOAuthProvider(REDIRECT, 'SDK agent', clientId);
    const serverUrl = `${demo.base}/mcp`;
    expect(await auth(provider, { serverUrl, scope: 'crm.clients.read' })).toBe('REDIRECT');
    expect(provider.client?.client_id).toBe(clientId);
    const url = provider.authorizationUrl!;
    expect(url.searchParams.get('client_id')).toBe(clientId);

    const callback = await authorizeThroughPage(url, demo.ada, demo.base);
    const code = callback.searchParams.get('code')!;
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');
    const response = await postMcp(
      serverUrl,
      provider.saved!.access_token,
      toolCall('get_client', { id: demo.ada.id }),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    expect(site.hitsOf(clientId)).toBe(1);
  });
});
