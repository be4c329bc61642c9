import type { DeclaredResource } from '../core/resources/define.js';
import { type EventFeedClient, eventFeedClient } from './event-feed-client.js';
import { resourceClient } from './resource-client.js';
import { createTransport, type TransportOptions } from './transport.js';
import type { BuiltInResource, SwitchboardClient } from './types.js';

/**
 * The built-in resources' paths. The client does not load their declarations (nor zod) at run time;
 * keyed by the plurals the types read from them, so a built-in added or renamed fails to compile here.
 */
const BUILT_IN_PLURALS = Object.keys({
  clients: true,
  orders: true,
  conversations: true,
  messages: true,
  bookings: true,
} satisfies Record<keyof SwitchboardClient<BuiltInResource, number>, true>);

/** Where the interface is, how to sign in, and which version and resources it speaks. */
export interface ClientOptions<V extends number, R extends DeclaredResource> extends TransportOptions {
  /** The API version (`/api/v<version>`); the types follow it (v2 gives an order's total as money). */
  readonly version: V;
  /** Where the versions are mounted, default `/api`. */
  readonly apiPath?: string;
  /**
   * The host's own resources (their `defineResource` objects), to call them by plural with their
   * types. The built-in ones are always there.
   */
  readonly resources?: readonly R[];
}

/**
 * A client for the resource interface, typed from the same resource declarations that generate the
 * OpenAPI document: no code generation. Creates carry an `Idempotency-Key`; 429 and 503 are retried
 * after the `Retry-After` the server sends; lists page with `all()` and `pages()`.
 *
 * @example
 * const api = createSwitchboardClient({ baseUrl: 'https://shop.example', version: 2, token: apiKey });
 * const ada = await api.clients.create({ name: 'Ada', email: 'ada@example.com' });
 * await api.orders.create({ clientId: ada.id, total: { amount: '12.50', currency: 'EUR' } });
 * for await (const order of api.orders.all({ clientId: ada.id, status: 'pending' })) console.log(order.id);
 * for await (const event of api.events.all({ types: ['order.*'] })) console.log(event.event, event.cursor);
 */
export function createSwitchboardClient<V extends number, R extends DeclaredResource = never>(
  options: ClientOptions<V, R>,
): SwitchboardClient<BuiltInResource | R, V> & { readonly events: EventFeedClient } {
  const apiPath = (options.apiPath ?? '/api').replace(/\/+$/, '');
  const send = createTransport(options, `${apiPath}/v${options.version}`);
  const plurals = [...BUILT_IN_PLURALS, ...(options.resources ?? []).map((resource) => resource.plural)];
  // `/events` is the event feed's path on the server too, so no resource can be served there.
  if (plurals.includes('events'))
    throw new TypeError('A resource whose plural is "events" would hide the event feed: name it otherwise.');
  return {
    ...Object.fromEntries(plurals.map((plural) => [plural, resourceClient(send, plural)])),
    events: eventFeedClient(send),
  } as SwitchboardClient<BuiltInResource | R, V> & { readonly events: EventFeedClient };
}
