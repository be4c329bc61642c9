import { expect, it } from 'vitest';
import type {
  AccessTokenRecord,
  AuthorizationCodeRecord,
  GrantRecord,
  OAuthClientRecord,
  RefreshTokenRecord,
  Storage,
} from '../../core/storage/index.js';
import { ms } from './fixtures.js';

const NOW = Date.UTC(2026, 0, 1);
let counter = 0;
const next = (): number => ++counter;
const hashOf = (n: number): string => n.toString(16).padStart(64, '0');

export function anOAuthClient(overrides: Partial<OAuthClientRecord> = {}): OAuthClientRecord {
  const n = next();
  return {
    id: `oac_contract_${n}`,
    name: `App ${n}`,
    secretHash: hashOf(n),
    redirectUris: ['https://app.example.com/callback'],
    scopes: ['crm.clients.read'],
    grantTypes: ['authorization_code', 'refresh_token'],
    createdAt: ms(n),
    ...overrides,
  };
}

export function aGrant(overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    id: `grt_contract_${next()}`,
    clientId: 'oac_1',
    userId: 'cli_1',
    scopes: ['crm.clients.read'],
    createdAt: NOW,
    expiresAt: NOW + 86_400_000,
    revokedAt: null,
    ...overrides,
  };
}

export function aCode(overrides: Partial<AuthorizationCodeRecord> = {}): AuthorizationCodeRecord {
  return {
    codeHash: hashOf(next()),
    clientId: 'oac_1',
    userId: 'cli_1',
    redirectUri: 'https://app.example.com/callback',
    scopes: ['crm.clients.read'],
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    nonce: null,
    grantId: 'grt_1',
    createdAt: NOW,
    expiresAt: NOW + 60_000,
    consumedAt: null,
    ...overrides,
  };
}

export function aRefreshToken(overrides: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord {
  return {
    tokenHash: hashOf(next()),
    grantId: 'grt_1',
    createdAt: NOW,
    expiresAt: NOW + 86_400_000,
    usedAt: null,
    ...overrides,
  };
}

export function anAccessToken(overrides: Partial<AccessTokenRecord> = {}): AccessTokenRecord {
  return {
    tokenHash: hashOf(next()),
    grantId: 'grt_1',
    clientId: 'oac_1',
    userId: 'cli_1',
    scopes: ['crm.clients.read'],
    createdAt: NOW,
    expiresAt: NOW + 3_600_000,
    ...overrides,
  };
}

export function oauthContract(storage: () => Storage): void {
  it('stores clients, lists them by creation, refuses a taken id and deletes', async () => {
    const s = storage();
    const first = anOAuthClient();
    const second = anOAuthClient({ secretHash: null });
    await s.oauth.clients.insert(second);
    await s.oauth.clients.insert(first);
    expect(await s.oauth.clients.get(first.id)).toEqual(first);
    expect(await s.oauth.clients.list()).toEqual([first, second]);
    await expect(s.oauth.clients.insert(first)).rejects.toMatchObject({ code: 'conflict' });
    expect(await s.oauth.clients.delete(first.id)).toBe(true);
    expect(await s.oauth.clients.delete(first.id)).toBe(false);
    expect(await s.oauth.clients.get(first.id)).toBeNull();
  });

  it('updates a client in place, with a previous secret and its deadline, and not an absent one', async () => {
    const s = storage();
    const client = anOAuthClient();
    await s.oauth.clients.insert(client);
    const rotated = {
      ...client,
      name: 'Renamed',
      redirectUris: ['https://app.example.com/new'],
      secretHash: 'b'.repeat(64),
      previousSecret: { hash: client.secretHash!, until: NOW + 86_400_000 },
    };
    expect(await s.oauth.clients.update(rotated)).toBe(true);
    expect(await s.oauth.clients.get(client.id)).toEqual(rotated);
    const cleared = { ...rotated, previousSecret: null };
    expect(await s.oauth.clients.update(cleared)).toBe(true);
    expect((await s.oauth.clients.get(client.id))?.previousSecret ?? null).toBeNull();
    expect(await s.oauth.clients.update({ ...client, id: 'oac_absent' })).toBe(false);
  });

  it('keeps whether a client registered itself, through an update too', async () => {
    const s = storage();
    const registered = anOAuthClient({ secretHash: null, selfRegistered: true });
    const configured = anOAuthClient();
    await s.oauth.clients.insert(registered);
    await s.oauth.clients.insert(configured);
    expect(await s.oauth.clients.get(registered.id)).toEqual(registered);
    expect((await s.oauth.clients.get(configured.id))?.selfRegistered ?? false).toBe(false);
    const renamed = { ...registered, name: 'Renamed agent' };
    expect(await s.oauth.clients.update(renamed)).toBe(true);
    expect(await s.oauth.clients.get(registered.id)).toEqual(renamed);
    expect((await s.oauth.clients.list()).find((c) => c.id === registered.id)?.selfRegistered).toBe(true);
  });

  it('keeps when a client was approved and disabled and the MCP tools it may call, and clears them', async () => {
    const s = storage();
    const client = anOAuthClient({ secretHash: null, selfRegistered: true });
    await s.oauth.clients.insert(client);
    expect((await s.oauth.clients.get(client.id))?.approvedAt ?? null).toBeNull();
    expect((await s.oauth.clients.get(client.id))?.disabledAt ?? null).toBeNull();
    expect((await s.oauth.clients.get(client.id))?.mcpTools ?? null).toBeNull();
    const managed = { ...client, approvedAt: NOW, disabledAt: NOW + 1, mcpTools: ['list_bookings'] };
    expect(await s.oauth.clients.update(managed)).toBe(true);
    expect(await s.oauth.clients.get(client.id)).toEqual(managed);
    expect((await s.oauth.clients.list()).find((c) => c.id === client.id)).toEqual(managed);
    // An empty list is a client allowed no tool, not one allowed every tool.
    const none = { ...managed, mcpTools: [] };
    expect(await s.oauth.clients.update(none)).toBe(true);
    expect((await s.oauth.clients.get(client.id))?.mcpTools).toEqual([]);
    const cleared = { ...none, approvedAt: null, disabledAt: null, mcpTools: null };
    expect(await s.oauth.clients.update(cleared)).toBe(true);
    const stored = await s.oauth.clients.get(client.id);
    expect([stored?.approvedAt ?? null, stored?.disabledAt ?? null, stored?.mcpTools ?? null]).toEqual([
      null,
      null,
      null,
    ]);
    const inserted = anOAuthClient({ approvedAt: NOW, mcpTools: ['get_booking', 'list_bookings'] });
    await s.oauth.clients.insert(inserted);
    expect(await s.oauth.clients.get(inserted.id)).toEqual(inserted);
  });

  it('consumes a code once and reports every later use as reuse', async () => {
    const s = storage();
    const code = aCode();
    await s.oauth.codes.insert(code);
    expect(await s.oauth.codes.consume(code.codeHash, NOW + 1)).toEqual({
      state: 'consumed',
      code: { ...code, consumedAt: NOW + 1 },
    });
    expect(await s.oauth.codes.consume(code.codeHash, NOW + 2)).toEqual({
      state: 'reused',
      code: { ...code, consumedAt: NOW + 1 },
    });
    expect(await s.oauth.codes.consume(hashOf(999_999), NOW)).toEqual({ state: 'missing' });
  });

  it('keeps the resources a code was asked for, none named included, and none on a code without', async () => {
    const s = storage();
    const named = aCode({ resources: ['https://api.example.com/mcp'] });
    const none = aCode({ resources: [] });
    const before = aCode();
    for (const code of [named, none, before]) await s.oauth.codes.insert(code);
    for (const code of [named, none, before])
      expect(await s.oauth.codes.consume(code.codeHash, NOW)).toEqual({
        state: 'consumed',
        code: { ...code, consumedAt: NOW },
      });
  });

  it('gives exactly one of 20 concurrent consumers of a code the win', async () => {
    const s = storage();
    const code = aCode();
    await s.oauth.codes.insert(code);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.oauth.codes.consume(code.codeHash, NOW + i)),
    );
    expect(results.filter((r) => r.state === 'consumed')).toHaveLength(1);
    expect(results.filter((r) => r.state === 'reused')).toHaveLength(19);
  });

  it('gives exactly one of 20 concurrent refreshes with the same token the win', async () => {
    const s = storage();
    const token = aRefreshToken();
    await s.oauth.refreshTokens.insert(token);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.oauth.refreshTokens.use(token.tokenHash, NOW + i)),
    );
    const fresh = results.filter((r) => r.state === 'fresh');
    expect(fresh).toHaveLength(1);
    const usedAt = fresh[0]?.state === 'fresh' ? fresh[0].token.usedAt : null;
    for (const r of results.filter((r) => r.state === 'used')) {
      expect(r).toMatchObject({ state: 'used', token: { tokenHash: token.tokenHash, usedAt } });
    }
    expect(await s.oauth.refreshTokens.use(hashOf(888_888), NOW)).toEqual({ state: 'missing' });
  });

  it('revokes a grant once, keeping the first revocation time', async () => {
    const s = storage();
    const grant = aGrant();
    await s.oauth.grants.insert(grant);
    expect(await s.oauth.grants.revoke(grant.id, NOW + 5)).toBe(true);
    expect(await s.oauth.grants.revoke(grant.id, NOW + 9)).toBe(true);
    expect(await s.oauth.grants.get(grant.id)).toEqual({ ...grant, revokedAt: NOW + 5 });
    expect(await s.oauth.grants.revoke('grt_absent', NOW)).toBe(false);
  });

  it('revokes every live grant of a client', async () => {
    const s = storage();
    const a = aGrant({ clientId: 'oac_x' });
    const b = aGrant({ clientId: 'oac_x' });
    const other = aGrant({ clientId: 'oac_y' });
    for (const g of [a, b, other]) await s.oauth.grants.insert(g);
    expect(await s.oauth.grants.revokeByClient('oac_x', NOW)).toBe(2);
    expect((await s.oauth.grants.get(a.id))?.revokedAt).toBe(NOW);
    expect((await s.oauth.grants.get(other.id))?.revokedAt).toBeNull();
  });

  it('widens a live grant (scopes, resources, end), and leaves a revoked or expired one alone', async () => {
    const s = storage();
    const grant = aGrant({ scopes: ['a.read'], expiresAt: NOW + 1_000 });
    await s.oauth.grants.insert(grant);
    const change = {
      scopes: ['a.read', 'b.read'],
      resources: ['https://api.example.com/mcp'],
      expiresAt: NOW + 5_000,
    };
    const widened = { ...grant, ...change };
    expect(await s.oauth.grants.widen(grant.id, change, NOW)).toEqual(widened);
    expect(await s.oauth.grants.get(grant.id)).toEqual(widened);
    // No resources named: the field is left out again, as for a grant inserted without it.
    const everywhere = { ...change, resources: [] };
    const { resources: _, ...plain } = widened;
    expect(await s.oauth.grants.widen(grant.id, everywhere, NOW)).toEqual(plain);
    expect(await s.oauth.grants.widen(grant.id, change, NOW + 5_000)).toBeNull();
    await s.oauth.grants.revoke(grant.id, NOW);
    expect(await s.oauth.grants.widen(grant.id, change, NOW)).toBeNull();
    expect(await s.oauth.grants.get(grant.id)).toEqual({ ...plain, revokedAt: NOW });
    expect(await s.oauth.grants.widen('grt_absent', change, NOW)).toBeNull();
  });

  it('lists grants newest first, then by id (by code unit), filtered by user and by client', async () => {
    const s = storage();
    const old = aGrant({ userId: 'cli_a', clientId: 'oac_x', createdAt: NOW - 2_000 });
    const tieLower = aGrant({ id: 'grt_tie_a', userId: 'cli_a', clientId: 'oac_y', createdAt: NOW });
    const tieUpper = aGrant({ id: 'grt_tie_B', userId: 'cli_a', clientId: 'oac_x', createdAt: NOW });
    const otherUser = aGrant({ userId: 'cli_b', clientId: 'oac_x', createdAt: NOW - 1_000 });
    const machine = aGrant({ userId: null, clientId: 'oac_x', createdAt: NOW - 500 });
    for (const g of [old, tieUpper, otherUser, tieLower, machine]) await s.oauth.grants.insert(g);

    expect(await s.oauth.grants.list({})).toEqual([tieLower, tieUpper, machine, otherUser, old]);
    expect(await s.oauth.grants.list({ userId: 'cli_a' })).toEqual([tieLower, tieUpper, old]);
    expect(await s.oauth.grants.list({ clientId: 'oac_x' })).toEqual([tieUpper, machine, otherUser, old]);
    expect(await s.oauth.grants.list({ userId: 'cli_a', clientId: 'oac_x' })).toEqual([tieUpper, old]);
    expect(await s.oauth.grants.list({ userId: 'cli_nobody' })).toEqual([]);
  });

  it('lists only live grants when asked: not revoked, and not expired at that instant', async () => {
    const s = storage();
    const live = aGrant({ expiresAt: NOW + 1 });
    const expired = aGrant({ expiresAt: NOW });
    const revoked = aGrant({ revokedAt: NOW - 1 });
    for (const g of [live, expired, revoked]) await s.oauth.grants.insert(g);
    expect(await s.oauth.grants.list({ live: { now: NOW } })).toEqual([live]);
    expect(await s.oauth.grants.list({ userId: 'cli_1', live: { now: NOW } })).toEqual([live]);
    expect(await s.oauth.grants.list({})).toHaveLength(3);
  });

  it('lists at most 500 grants, the newest', async () => {
    const s = storage();
    const grants = Array.from({ length: 501 }, (_, i) => aGrant({ createdAt: NOW + i }));
    await Promise.all(grants.map((g) => s.oauth.grants.insert(g)));
    const listed = await s.oauth.grants.list({ userId: 'cli_1' });
    expect(listed).toHaveLength(500);
    expect(listed[0]).toEqual(grants[500]);
    expect(listed.at(-1)).toEqual(grants[1]);
  });

  it('stores access tokens by hash and deletes them', async () => {
    const s = storage();
    const token = anAccessToken();
    await s.oauth.accessTokens.insert(token);
    expect(await s.oauth.accessTokens.get(token.tokenHash)).toEqual(token);
    expect(await s.oauth.accessTokens.delete(token.tokenHash)).toBe(true);
    expect(await s.oauth.accessTokens.get(token.tokenHash)).toBeNull();
    expect(await s.oauth.accessTokens.delete(token.tokenHash)).toBe(false);
  });

  it('keeps the resources of a grant and the audience of an access token (RFC 8707)', async () => {
    const s = storage();
    const grant = aGrant({ resources: ['https://api.example.com/mcp', 'https://api.example.com/api'] });
    await s.oauth.grants.insert(grant);
    expect(await s.oauth.grants.get(grant.id)).toEqual(grant);
    expect(await s.oauth.grants.list({ clientId: grant.clientId })).toEqual([grant]);
    const token = anAccessToken({ grantId: grant.id, audience: ['https://api.example.com/mcp'] });
    await s.oauth.accessTokens.insert(token);
    expect(await s.oauth.accessTokens.get(token.tokenHash)).toEqual(token);
    // Without them, nothing comes back: such a token goes to every resource, as before.
    const plain = anAccessToken();
    await s.oauth.accessTokens.insert(plain);
    expect((await s.oauth.accessTokens.get(plain.tokenHash))?.audience).toBeUndefined();
  });

  it('deletes what has expired, and the tokens of expired grants', async () => {
    const s = storage();
    const old = aGrant({ expiresAt: NOW + 10 });
    const live = aGrant({ expiresAt: NOW + 1_000_000 });
    await s.oauth.grants.insert(old);
    await s.oauth.grants.insert(live);
    const expiredCode = aCode({ grantId: live.id, expiresAt: NOW + 10 });
    const liveCode = aCode({ grantId: live.id, expiresAt: NOW + 1_000 });
    const orphanRefresh = aRefreshToken({ grantId: old.id, expiresAt: NOW + 1_000_000 });
    const liveRefresh = aRefreshToken({ grantId: live.id });
    const expiredAccess = anAccessToken({ grantId: live.id, expiresAt: NOW + 10 });
    const liveAccess = anAccessToken({ grantId: live.id });
    await s.oauth.codes.insert(expiredCode);
    await s.oauth.codes.insert(liveCode);
    await s.oauth.refreshTokens.insert(orphanRefresh);
    await s.oauth.refreshTokens.insert(liveRefresh);
    await s.oauth.accessTokens.insert(expiredAccess);
    await s.oauth.accessTokens.insert(liveAccess);

    expect(await s.oauth.deleteExpired(NOW + 100)).toBe(4);
    expect(await s.oauth.grants.get(old.id)).toBeNull();
    expect(await s.oauth.grants.get(live.id)).not.toBeNull();
    expect(await s.oauth.codes.consume(expiredCode.codeHash, NOW)).toEqual({ state: 'missing' });
    expect((await s.oauth.codes.consume(liveCode.codeHash, NOW)).state).toBe('consumed');
    expect(await s.oauth.refreshTokens.get(orphanRefresh.tokenHash)).toBeNull();
    expect(await s.oauth.refreshTokens.get(liveRefresh.tokenHash)).toEqual(liveRefresh);
    expect(await s.oauth.accessTokens.get(expiredAccess.tokenHash)).toBeNull();
    expect(await s.oauth.accessTokens.get(liveAccess.tokenHash)).toEqual(liveAccess);
  });

  it('rolls back OAuth writes with the transaction', async () => {
    const s = storage();
    const grant = aGrant();
    const token = aRefreshToken({ grantId: grant.id });
    await expect(
      s.transaction(async (tx) => {
        await tx.oauth.grants.insert(grant);
        await tx.oauth.refreshTokens.insert(token);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await s.oauth.grants.get(grant.id)).toBeNull();
    expect(await s.oauth.refreshTokens.get(token.tokenHash)).toBeNull();
  });
}
