/** An endpoint's delivery policy over GraphQL: the same fields, bounds and masking as REST. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASKED_HEADER_VALUE } from '../../src/webhooks/index.js';
import { startServer, type TestServer } from './helpers.js';

describe("an endpoint's delivery policy over GraphQL", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } } });
  });
  afterAll(() => server.close());

  const fields = 'id payload retrySchedule maxPerSecond headers { name value }';

  it('sets the policy on create, changes it on update, and never shows a credential', async () => {
    const created = await server.gql(
      `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { ${fields} } } }`,
      {
        input: {
          url: 'http://127.0.0.1:9/hooks',
          eventTypes: ['order.*'],
          payload: 'thin',
          retrySchedule: [100, 200],
          maxPerSecond: 2.5,
          headers: [
            { name: 'X-Tenant', value: 'acme' },
            { name: 'authorization', value: 'Bearer s3cr3t' },
          ],
        },
      },
    );
    const endpoint = created.body.data.createWebhookEndpoint.endpoint;
    expect(endpoint).toMatchObject({
      payload: 'thin',
      retrySchedule: [100, 200],
      maxPerSecond: 2.5,
      headers: [
        { name: 'x-tenant', value: 'acme' },
        { name: 'authorization', value: MASKED_HEADER_VALUE },
      ],
    });
    expect(JSON.stringify(created.body)).not.toContain('s3cr3t');

    const updated = await server.gql(
      `mutation ($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { ${fields} } }`,
      {
        id: endpoint.id,
        input: {
          payload: 'full',
          retrySchedule: null,
          maxPerSecond: null,
          headers: [
            { name: 'x-tenant', value: null },
            { name: 'authorization', value: MASKED_HEADER_VALUE },
          ],
        },
      },
    );
    expect(updated.body.data.updateWebhookEndpoint).toEqual({
      id: endpoint.id,
      payload: 'full',
      retrySchedule: null,
      maxPerSecond: null,
      headers: [{ name: 'authorization', value: MASKED_HEADER_VALUE }],
    });
  });

  it('refuses what REST refuses, with the same code and field', async () => {
    const answer = await server.gql(
      `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`,
      {
        input: {
          url: 'http://127.0.0.1:9/hooks',
          eventTypes: ['*'],
          headers: [{ name: 'x-signature', value: 'sha256=0' }],
          retrySchedule: [50],
        },
      },
    );
    const [error] = answer.body.errors;
    expect(error.extensions.code).toBe('validation_failed');
    const refused = (error.extensions.details as { field: string }[]).map((d) => d.field).sort();
    expect(refused).toEqual(['headers.x-signature', 'retrySchedule.0']);
  });
});
