/**
 * The guard's cost per request: an opaque access token (SHA-256 + storage lookup + grant check) and an
 * API key, against the peer design — a self-contained ES256 JWT verified with crypto.subtle, no
 * storage — measured in the same run. Run with `npx vitest bench --run test/bench/oauth.bench.ts`;
 * vitest prints the ratio under the group ("x times faster than").
 */
import { createJWTSignatureMessage, encodeJWT } from '@oslojs/jwt';
import { bench, describe } from 'vitest';
import { createRuntime } from '../../src/index.js';
import { createGuard, randomSecret } from '../../src/oauth/index.js';
import { hashSecret } from '../../src/oauth/secrets.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';

const storage = createMemoryStorage();
const now = Date.now();
const token = randomSecret('sbat_');
await storage.oauth.grants.insert({
  id: 'grt_1',
  clientId: 'oac_1',
  userId: 'cli_1',
  scopes: ['crm.clients.read'],
  createdAt: now,
  expiresAt: now + 86_400_000,
  revokedAt: null,
});
await storage.oauth.accessTokens.insert({
  tokenHash: hashSecret(token),
  grantId: 'grt_1',
  clientId: 'oac_1',
  userId: 'cli_1',
  scopes: ['crm.clients.read'],
  createdAt: now,
  expiresAt: now + 3_600_000,
});
const key = randomSecret('sbk_');
await storage.apiKeys.insert({
  id: 'key_1',
  prefix: key.slice(0, 10),
  hash: hashSecret(key),
  name: 'bench',
  scopes: ['crm.clients.read'],
  createdAt: now,
  revokedAt: null,
  lastUsedAt: now,
});
// Filler so lookups run against a realistic map size.
for (let i = 0; i < 10_000; i++) {
  await storage.oauth.accessTokens.insert({
    tokenHash: hashSecret(`filler-${i}`),
    grantId: 'grt_1',
    clientId: 'oac_1',
    userId: 'cli_1',
    scopes: [],
    createdAt: now,
    expiresAt: now + 3_600_000,
  });
}
const guard = createGuard(createRuntime({ storage }));

const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
  'sign',
  'verify',
])) as CryptoKeyPair;
const header = JSON.stringify({ alg: 'ES256', typ: 'at+jwt' });
const payload = JSON.stringify({
  sub: 'cli_1',
  scope: 'crm.clients.read',
  exp: Math.floor(now / 1000) + 3600,
});
const signature = await crypto.subtle.sign(
  { name: 'ECDSA', hash: 'SHA-256' },
  pair.privateKey,
  new Uint8Array(createJWTSignatureMessage(header, payload)),
);
const jwt = encodeJWT(header, payload, new Uint8Array(signature));

const request = (credential: string): Request =>
  new Request('http://localhost/api/v1/clients', { headers: { authorization: `Bearer ${credential}` } });

describe('authenticate one request', () => {
  bench('guard: opaque access token (memory storage)', async () => {
    await guard(request(token));
  });
  bench('guard: API key (memory storage)', async () => {
    await guard(request(key));
  });
  bench('peer: ES256 JWT verified with crypto.subtle', async () => {
    const [h, p, s] = request(jwt).headers.get('authorization')!.slice(7).split('.') as [
      string,
      string,
      string,
    ];
    const ok = await crypto.subtle.verify(
      { name: 'ECDSA', hash: 'SHA-256' },
      pair.publicKey,
      Buffer.from(s, 'base64url'),
      new TextEncoder().encode(`${h}.${p}`),
    );
    if (!ok) throw new Error('bad signature');
    JSON.parse(Buffer.from(p, 'base64url').toString());
  });
});
