import { describe, expect, it } from 'vitest';
import { createSwitchboard, sortableIds } from '../../src/index.js';

describe('default ids', () => {
  it('sort in the order they were made, also within one millisecond, and never repeat', () => {
    const ids = Array.from({ length: 5_000 }, () => sortableIds('cli'));
    expect(ids.every((id) => /^cli_[0-9a-f]{32}$/.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('list records created in the same millisecond in the order they were created', async () => {
    const switchboard = createSwitchboard({ clock: { now: () => Date.parse('2026-01-01T00:00:00Z') } });
    const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const made = [];
    for (let n = 0; n < 20; n++)
      made.push(
        (await switchboard.domain.orders.create({ clientId: client.id, total: `${n}.00`, currency: 'EUR' }))
          .id,
      );
    const listed = await switchboard.domain.orders.list({
      where: { clientId: client.id },
      range: { offset: 0, limit: 50 },
    });
    expect(listed.items.map((o) => o.id)).toEqual(made);
  });
});
