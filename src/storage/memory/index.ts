/**
 * The in-memory storage adapter: zero setup, the default, and the reference implementation of the
 * storage contract. Data lives as long as the process.
 *
 * @example
 * import { createMemoryStorage } from 'switchboard-kit/storage/memory';
 * const storage = createMemoryStorage();
 */
import type { Storage, Stores } from '../../core/storage/index.js';
import { DEFAULT_EVENT_RETENTION_MS } from '../../core/storage/outbox.js';
import { refusingUnstorableText, refusingUnstorableTextNow } from '../../core/storage/storable-text.js';
import { DEFAULT_DELIVERY_RETENTION_MS } from '../../core/storage/webhooks.js';
import { createSealer } from '../../internal/sealer.js';
import { createApiKeyState, memoryApiKeyStore } from './api-keys.js';
import { type ConsoleSessionState, memoryConsoleSessionStore } from './console-sessions.js';
import { createIdempotencyState, memoryIdempotencyStore } from './idempotency.js';
import { type Journal, Mutex, noJournal } from './journal.js';
import { createOAuthState, memoryOAuthStores } from './oauth.js';
import { memoryOutboxStore, type OutboxState, type SubjectState } from './outbox.js';
import { createFeedState } from './outbox-feed.js';
import { memoryRateLimitStore, type RateLimitState } from './rate-limits.js';
import { createResourceState, memoryResourceStore } from './resources.js';
import { createWebhookState, memoryWebhookStores } from './webhooks.js';

/** Options of {@link createMemoryStorage}. */
export interface MemoryStorageOptions {
  /** How long `sweep` keeps finished webhook deliveries (default 30 days). */
  readonly deliveryRetentionMs?: number;
  /** How long `sweep` keeps relayed events readable in the event feed after they occurred (default 30 days). */
  readonly eventRetentionMs?: number;
  /**
   * Encrypts the webhook signing keys' private keys and the values of endpoints' custom headers where
   * they are kept (AES-256-GCM under a key derived from this text, at least 32 characters), as the
   * PostgreSQL adapter does in its tables.
   */
  readonly encryptionKey?: string;
}

/** Creates an empty in-memory storage; transactions run one at a time and are rolled back when they throw. */
export function createMemoryStorage(options: MemoryStorageOptions = {}): Storage {
  const outbox: OutboxState = new Map();
  const subjects: SubjectState = new Map();
  const idempotency = createIdempotencyState();
  const apiKeys = createApiKeyState();
  const oauth = createOAuthState();
  // Deliveries a relay makes of an event read before its client's erasure are refused (see `erase`).
  // An ordered endpoint's delivery waits while an earlier event of its subject is not yet relayed: a
  // walk of the outbox's backlog (the events not yet relayed), which the relay keeps short.
  const unrelayedBefore = (subject: string, sequence: number): boolean => {
    for (const id of feed.pending) {
      const event = outbox.get(id)?.event;
      if (event?.subject === subject && event.sequence !== undefined && event.sequence < sequence)
        return true;
    }
    return false;
  };
  const webhooks = createWebhookState((id) => outbox.get(id)?.event.redacted === true, unrelayedBefore);
  const resources = createResourceState();
  const rateLimits: RateLimitState = new Map();
  const consoleSessions: ConsoleSessionState = new Map();
  const mutex = new Mutex();
  // A read of the feed outside a transaction waits for the one in progress: it never sees what rolls back.
  const feed = createFeedState((read) => mutex.run(async () => read()));
  const sealer = options.encryptionKey === undefined ? undefined : createSealer(options.encryptionKey);

  const stores = (journal: Journal): Stores => ({
    outbox: memoryOutboxStore(outbox, subjects, feed, journal),
    idempotency: memoryIdempotencyStore(idempotency, journal),
    apiKeys: memoryApiKeyStore(apiKeys, journal),
    oauth: memoryOAuthStores(oauth, journal),
    webhooks: memoryWebhookStores(webhooks, journal, sealer),
    resources: memoryResourceStore(resources, journal),
    rateLimits: memoryRateLimitStore(rateLimits),
    consoleSessions: memoryConsoleSessionStore(consoleSessions, journal),
  });

  // The stores outside any transaction: writes are final at once.
  const outside = refusingUnstorableTextNow(stores(noJournal));
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
     * Expired OAuth records and console sessions, old finished webhook deliveries and relayed events; idempotency keys
     * sweep themselves.
     */
    async sweep({ now }) {
      const oauthRecords = await outside.oauth.deleteExpired(now);
      const retention = options.deliveryRetentionMs ?? DEFAULT_DELIVERY_RETENTION_MS;
      const webhookDeliveries = await outside.webhooks.deliveries.prune(now - retention, { now });
      const consoleSessions = await outside.consoleSessions.deleteExpired(now);
      const events = await outside.outbox.prune(
        now - (options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS),
      );
      return { oauthRecords, webhookDeliveries, consoleSessions, events };
    },
    async close() {},
  };
}
