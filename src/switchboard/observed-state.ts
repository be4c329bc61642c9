import type { BatchObservableResult, Meter, Observable } from '@opentelemetry/api';
import type { Logger } from '../core/runtime.js';
import type { Storage } from '../core/storage/index.js';
import type { GraphQLWebSocketServer } from '../graphql/index.js';

/** What the gauges read when a metric reader collects: the storage's queues and the open sockets. */
export interface ObservedSources {
  readonly storage: Storage;
  readonly webhooks: boolean;
  readonly graphqlWebSocket: GraphQLWebSocketServer | undefined;
  readonly logger: Logger;
}

/**
 * Gauges read at collection time, never on the request path: the outbox backlog, pending webhook
 * deliveries (a count query each on PostgreSQL, per scrape), open subscriptions. Answers a function
 * that stops observing.
 */
export function observeState(meter: Meter, sources: ObservedSources): () => void {
  const backlog = meter.createObservableGauge('switchboard.outbox.backlog', {
    description: 'Events committed and not yet relayed to webhooks and subscriptions.',
  });
  const pending = meter.createObservableGauge('switchboard.webhook.pending', {
    description: 'Webhook deliveries waiting for a successful attempt (in flight included).',
  });
  const subscriptions = meter.createObservableGauge('switchboard.graphql.subscriptions', {
    description: 'GraphQL subscriptions open over WebSocket.',
  });
  const sockets = meter.createObservableGauge('switchboard.websocket.connections', {
    description: 'GraphQL WebSockets open.',
  });
  const observed: Observable[] = [backlog, pending, subscriptions, sockets];
  const collect = async (result: BatchObservableResult): Promise<void> => {
    const { storage, graphqlWebSocket } = sources;
    try {
      result.observe(backlog, await storage.outbox.backlog());
      if (sources.webhooks) result.observe(pending, await storage.webhooks.deliveries.countPending());
    } catch (error) {
      sources.logger.log('warn', 'could not read the queue sizes for metrics', { error: String(error) });
    }
    if (graphqlWebSocket) {
      result.observe(subscriptions, graphqlWebSocket.subscriptions().subscribers);
      result.observe(sockets, graphqlWebSocket.sockets());
    }
  };
  meter.addBatchObservableCallback(collect, observed);
  return () => meter.removeBatchObservableCallback(collect, observed);
}
