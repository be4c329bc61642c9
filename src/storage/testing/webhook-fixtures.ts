import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../core/storage/index.js';
import { at } from './fixtures.js';

let counter = 0;

export function anEndpoint(overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  const n = ++counter;
  return {
    id: `whe_contract_${n}`,
    url: `https://hooks${n}.example.com/receive`,
    description: `Endpoint ${n}`,
    eventTypes: ['order.*'],
    secrets: [{ secret: `whsec_secret${n}`, createdAt: at(n), expiresAt: null }],
    scheme: 'switchboard',
    enabled: true,
    disabledReason: null,
    failingSince: null,
    createdAt: at(n),
    updatedAt: at(n),
    version: 1,
    ...overrides,
  };
}

/** A pending delivery, due at `at(0)` unless told otherwise. */
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
    nextAttemptAt: at(0),
    leasedBy: null,
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: at(n),
    updatedAt: at(n),
    ...overrides,
  };
}
