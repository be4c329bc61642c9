/** Where the runtime has no node:crypto (edge runtimes), webhooks sign and verify with Web Crypto: same bytes. */
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
});
