/**
 * The storage contract suite: what "correct" means for a storage adapter. Run it from a vitest test
 * file against your adapter; the in-memory and PostgreSQL adapters pass it.
 *
 * @example
 * // test/my-adapter.test.ts
 * import { describeStorageContract } from 'switchboard-kit/storage/testing';
 * describeStorageContract('my adapter', async () => createMyStorage(await freshDatabase()));
 */
import { afterEach, beforeEach, describe } from 'vitest';
import type { Storage } from '../../core/storage/index.js';
import { apiKeyContract } from './api-keys.js';
import { consoleSessionContract } from './console-sessions.js';
import { erasureContract } from './erasure.js';
import { eventFeedContract } from './event-feed.js';
import type { StorageFactory } from './fixtures.js';
import { idempotencyContract } from './idempotency.js';
import { logRetentionContract } from './log-retention.js';
import { oauthContract } from './oauth.js';
import { outboxContract } from './outbox.js';
import { rateLimitContract } from './rate-limits.js';
import { resourceContract, resourceLockContract } from './resources.js';
import { textContract } from './text.js';
import { timeContract } from './times.js';
import { transactionContract } from './transactions.js';
import { webhookAttemptContract } from './webhook-attempts.js';
import { webhookDeliveryContract, webhookPruneContract } from './webhook-deliveries.js';
import { webhookEndpointContract } from './webhook-endpoints.js';
import { webhookOrderingContract } from './webhook-ordering.js';
import { webhookSigningKeyContract } from './webhook-signing-keys.js';

export type { StorageFactory } from './fixtures.js';

/** Registers the whole contract as vitest tests; `factory` makes a fresh, empty storage per test. */
export function describeStorageContract(name: string, factory: StorageFactory): void {
  describe(`storage contract: ${name}`, () => {
    let current: Storage | undefined;
    const storage = (): Storage => {
      if (!current) throw new Error('storage used outside a test');
      return current;
    };
    beforeEach(async () => {
      current = await factory();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });

    describe('outbox', () => outboxContract(storage));
    describe('event feed', () => eventFeedContract(storage));
    describe('idempotency', () => idempotencyContract(storage));
    describe('transactions', () => transactionContract(storage));
    describe('oauth', () => oauthContract(storage));
    describe('api keys', () => apiKeyContract(storage));
    describe('rate limits', () => rateLimitContract(storage));
    describe('console sessions', () => consoleSessionContract(storage));
    describe('resources', () => {
      resourceContract(storage);
      resourceLockContract(storage);
    });
    describe('text', () => textContract(storage));
    describe('times', () => timeContract(storage));
    describe('webhook endpoints', () => webhookEndpointContract(storage));
    describe('webhook signing keys', () => webhookSigningKeyContract(storage));
    describe('webhook deliveries', () => {
      webhookDeliveryContract(storage);
      webhookAttemptContract(storage);
      webhookPruneContract(storage);
      logRetentionContract(storage);
    });
    describe('webhook ordering', () => webhookOrderingContract(storage));
    describe('erasure', () => erasureContract(storage));
  });
}
