import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo, tokensFor } from './support.js';

const kidOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()).kid as string;

describe('ID token signing keys', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  const jwks = async () =>
    ((await (await fetch(`${demo.base}/oauth/jwks`)).json()) as { keys: { kid: string; alg: string }[] })
      .keys;

  it('serves OpenID discovery when ID tokens are on', async () => {
    const config = (await (await fetch(`${demo.base}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(config.jwks_uri).toBe(`${demo.base}/oauth/jwks`);
    expect(config.id_token_signing_alg_values_supported).toEqual(['ES256']);
  });

  it('signs with the new key after a rotation and keeps the old one published', async () => {
    const before = await tokensFor(demo, demo.ada, { scope: 'openid crm.clients.read' });
    const oldKid = kidOf((before as unknown as { id_token: string }).id_token);
    await demo.switchboard.oauth!.keys!.rotate();
    const after = await tokensFor(demo, demo.ada, { scope: 'openid crm.clients.read' });
    const newKid = kidOf((after as unknown as { id_token: string }).id_token);
    expect(newKid).not.toBe(oldKid);
    expect((await jwks()).map((k) => k.kid)).toEqual([newKid, oldKid]);
    expect((await jwks()).every((k) => k.alg === 'ES256')).toBe(true);
  });
});
