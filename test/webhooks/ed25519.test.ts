/**
 * Asymmetric webhook signatures (issue 33, part 3): an endpoint registered with `"signature": "ed25519"`
 * is sent Standard Webhooks `v1a` signatures by the deployment's key pair, whose public keys are a JWK
 * set at `/.well-known/webhook-keys`. Over loopback HTTP, on memory and on PostgreSQL; the receiver side
 * checks with `node:crypto` alone, as a receiver without this library would.
 */
import { createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  createWebhookReceiver,
  signWebhook,
  verifyWebhook,
  WebhookKeySetSchema,
  WebhookSigningKeyListSchema,
} from '../../src/webhooks/index.js';
import { bothStorages } from '../setup/database.js';
import { until } from '../support/until.js';

const ADMIN = 'sbk_ed25519_admin_key_0123456789abcdef012345';

interface Arrived {
  readonly headers: Headers;
  readonly body: string;
}
interface Jwk {
  readonly kty: string;
  readonly crv: string;
  readonly x: string;
  readonly kid: string;
  readonly use: string;
  readonly alg: string;
}
type Json = Record<string, unknown>;

/** Checks one `v1a,<base64>` entry against one JWK with node:crypto, as a receiver would by hand. */
function verifiesWith(jwk: Jwk, arrived: { headers: Headers; body: string }, entry: string): boolean {
  const message = Buffer.from(
    `${arrived.headers.get('webhook-id')}.${arrived.headers.get('webhook-timestamp')}.${arrived.body}`,
  );
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  return verify(null, message, key, Buffer.from(entry.slice('v1a,'.length), 'base64'));
}
const entriesOf = (arrived: Arrived): string[] => arrived.headers.get('webhook-signature')!.split(' ');

describe.each(bothStorages())('ed25519 webhook signatures on %s', (_, makeStorage) => {
  let switchboard: Switchboard;
  let server: NodeServer;
  let receiver: NodeServer;
  const arrived: Arrived[] = [];

  const call = async (
    path: string,
    method = 'GET',
    json?: unknown,
  ): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as Json };
  };
  const keySet = async (): Promise<Jwk[]> => {
    const response = await fetch(`${server.url}/.well-known/webhook-keys`);
    expect(response.status).toBe(200);
    const set = (await response.json()) as { keys: Jwk[] };
    expect(WebhookKeySetSchema.strict().safeParse(set).success).toBe(true);
    return set.keys;
  };
  /** Makes a client and waits for its `client.created` to arrive. */
  const delivery = async (): Promise<Arrived> => {
    const email = `grace.${crypto.randomUUID()}@example.com`;
    expect((await call('/api/v1/clients', 'POST', { name: 'Grace', email })).status).toBe(201);
    const find = () => arrived.find((a) => a.body.includes(email));
    await until(() => find() !== undefined, `the delivery for ${email}`);
    return find()!;
  };

  beforeAll(async () => {
    switchboard = createSwitchboard({
      storage: await makeStorage(),
      oauth: { adminApiKey: ADMIN },
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
      relayIntervalMs: 50,
    });
    switchboard.start();
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    receiver = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async (request) => {
        arrived.push({ headers: request.headers, body: await request.text() });
        return new Response('ok');
      },
    });
    await switchboard.oauth!.ready;
    const created = await call('/api/v1/webhook-endpoints', 'POST', {
      url: `${receiver.url}/hooks`,
      eventTypes: ['client.created'],
      signature: 'ed25519',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ signature: 'ed25519', scheme: 'standard' });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await switchboard?.close();
  });

  it('a delivery carries webhook-id, webhook-timestamp and one v1a signature that node:crypto verifies with the published JWK', async () => {
    const got = await delivery();
    expect(got.headers.get('webhook-id')).toBe(JSON.parse(got.body).event_id);
    expect(got.headers.get('webhook-timestamp')).toMatch(/^\d+$/);
    expect(got.headers.get('x-signature')).toBeNull();
    const keys = await keySet();
    expect(keys).toEqual([
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: expect.any(String),
        kid: expect.any(String),
        use: 'sig',
        alg: 'EdDSA',
      },
    ]);
    const [entry, ...more] = entriesOf(got);
    expect(more).toEqual([]);
    expect(entry).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifiesWith(keys[0]!, got, entry!)).toBe(true);
  });

  it('a tampered body, id or timestamp does not verify', async () => {
    const got = await delivery();
    const [key] = await keySet();
    const [entry] = entriesOf(got);
    const tampered = got.body.replace('Grace', 'Grac3');
    expect(tampered).not.toBe(got.body);
    expect(verifiesWith(key!, { ...got, body: tampered }, entry!)).toBe(false);
    const headers = new Headers(got.headers);
    headers.set('webhook-timestamp', String(Number(got.headers.get('webhook-timestamp')) + 1));
    expect(verifiesWith(key!, { headers, body: got.body }, entry!)).toBe(false);
  });

  it('verifyWebhook verifies v1a with the key set as fetched, and refuses a changed body or a v1 verifier', async () => {
    const got = await delivery();
    const response = await fetch(`${server.url}/.well-known/webhook-keys`);
    const publicKeys = (await response.json()) as { keys: Jwk[] };
    const ok = await verifyWebhook({ body: got.body, headers: got.headers, publicKeys });
    expect(ok).toMatchObject({ ok: true, eventId: got.headers.get('webhook-id') });
    const changed = await verifyWebhook({ body: `${got.body} `, headers: got.headers, publicKeys });
    expect(changed).toMatchObject({ ok: false, reason: 'mismatch' });
    // A receiver that expects HMAC (v1) finds no signature of its kind.
    const hmac = await verifyWebhook({
      body: got.body,
      headers: got.headers,
      secrets: ['whsec_c2hhcmVkLXNlY3JldC1mb3ItdGVzdHMtb25seQ=='],
      scheme: 'standard',
    });
    expect(hmac).toMatchObject({ ok: false, reason: 'malformed' });
    // A receiver given both accepts either kind: its endpoint can move from hmac to ed25519 without a gap.
    const secret = 'whsec_c2hhcmVkLXNlY3JldC1mb3ItdGVzdHMtb25seQ==';
    const both = { publicKeys, secrets: [secret] };
    expect(await verifyWebhook({ body: got.body, headers: got.headers, ...both })).toMatchObject({
      ok: true,
    });
    const v1 = await signWebhook({
      body: got.body,
      secrets: [secret],
      eventId: 'evt_1',
      timestamp: Date.now() / 1000,
      scheme: 'standard',
    });
    expect(await verifyWebhook({ body: got.body, headers: v1, ...both })).toMatchObject({ ok: true });
    expect(await verifyWebhook({ body: `${got.body} `, headers: v1, ...both })).toMatchObject({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('createWebhookReceiver takes the key set: it processes the delivery once and refuses it tampered', async () => {
    const got = await delivery();
    const processed: string[] = [];
    const receive = createWebhookReceiver({
      publicKeys: { keys: await keySet() },
      idempotency: createMemoryStorage().idempotency,
      onEvent: (event) => {
        processed.push(event.id);
      },
    });
    const send = (body: string) =>
      receive(new Request('http://receiver.test/hooks', { method: 'POST', headers: got.headers, body }));
    expect((await send(got.body)).status).toBe(200);
    expect((await send(got.body)).status).toBe(200);
    expect(processed).toEqual([got.headers.get('webhook-id')]);
    expect((await send(got.body.replace('Grace', 'Grac3'))).status).toBe(401);
  });

  it('the standardwebhooks npm package verifies v1 only: it skips the v1a entry', async () => {
    const got = await delivery();
    const webhook = new Webhook('whsec_c2hhcmVkLXNlY3JldC1mb3ItdGVzdHMtb25seQ==');
    expect(() => webhook.verify(got.body, Object.fromEntries(got.headers))).toThrow(
      'No matching signature found',
    );
  });

  it('the key set is public and cacheable, with an ETag that answers 304, under the anonymous budget', async () => {
    const first = await fetch(`${server.url}/.well-known/webhook-keys`);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    expect(first.headers.get('ratelimit-policy')).toBeTruthy();
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(`${server.url}/.well-known/webhook-keys`, {
      headers: { 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);
  });

  it('refuses ed25519 with the switchboard scheme, on create and on change', async () => {
    const url = `${receiver.url}/other`;
    const refused = await call('/api/v1/webhook-endpoints', 'POST', {
      url,
      eventTypes: ['order.*'],
      signature: 'ed25519',
      scheme: 'switchboard',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ field: 'scheme', code: 'invalid_value' }),
    ]);
    const plain = await call('/api/v1/webhook-endpoints', 'POST', { url, eventTypes: ['order.*'] });
    expect(plain.body).toMatchObject({ signature: 'hmac', scheme: 'switchboard' });
    const id = String(plain.body.id);
    expect((await call(`/api/v1/webhook-endpoints/${id}`, 'PATCH', { signature: 'ed25519' })).status).toBe(
      422,
    );
    const changed = await call(`/api/v1/webhook-endpoints/${id}`, 'PATCH', {
      signature: 'ed25519',
      scheme: 'standard',
    });
    expect(changed.body).toMatchObject({ signature: 'ed25519', scheme: 'standard' });
    expect((await call(`/api/v1/webhook-endpoints/${id}`, 'DELETE')).status).toBe(204);
  });

  it('GraphQL registers an ed25519 endpoint and lists the signing keys', async () => {
    const { body } = await call('/graphql', 'POST', {
      query: `mutation { createWebhookEndpoint(input: { url: "${receiver.url}/gql", eventTypes: ["order.*"], signature: "ed25519" }) { endpoint { id signature scheme } } }`,
    });
    const endpoint = (body.data as { createWebhookEndpoint: { endpoint: Json } }).createWebhookEndpoint
      .endpoint;
    expect(endpoint).toMatchObject({ signature: 'ed25519', scheme: 'standard' });
    const listed = await call('/graphql', 'POST', {
      query: '{ webhookSigningKeys { kid active publicKey } }',
    });
    const [key] = (listed.body.data as { webhookSigningKeys: Json[] }).webhookSigningKeys;
    expect(key).toMatchObject({ active: true, kid: (await keySet())[0]!.kid });
    await call(`/api/v1/webhook-endpoints/${endpoint.id}`, 'DELETE');
  });

  it('OpenAPI documents the signature, the signing key routes and the key set', async () => {
    const document = (await call('/api/v1/openapi.json')).body as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { properties: Json }> };
    };
    expect(document.components.schemas.WebhookEndpoint!.properties).toHaveProperty('signature');
    expect(document.paths).toHaveProperty(['/webhook-signing-keys']);
    expect(Object.keys(document.paths).some((path) => path.endsWith('/.well-known/webhook-keys'))).toBe(true);
  });

  it('a rotation: old and new keys both sign and are both published during the overlap; after it, only the new one', async () => {
    const [old] = await keySet();
    const rotated = await call('/api/v1/webhook-signing-keys', 'POST', { overlapSeconds: 2 });
    expect(rotated.status).toBe(201);
    expect(WebhookSigningKeyListSchema.strict().safeParse(rotated.body).success).toBe(true);
    const items = rotated.body.items as { kid: string; active: boolean; expiresAt: string | null }[];
    expect(items.map((k) => [k.kid === old!.kid, k.active])).toEqual([
      [false, true],
      [true, false],
    ]);
    const during = await keySet();
    expect(during.map((k) => k.kid)).toEqual([items[0]!.kid, old!.kid]);

    // Each key's signature verifies with its own JWK: a receiver holding either set accepts.
    const got = await delivery();
    const [byNew, byOld] = entriesOf(got);
    expect(verifiesWith(during[0]!, got, byNew!)).toBe(true);
    expect(verifiesWith(old!, got, byOld!)).toBe(true);
    expect(verifiesWith(old!, got, byNew!)).toBe(false);

    await until(async () => (await keySet()).length === 1, 'the old key to leave the set', 5_000);
    const after = await keySet();
    expect(after.map((k) => k.kid)).toEqual([items[0]!.kid]);
    const later = await delivery();
    expect(entriesOf(later)).toHaveLength(1);
    expect(verifiesWith(after[0]!, later, entriesOf(later)[0]!)).toBe(true);
  });

  it('rotation input is checked like a secret rotation', async () => {
    const refused = await call('/api/v1/webhook-signing-keys', 'POST', { overlapSeconds: -1 });
    expect(refused.status).toBe(422);
    expect((await call('/api/v1/webhook-signing-keys')).body.items).toHaveLength(1);
  });
});
