import { describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';

describe('createSwitchboard', () => {
  it('sweeps expired records periodically when the storage can, and stops on close', async () => {
    const sweeps: number[] = [];
    const storage = {
      ...createMemoryStorage(),
      sweep: async ({ now }: { now: number }) => void sweeps.push(now),
    };
    const switchboard = createSwitchboard({ storage, sweepIntervalMs: 5 });
    switchboard.start();
    await expect.poll(() => sweeps.length).toBeGreaterThanOrEqual(2);
    await switchboard.close();
    const after = sweeps.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sweeps.length).toBe(after);
  });

  it('publishes a committed change to the live bus without an explicit flush once started', async () => {
    const switchboard = createSwitchboard();
    const received = new Promise<string>((resolve) => switchboard.bus.subscribe((e) => resolve(e.type)));
    switchboard.start();
    await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    expect(await received).toBe('client.created');
    await switchboard.close();
  });
});
