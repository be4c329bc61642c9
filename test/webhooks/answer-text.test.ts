/**
 * What a receiver answers is kept as an attempt's excerpt on every storage: NUL bytes in it, which no
 * storage keeps (docs/storage.md, "Text"), become U+FFFD as malformed UTF-8 does, and the attempt is
 * recorded like any other (issue 28, defect 12).
 */
import { describe, expect, it } from 'vitest';
import { bothStorages } from '../setup/database.js';
import { harness, orderEvent, scriptedReceiver } from './support.js';

describe.each(bothStorages())('a receiver’s answer on %s', (_, makeStorage) => {
  it('keeps NUL bytes of the answer as U+FFFD in the excerpt and records the attempt', async () => {
    const h = harness(await makeStorage());
    const receiver = await scriptedReceiver(h.clock, [
      () => new Response(new Uint8Array([0x6f, 0x6b, 0x00, 0x21, 0xf0, 0x9f, 0x91, 0x8d]), { status: 200 }),
    ]);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    expect(await h.dispatcher().runOnce()).toBe(1);
    const [delivery] = (await h.storage.webhooks.deliveries.list({}, { offset: 0, limit: 10 })).items;
    expect(delivery).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });
    const [attempt] = await h.storage.webhooks.attempts.listByDelivery(delivery!.id);
    expect(attempt!.responseExcerpt).toBe('ok\uFFFD!👍');
  });
});
