import { expect, it } from 'vitest';
import type { ApiKeyRecord, Storage } from '../../core/storage/index.js';
import { ms } from './fixtures.js';

let counter = 0;

export function anApiKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const n = ++counter;
  return {
    id: `key_contract_${n}`,
    prefix: `sbk_${n}`,
    hash: n.toString(16).padStart(64, 'a'),
    name: `Key ${n}`,
    scopes: ['crm.clients.read'],
    createdAt: ms(n),
    revokedAt: null,
    lastUsedAt: null,
    ...overrides,
  };
}

export function apiKeyContract(storage: () => Storage): void {
  it('replaces the scopes of a key', async () => {
    const s = storage();
    const key = anApiKey();
    await s.apiKeys.insert(key);
    expect(await s.apiKeys.setScopes(key.id, ['crm.orders.read', 'shop.returns.read'])).toBe(true);
    expect((await s.apiKeys.get(key.id))?.scopes).toEqual(['crm.orders.read', 'shop.returns.read']);
    expect((await s.apiKeys.findByHash(key.hash))?.scopes).toEqual(['crm.orders.read', 'shop.returns.read']);
    expect(await s.apiKeys.setScopes('key_none', [])).toBe(false);
  });

  it('finds a key by id and by hash, and lists keys by creation', async () => {
    const s = storage();
    const first = anApiKey();
    const second = anApiKey();
    await s.apiKeys.insert(second);
    await s.apiKeys.insert(first);
    expect(await s.apiKeys.get(first.id)).toEqual(first);
    expect(await s.apiKeys.findByHash(second.hash)).toEqual(second);
    expect(await s.apiKeys.findByHash('f'.repeat(64))).toBeNull();
    expect(await s.apiKeys.list()).toEqual([first, second]);
  });

  it('refuses a second key with the same id or hash', async () => {
    const s = storage();
    const key = anApiKey();
    await s.apiKeys.insert(key);
    await expect(s.apiKeys.insert({ ...key, hash: 'b'.repeat(64) })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(s.apiKeys.insert({ ...key, id: 'key_other' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('revokes once and keeps the revoked key findable so the guard can refuse it', async () => {
    const s = storage();
    const key = anApiKey();
    await s.apiKeys.insert(key);
    expect(await s.apiKeys.revoke(key.id, ms(1000))).toBe(true);
    expect(await s.apiKeys.revoke(key.id, ms(2000))).toBe(false);
    expect(await s.apiKeys.revoke('key_absent', ms(2000))).toBe(false);
    expect(await s.apiKeys.findByHash(key.hash)).toEqual({ ...key, revokedAt: ms(1000) });
  });

  it('records when a key was last used', async () => {
    const s = storage();
    const key = anApiKey();
    await s.apiKeys.insert(key);
    await s.apiKeys.touch(key.id, ms(500));
    expect((await s.apiKeys.get(key.id))?.lastUsedAt).toBe(ms(500));
  });
}
