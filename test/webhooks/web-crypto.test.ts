/** Where the runtime has no node:crypto (edge runtimes), webhooks sign and verify with Web Crypto: same bytes. */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signWebhook, verifyWebhook } from '../../src/webhooks/index.js';

const body = JSON.stringify({ event: 'client.created', event_id: 'evt_1', data: { name: 'Zoë' } });
const secrets = { switchboard: 'plain-secret-1', standard: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };

async function withoutNodeCrypto(): Promise<typeof import('../../src/webhooks/index.js')> {
  vi.resetModules();
  vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
  try {
    return await import('../../src/webhooks/index.js');
  } finally {
    vi.unstubAllGlobals();
  }
}

afterEach(() => vi.resetModules());

describe('webhook signatures without node:crypto', () => {
  for (const scheme of ['switchboard', 'standard'] as const) {
    it(`${scheme}: Web Crypto signs what the native path verifies, and the other way round`, async () => {
      const edge = await withoutNodeCrypto();
      const signed = {
        body,
        secrets: [secrets[scheme]],
        eventId: 'evt_1',
        timestamp: Date.now() / 1000,
        scheme,
      };
      const edgeHeaders = await edge.signWebhook(signed);
      const nativeHeaders = await signWebhook(signed);
      expect(edgeHeaders).toEqual(nativeHeaders);
      const check = { body, secrets: [secrets[scheme]], scheme };
      expect(await verifyWebhook({ ...check, headers: edgeHeaders })).toMatchObject({ ok: true });
      expect(await edge.verifyWebhook({ ...check, headers: nativeHeaders })).toMatchObject({ ok: true });
      const tampered = { ...check, body: body.replace('Zoë', 'Zoe'), headers: nativeHeaders };
      expect(await edge.verifyWebhook(tampered)).toMatchObject({ ok: false, reason: 'mismatch' });
    });
  }

  it('ed25519 (v1a): Web Crypto signs the same bytes node:crypto does (Ed25519 is deterministic), and each verifies the other', async () => {
    const edge = await withoutNodeCrypto();
    const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    const privateKeys = [{ kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d! }] as const;
    const signed = { body, privateKeys, eventId: 'evt_1', timestamp: Date.now() / 1000 };
    const edgeHeaders = await edge.signWebhook(signed);
    expect(edgeHeaders['webhook-signature']).toMatch(/^v1a,/);
    expect(edgeHeaders).toEqual(await signWebhook(signed));
    const publicKeys = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: jwk.x! }] };
    expect(await verifyWebhook({ body, headers: edgeHeaders, publicKeys })).toMatchObject({ ok: true });
    expect(await edge.verifyWebhook({ body, headers: edgeHeaders, publicKeys })).toMatchObject({ ok: true });
    const tampered = { body: body.replace('Zoë', 'Zoe'), headers: edgeHeaders, publicKeys };
    expect(await edge.verifyWebhook(tampered)).toMatchObject({ ok: false, reason: 'mismatch' });
  });
});
