import { expect, it } from 'vitest';
import type { ConsoleSessionRecord, Storage } from '../../core/storage/index.js';

let counter = 0;

function aSession(overrides: Partial<ConsoleSessionRecord> = {}): ConsoleSessionRecord {
  const n = ++counter;
  return {
    idHash: n.toString(16).padStart(64, 'c'),
    userId: null,
    createdAt: n,
    expiresAt: n + 1000,
    ...overrides,
  };
}

export function consoleSessionContract(storage: () => Storage): void {
  it('keeps a session until it is deleted, and deletes it once', async () => {
    const s = storage();
    const session = aSession({ userId: 'cli_ada' });
    await s.consoleSessions.insert(session);
    expect(await s.consoleSessions.get(session.idHash)).toEqual(session);
    expect(await s.consoleSessions.get('f'.repeat(64))).toBeNull();
    expect(await s.consoleSessions.delete(session.idHash)).toBe(true);
    expect(await s.consoleSessions.delete(session.idHash)).toBe(false);
    expect(await s.consoleSessions.get(session.idHash)).toBeNull();
  });

  it('refuses a second session with the same id hash', async () => {
    const s = storage();
    const session = aSession();
    await s.consoleSessions.insert(session);
    await expect(s.consoleSessions.insert({ ...session, userId: 'cli_other' })).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('deletes every session of one user, and only theirs', async () => {
    const s = storage();
    const ada = [aSession({ userId: 'cli_ada' }), aSession({ userId: 'cli_ada' })];
    const others = [aSession({ userId: 'cli_grace' }), aSession()];
    for (const session of [...ada, ...others]) await s.consoleSessions.insert(session);
    expect(await s.consoleSessions.deleteByUser('cli_ada')).toBe(2);
    for (const session of ada) expect(await s.consoleSessions.get(session.idHash)).toBeNull();
    for (const session of others) expect(await s.consoleSessions.get(session.idHash)).toEqual(session);
  });

  it('deletes the sessions that ended before a time', async () => {
    const s = storage();
    const ended = aSession({ expiresAt: 5_000 });
    const open = aSession({ expiresAt: 5_001 });
    await s.consoleSessions.insert(ended);
    await s.consoleSessions.insert(open);
    expect(await s.consoleSessions.deleteExpired(5_001)).toBe(1);
    expect(await s.consoleSessions.get(ended.idHash)).toBeNull();
    expect(await s.consoleSessions.get(open.idHash)).toEqual(open);
  });

  it('takes a session back with the transaction that made it', async () => {
    const s = storage();
    const session = aSession();
    await expect(
      s.transaction(async (tx) => {
        await tx.consoleSessions.insert(session);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await s.consoleSessions.get(session.idHash)).toBeNull();
  });
}
