/** An endpoint's page in the console says how its deliveries are signed and where an ed25519 one's keys are. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  ADMIN_KEY,
  type ConsoleInstance,
  closeConsoles,
  get,
  type Session,
  signIn,
  startConsoles,
} from './support.js';

describe("an endpoint's signature in the console", () => {
  let consoles: ConsoleInstance[];
  let base: string;
  let session: Session;
  beforeAll(async () => {
    consoles = await startConsoles(() => createMemoryStorage(), 1, {
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
    });
    base = consoles[0]!.base;
    session = await signIn(base, { api_key: ADMIN_KEY });
  });
  afterAll(() => closeConsoles(consoles));

  it('shows ed25519 with a link to the published keys, and HMAC with its headers', async () => {
    const { admin } = consoles[0]!.switchboard.webhooks!;
    const signed = async (input: Record<string, unknown>): Promise<string> => {
      const { endpoint } = await admin.createEndpoint({
        url: 'http://127.0.0.1:9/hooks',
        eventTypes: ['order.*'],
        ...input,
      });
      return (await get(base, `/webhooks/${endpoint.id}`, session)).text();
    };
    const ed25519 = await signed({ signature: 'ed25519' });
    expect(ed25519).toContain('<dt>Signature</dt><dd>Ed25519, Standard Webhooks <code>v1a</code>');
    expect(ed25519).toContain(
      '<a href="/.well-known/webhook-keys"><code>/.well-known/webhook-keys</code></a>',
    );
    expect(await signed({})).toContain(
      '<dt>Signature</dt><dd>HMAC-SHA256 with its secret, <code>X-Signature</code>',
    );
    expect(await signed({ scheme: 'standard' })).toContain(
      '<dt>Signature</dt><dd>HMAC-SHA256 with its secret, Standard Webhooks <code>v1</code>',
    );
  });
});
