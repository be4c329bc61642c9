/**
 * GraphQL subscriptions and an erased client (issue 33, item 6): its deletion arrives as the tombstone
 * it is (the record's `id`), and events of its records that the relay hands on only after the erasure
 * (they carry ids only, the records are gone) are left out rather than answered with field errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { collect, observedBus, startServer, type TestServer } from './helpers.js';

describe('subscriptions and an erased client', () => {
  let server: TestServer;
  const { bus, listeners } = observedBus();
  beforeAll(async () => {
    server = await startServer({ bus });
  });
  afterAll(() => server.close());

  it('sends the deletion of a client with its id, and leaves out events made tombstones before they were relayed', async () => {
    const changes = collect<{ data: { onClientChange: unknown } }>(
      server.ws(),
      'subscription { onClientChange { event client { id } } }',
      2,
    );
    await listeners(1);
    // An event of a client erased before the relay handed it on: it reads back as a tombstone.
    await server.storage.outbox.append({
      id: 'evt_erased_before_relay',
      type: 'client.updated',
      occurredAt: new Date().toISOString(),
      data: { id: 'cli_gone' },
      owner: 'cli_gone',
      redacted: true,
    });
    const ada = await server.switchboard.domain.clients.create({ name: 'Ada', email: 'ada.sub@example.com' });
    // Relayed (so sent as it was) before the deletion makes it a tombstone in the outbox.
    await until(async () => (await server.storage.outbox.backlog()) === 0, 'the relay');
    await server.switchboard.domain.clients.delete(ada.id);
    expect(await changes).toEqual([
      { data: { onClientChange: { event: 'client.created', client: { id: ada.id } } } },
      { data: { onClientChange: { event: 'client.deleted', client: { id: ada.id } } } },
    ]);
  });
});
