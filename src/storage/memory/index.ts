/**
 * The in-memory storage adapter: zero setup, the default, and the reference implementation of the
 * storage contract. Data lives as long as the process.
 *
 * @example
 * import { createMemoryStorage } from 'switchboard-kit/storage/memory';
 * const storage = createMemoryStorage();
 */
import type { Storage, Stores } from '../../core/storage/index.js';
import { refusingUnstorableText } from '../../core/storage/storable-text.js';
import { DEFAULT_DELIVERY_RETENTION_MS } from '../../core/storage/webhooks.js';
import { createApiKeyState, memoryApiKeyStore } from './api-keys.js';
import { type ConsoleSessionState, memoryConsoleSessionStore } from './console-sessions.js';
import { createIdempotencyState, memoryIdempotencyStore } from './idempotency.js';
import { type Journal, Mutex, noJournal } from './journal.js';
import { createOAuthState, memoryOAuthStores } from './oauth.js';
import { memoryOutboxStore, type OutboxState, type SubjectState } from './outbox.js';
import { memoryRateLimitStore, type RateLimitState } from './rate-limits.js';
import { createResourceState, memoryResourceStore } from './resources.js';
import { createWebhookState, memoryWebhookStores } from './webhooks.js';

/** Options of {@link createMemoryStorage}. */
export interface MemoryStorageOptions {
  /** How long `sweep` keeps finished webhook deliveries (default 30 days). */
  readonly deliveryRetentionMs?: number;
}

/** Creates an empty in-memory storage; transactions run one at a time and are rolled back when they throw. */
export function createMemoryStorage(options: MemoryStorageOptions = {}): Storage {
  const outbox: OutboxState = new Map();
  const idempotency = createIdempotencyState();
  const apiKeys = createApiKeyState();
  const oauth = createOAuthState();
  const webhooks = createWebhookState();
  const resources = createResourceState();
  const rateLimits: RateLimitState = new Map();
  const subjects: SubjectState = new Map();
  const consoleSessions: ConsoleSessionState = new Map();
  const mutex = new Mutex();

  const stores = (journal: Journal): Stores => ({
    outbox: memoryOutboxStore(outbox, subjects, journal),
    idempotency: memoryIdempotencyStore(idempotency, journal),
    apiKeys: memoryApiKeyStore(apiKeys, journal),
    oauth: memoryOAuthStores(oauth, journal),
    webhooks: memoryWebhookStores(webhooks, journal),
    resources: memoryResourceStore(resources, journal),
    rateLimits: memoryRateLimitStore(rateLimits),
    consoleSessions: memoryConsoleSessionStore(consoleSessions, journal),
  });

  // The stores outside any transaction: writes are final at once.
  const outside = refusingUnstorableText(stores(noJournal));
  return {
    ...outside,
    transaction(work) {
      return mutex.run(async () => {
        const undo: (() => void)[] = [];
        try {
          return await work(refusingUnstorableText(stores({ record: (step) => undo.push(step) })));
        } catch (error) {
          for (const step of undo.reverse()) step();
          resources.indexes.clear();
          throw error;
        }
      });
    },
    async ping() {},
    /**
     * Expired OAuth records and console sessions, old finished webhook deliveries; idempotency keys
     * sweep themselves.
     */
    async sweep({ now }) {
      const oauthRecords = await outside.oauth.deleteExpired(now);
      const retention = options.deliveryRetentionMs ?? DEFAULT_DELIVERY_RETENTION_MS;
      const webhookDeliveries = await outside.webhooks.deliveries.prune(now - retention);
      const consoleSessions = await outside.consoleSessions.deleteExpired(now);
      return { oauthRecords, webhookDeliveries, consoleSessions };
    },
    async close() {},
  };
}
