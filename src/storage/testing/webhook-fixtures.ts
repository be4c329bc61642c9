import type {
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from '../../core/storage/index.js';
import { ms } from './fixtures.js';

let counter = 0;

/** An enabled endpoint subscribed to `order.*`, with one secret; every call a new id. */
export function anEndpoint(overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  const n = ++counter;
  return {
    id: `whe_contract_${n}`,
    url: `https://hooks${n}.example.com/receive`,
    description: `Endpoint ${n}`,
    eventTypes: ['order.*'],
    secrets: [{ secret: `whsec_secret${n}`, createdAt: ms(n), expiresAt: null }],
    scheme: 'switchboard',
    signature: 'hmac',
    apiVersion: 1,
    enabled: true,
    disabledReason: null,
    failingSince: null,
    logRetentionDays: null,
    ordering: 'none',
    createdAt: ms(n),
    updatedAt: ms(n),
    version: 1,
    ...overrides,
  };
}

/** A pending delivery, due at `ms(0)` unless told otherwise. */
export function aDelivery(
  endpointId: string,
  overrides: Partial<WebhookDeliveryRecord> = {},
): WebhookDeliveryRecord {
  const n = ++counter;
  return {
    id: `whd_contract_${n}`,
    endpointId,
    eventId: `evt_contract_d${n}`,
    eventType: 'order.created',
    payload: `{"event":"order.created","n":${n}}`,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: ms(0),
    leasedBy: null,
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: ms(n),
    updatedAt: ms(n),
    traceparent: null,
    owner: null,
    erasedAt: null,
    subject: null,
    sequence: null,
    heldAnnouncedAt: null,
    ...overrides,
  };
}

/** A failed first attempt at the delivery, started at `ms(0)`, with the headers it sent. */
export function anAttempt(
  delivery: Pick<WebhookDeliveryRecord, 'id' | 'endpointId' | 'eventId'>,
  overrides: Partial<WebhookAttemptRecord> = {},
): WebhookAttemptRecord {
  return {
    id: `wha_contract_${++counter}`,
    deliveryId: delivery.id,
    endpointId: delivery.endpointId,
    number: 1,
    startedAt: ms(0),
    durationMs: 30,
    statusCode: 503,
    responseExcerpt: 'busy',
    error: null,
    succeeded: false,
    requestHeaders: {
      'content-type': 'application/json',
      'x-event-id': delivery.eventId,
      'x-timestamp': '1767225600',
      'x-signature': `sha256=${'5d41'.repeat(16)}`,
      'user-agent': 'switchboard-webhooks/1',
    },
    responseHeaders: { 'content-type': 'text/plain', 'retry-after': '30' },
    ...overrides,
  };
}
