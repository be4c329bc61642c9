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

  it('sends a test event, filters the log by event type, and shows health, attempts and examples', async () => {
    const { body } = await create('http://127.0.0.1:9/test', ['order.*']);
    const id = body.data.createWebhookEndpoint.endpoint.id;
    const sent = await server.gql(
      'mutation ($id: ID!) { sendWebhookTestEvent(endpointId: $id) { eventType status } }',
      { id },
    );
    expect(sent.body.data.sendWebhookTestEvent).toEqual({ eventType: 'webhook.test', status: 'PENDING' });
    const query = `query ($id: ID!) { webhookEndpoint(id: $id) {
      tests: deliveries(eventType: "webhook.test") { eventType attemptLog { requestHeaders } }
      others: deliveries(eventType: "order.paid") { id }
      health { pending delivered failed attemptsFailed successRate lastFailures { eventType } }
    } }`;
    // Nothing listens on port 9: the first attempt fails, and records the headers it sent.
    await expect
      .poll(
        async () => (await server.gql(query, { id })).body.data.webhookEndpoint.tests[0].attemptLog.length,
      )
      .toBeGreaterThan(0);
    const endpoint = (await server.gql(query, { id })).body.data.webhookEndpoint;
    expect(endpoint.others).toEqual([]);
    expect(JSON.parse(endpoint.tests[0].attemptLog[0].requestHeaders)).toHaveProperty('x-signature');
    expect(endpoint.health).toMatchObject({
      delivered: 0,
      successRate: 0,
      lastFailures: [{ eventType: 'webhook.test' }],
    });
    expect(endpoint.health.attemptsFailed).toBeGreaterThan(0);
    // Retry now: the failed test delivery is due again at once.
    const [test] = (
      await server.gql(
        `query ($id: ID!) { webhookEndpoint(id: $id) { tests: deliveries(eventType: "webhook.test") { id } } }`,
        { id },
      )
    ).body.data.webhookEndpoint.tests;
    const retried = await server.gql('mutation ($id: ID!) { retryWebhookDelivery(id: $id) { id status } }', {
      id: test.id,
    });
    expect(retried.body.data.retryWebhookDelivery).toEqual({ id: test.id, status: 'PENDING' });
    const paid = await server.gql(
      'mutation ($id: ID!) { sendWebhookTestEvent(endpointId: $id, eventType: "order.paid") { eventType } }',
      { id },
    );
    expect(paid.body.data.sendWebhookTestEvent).toEqual({ eventType: 'order.paid' });
    const example = await server.gql('{ webhookEventExample(type: "order.paid") }');
    expect(JSON.parse(example.body.data.webhookEventExample)).toMatchObject({ status: 'paid' });
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
