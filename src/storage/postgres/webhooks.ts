import type { WebhookStores } from '../../core/storage/index.js';
import type { Database } from './database.js';
import { postgresWebhookAttemptStore } from './webhook-attempts.js';
import { postgresWebhookDeliveryStore } from './webhook-deliveries.js';
import { postgresWebhookEndpointStore } from './webhook-endpoints.js';

export function postgresWebhookStores(db: Database): WebhookStores {
  return {
    endpoints: postgresWebhookEndpointStore(db),
    deliveries: postgresWebhookDeliveryStore(db),
    attempts: postgresWebhookAttemptStore(db),
  };
}
