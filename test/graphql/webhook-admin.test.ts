import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.js';

describe('webhook management over GraphQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } } });
  });
  afterAll(() => server.close());

  const create = (url: string, eventTypes: string[], token = 'service') =>
    server.gql(
      `mutation ($input: CreateWebhookEndpointInput!) {
        createWebhookEndpoint(input: $input) { secret endpoint { id url eventTypes enabled } }
      }`,
      { input: { url, eventTypes } },
      token,
    );

  it('registers an endpoint, shows its secret once, and lists it with the event kinds to choose from', async () => {
    const { body } = await create('http://127.0.0.1:9/hooks', ['client.*']);
    const created = body.data.createWebhookEndpoint;
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.endpoint).toMatchObject({
      url: 'http://127.0.0.1:9/hooks',
      eventTypes: ['client.*'],
      enabled: true,
    });

    const listed = await server.gql('{ webhookEndpoints { id url } webhookEventTypes }');
    expect(listed.body.data.webhookEndpoints).toContainEqual({
      id: created.endpoint.id,
      url: created.endpoint.url,
    });
    expect(listed.body.data.webhookEventTypes).toEqual(
      expect.arrayContaining(['client.created', 'order.shipped']),
    );
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
  });

  it('shows the delivery each matching change creates, with its attempts', async () => {
    const { body } = await create('http://127.0.0.1:9/orders', ['client.created']);
    const id = body.data.createWebhookEndpoint.endpoint.id;
    await server.gql(
      'mutation { createClient(input: { name: "Hook Test", email: "hook@example.com" }) { id } }',
    );
    const query = `query ($id: ID!) { webhookEndpoint(id: $id) { deliveries { eventType status attemptLog { number } } } }`;
    await expect
      .poll(async () =>
        (await server.gql(query, { id })).body.data.webhookEndpoint.deliveries.map(
          (d: { eventType: string }) => d.eventType,
        ),
      )
      .toEqual(['client.created']);
  });

  it('rotates the secret, updates and deletes an endpoint', async () => {
    const { body } = await create('http://127.0.0.1:9/rotate', ['order.*']);
    const { id } = body.data.createWebhookEndpoint.endpoint;
    const rotated = await server.gql(
      'mutation ($id: ID!) { rotateWebhookSecret(id: $id, overlapSeconds: 60) { secret } }',
      { id },
    );
    expect(rotated.body.data.rotateWebhookSecret.secret).not.toBe(body.data.createWebhookEndpoint.secret);
    const updated = await server.gql(
      'mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: false }) { enabled disabledReason } }',
      { id },
    );
    expect(updated.body.data.updateWebhookEndpoint).toEqual({ enabled: false, disabledReason: 'manual' });
    await server.gql('mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id });
    expect(
      (await server.gql('query ($id: ID!) { webhookEndpoint(id: $id) { id } }', { id })).body.data,
    ).toEqual({
      webhookEndpoint: null,
    });
  });

  it('refuses an invalid endpoint with the failing fields named', async () => {
    const { body } = await create('http://127.0.0.1:9/x', ['not a pattern']);
    expect(body.errors[0].extensions.code).toBe('validation_failed');
    expect(body.errors[0].extensions.details[0].field).toBe('eventTypes.0');
  });

  it('needs admin.webhooks.write to change endpoints, and admin.webhooks.read to see them', async () => {
    const readOnly = await create('http://127.0.0.1:9/nope', ['*'], 'scopes:admin.webhooks.read');
    expect(readOnly.body.errors[0].extensions.code).toBe('forbidden');
    const crmOnly = await server.gql('{ webhookEndpoints { id } }', {}, 'scopes:crm.clients.read');
    expect(crmOnly.body.errors[0].extensions.code).toBe('forbidden');
  });
});
