import type { WebhookStores } from '../../core/storage/index.js';
import { sealingEndpointHeaders } from '../../core/storage/sealed-endpoint-headers.js';
import { sealingSigningKeys } from '../../core/storage/sealed-signing-keys.js';
import type { Sealer } from '../../internal/sealer.js';
import type { Database } from './database.js';
import { postgresWebhookAttemptStore } from './webhook-attempts.js';
import { postgresWebhookDeliveryStore } from './webhook-deliveries.js';
import { postgresWebhookEndpointStore } from './webhook-endpoints.js';
import { postgresSigningKeyStore } from './webhook-signing-keys.js';

export function postgresWebhookStores(db: Database, sealer?: Sealer): WebhookStores {
  return {
    endpoints: sealingEndpointHeaders(postgresWebhookEndpointStore(db), sealer),
    deliveries: postgresWebhookDeliveryStore(db),
    attempts: postgresWebhookAttemptStore(db),
    signingKeys: sealingSigningKeys(postgresSigningKeyStore(db), sealer),
  };
}
