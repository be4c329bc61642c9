import { openStored, type Sealer } from '../../internal/sealer.js';
import type { WebhookEndpointRecord, WebhookEndpointStore } from './webhooks.js';

/**
 * An endpoint store whose custom header values (a gateway's API key, a bearer token) are sealed before
 * the adapter's own store sees them and opened as they are read back, so with an encryption key they
 * never reach the database (or the memory adapter's maps) in clear. Each value is bound to its endpoint
 * and header name. Both adapters wrap their store in it. Without a sealer values are stored as given,
 * and a sealed one read back is an error that says what to configure; a value stored in clear before a
 * key was configured is read as it is.
 */
export function sealingEndpointHeaders(
  store: WebhookEndpointStore,
  sealer: Sealer | undefined,
): WebhookEndpointStore {
  const context = (endpoint: WebhookEndpointRecord, name: string): string => `${endpoint.id}:header:${name}`;
  const seal = async (endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord> => {
    if (!sealer || !endpoint.headers) return endpoint;
    const sealed: Record<string, string> = {};
    for (const [name, value] of Object.entries(endpoint.headers))
      sealed[name] = await sealer.seal(value, context(endpoint, name));
    return { ...endpoint, headers: sealed };
  };
  const open = async (endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord> => {
    if (!endpoint.headers) return endpoint;
    const opened: Record<string, string> = {};
    for (const [name, value] of Object.entries(endpoint.headers))
      opened[name] = await openStored(
        sealer,
        value,
        context(endpoint, name),
        `The header ${name} of webhook endpoint ${endpoint.id}`,
      );
    return { ...endpoint, headers: opened };
  };
  const openOrNull = async (endpoint: WebhookEndpointRecord | null) => endpoint && open(endpoint);
  return {
    get: async (id) => openOrNull(await store.get(id)),
    async list(range) {
      const page = await store.list(range);
      return { ...page, items: await Promise.all(page.items.map(open)) };
    },
    listEnabled: async () => Promise.all((await store.listEnabled()).map(open)),
    insert: async (endpoint) => store.insert(await seal(endpoint)),
    update: async (endpoint, expectedVersion) => store.update(await seal(endpoint), expectedVersion),
    delete: (id) => store.delete(id),
    recordOutcome: async (id, outcome) => openOrNull(await store.recordOutcome(id, outcome)),
    disable: (id, reason, at) => store.disable(id, reason, at),
  };
}
