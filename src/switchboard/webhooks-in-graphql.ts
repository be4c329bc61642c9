import { SwitchboardError } from '../core/errors.js';
import type { WebhookDeliveryStatus } from '../core/storage/webhooks.js';
import type { GraphQLContext } from '../graphql/context.js';
import { type GraphQLResolvers, listRange, type Paging } from '../graphql/resolvers.js';
import type { CreateSchemaOptions } from '../graphql/schema.js';
import type { WebhookAdmin, WebhookDelivery, WebhookEndpoint } from '../webhooks/admin-service.js';
import { WEBHOOK_READ_SCOPE as READ, WEBHOOK_WRITE_SCOPE as WRITE } from '../webhooks/scopes.js';

const typeDefs = /* GraphQL */ `
  "Whether a delivery still has attempts ahead, arrived, or was given up on."
  enum WebhookDeliveryStatus {
    PENDING
    SUCCEEDED
    DEAD
  }

  "A receiver URL that is sent the events it subscribed to, signed with its secret."
  type WebhookEndpoint {
    id: ID!
    url: String!
    description: String!
    "Event kinds, with wildcards: order.*, *"
    eventTypes: [String!]!
    "switchboard (X-Signature) or standard (Standard Webhooks headers)"
    scheme: String!
    "The API version whose record shapes deliveries carry (data as GET /api/v{apiVersion}/… answers it)."
    apiVersion: Int!
    enabled: Boolean!
    "manual, gone (the receiver answered 410) or failing"
    disabledReason: String
    failingSince: DateTime
    createdAt: DateTime!
    updatedAt: DateTime!
    "Deliveries to this endpoint, newest first (optionally of one event type)."
    deliveries(status: WebhookDeliveryStatus, eventType: String, limit: Int, offset: Int): [WebhookDelivery!]!
    "How the endpoint fared over the last 24 hours."
    health: WebhookEndpointHealth!
  }

  "Counts of an endpoint's attempts and deliveries of the last 24 hours, and its latest failed attempts."
  type WebhookEndpointHealth {
    since: DateTime!
    "Deliveries created since since that succeeded."
    delivered: Int!
    "Deliveries created since since that are dead."
    failed: Int!
    "Waiting to be sent or retried now."
    pending: Int!
    "Attempts started since since that succeeded."
    attemptsSucceeded: Int!
    "Attempts started since since that failed, retried or not."
    attemptsFailed: Int!
    "attemptsSucceeded / (attemptsSucceeded + attemptsFailed), from 0 to 1; null when no attempt was made."
    successRate: Float
    lastFailures: [WebhookFailure!]!
    disabledReason: String
  }

  "A failed attempt, newest first."
  type WebhookFailure {
    deliveryId: ID!
    eventType: String!
    startedAt: DateTime!
    statusCode: Int
    error: String
    responseExcerpt: String
  }

  "An endpoint with its new signing secret: shown this once, never readable again."
  type WebhookEndpointWithSecret {
    endpoint: WebhookEndpoint!
    secret: String!
  }

  "One event on its way to one endpoint, with the same event_id and body on every attempt."
  type WebhookDelivery {
    id: ID!
    endpointId: ID!
    eventId: ID!
    eventType: String!
    status: WebhookDeliveryStatus!
    attempts: Int!
    nextAttemptAt: DateTime
    lastStatusCode: Int
    lastError: String
    createdAt: DateTime!
    "Every attempt: when, how long, the answer or the error."
    attemptLog: [WebhookAttempt!]!
  }

  type WebhookAttempt {
    number: Int!
    startedAt: DateTime!
    durationMs: Int!
    statusCode: Int
    responseExcerpt: String
    error: String
    succeeded: Boolean!
    "The headers sent on this attempt (the body is the delivery's, the same on every attempt), as a JSON object."
    requestHeaders: String
  }

  input CreateWebhookEndpointInput {
    url: String!
    eventTypes: [String!]!
    description: String
    scheme: String
    enabled: Boolean
    "The API version whose record shapes deliveries carry; default the current one, the shapes of this schema."
    apiVersion: Int
  }

  input UpdateWebhookEndpointInput {
    url: String
    eventTypes: [String!]
    description: String
    scheme: String
    enabled: Boolean
    "Moves the receiver to another API version's record shapes, from the next event on."
    apiVersion: Int
  }

  extend type Query {
    webhookEndpoints(limit: Int, offset: Int): [WebhookEndpoint!]!
    webhookEndpoint(id: ID!): WebhookEndpoint
    webhookDeliveries(endpointId: ID, status: WebhookDeliveryStatus, limit: Int, offset: Int): [WebhookDelivery!]!
    "Every event kind an endpoint can subscribe to."
    webhookEventTypes: [String!]!
    "An example of an event type's data, as a JSON object, its records in an API version's shapes (default the current one)."
    webhookEventExample(type: String!, apiVersion: Int): String!
  }

  extend type Mutation {
    "Registers a receiver; the answer carries its signing secret, shown this once."
    createWebhookEndpoint(input: CreateWebhookEndpointInput!): WebhookEndpointWithSecret!
    updateWebhookEndpoint(id: ID!, input: UpdateWebhookEndpointInput!): WebhookEndpoint!
    deleteWebhookEndpoint(id: ID!): Boolean!
    "A new secret; the previous one keeps signing alongside it for overlapSeconds (default 24 h)."
    rotateWebhookSecret(id: ID!, overlapSeconds: Int): WebhookEndpointWithSecret!
    "Sends a finished delivery again, with a fresh retry schedule."
    resendWebhookDelivery(id: ID!): WebhookDelivery!
    "Attempts any delivery now: a finished one starts a fresh schedule, one waiting after a failure is due now."
    retryWebhookDelivery(id: ID!): WebhookDelivery!
    "Delivers a test event to one endpoint now, like any other delivery: webhook.test, or a kind of the catalogue with its example data."
    sendWebhookTestEvent(endpointId: ID!, eventType: String): WebhookDelivery!
  }
`;

/** GraphQL input objects carry explicit nulls for fields left empty; the admin's schemas want them absent. */
function present(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== null && value !== undefined),
  );
}

function deliveries(
  admin: WebhookAdmin,
  filter: { endpointId?: string | null; status?: WebhookDeliveryStatus | null; eventType?: string | null },
  args: Paging,
  ctx: GraphQLContext,
): Promise<WebhookDelivery[]> {
  const range = listRange(args, ctx);
  return admin.listDeliveries(present(filter), range).then((page) => [...page.items]);
}

function resolvers(admin: WebhookAdmin): GraphQLResolvers {
  return {
    WebhookDeliveryStatus: { PENDING: 'pending', SUCCEEDED: 'succeeded', DEAD: 'dead' },
    WebhookEndpoint: {
      deliveries: (
        endpoint: WebhookEndpoint,
        args: Paging & { status?: WebhookDeliveryStatus; eventType?: string | null },
        ctx,
      ) =>
        deliveries(
          admin,
          { endpointId: endpoint.id, status: args.status, eventType: args.eventType },
          args,
          ctx,
        ),
      health: (endpoint: WebhookEndpoint) => admin.endpointHealth(endpoint.id),
    },
    WebhookAttempt: {
      requestHeaders: (attempt: { requestHeaders: Record<string, string> | null }) =>
        attempt.requestHeaders ? JSON.stringify(attempt.requestHeaders) : null,
    },
    WebhookDelivery: {
      attemptLog: (delivery: WebhookDelivery) => admin.listAttempts(delivery.id),
    },
    Query: {
      webhookEndpoints: async (_, args: Paging, ctx) => [
        ...(await admin.listEndpoints(listRange(args, ctx))).items,
      ],
      async webhookEndpoint(_, args: { id: string }) {
        try {
          return await admin.getEndpoint(args.id);
        } catch (error) {
          if (error instanceof SwitchboardError && error.code === 'not_found') return null;
          throw error;
        }
      },
      webhookDeliveries: (
        _,
        args: Paging & { endpointId?: string | null; status?: WebhookDeliveryStatus | null },
        ctx,
      ) => deliveries(admin, { endpointId: args.endpointId, status: args.status }, args, ctx),
      webhookEventTypes: () => admin.eventTypes(),
      webhookEventExample: (_, args: { type: string; apiVersion?: number | null }) =>
        JSON.stringify(admin.eventExample(args.type, args.apiVersion ?? undefined)),
    },
    Mutation: {
      createWebhookEndpoint: (_, args: { input: Record<string, unknown> }) =>
        admin.createEndpoint(present(args.input)),
      updateWebhookEndpoint: (_, args: { id: string; input: Record<string, unknown> }) =>
        admin.updateEndpoint(args.id, present(args.input)),
      async deleteWebhookEndpoint(_, args: { id: string }) {
        await admin.deleteEndpoint(args.id);
        return true;
      },
      rotateWebhookSecret: (_, args: { id: string; overlapSeconds?: number | null }) =>
        admin.rotateSecret(args.id, present({ overlapSeconds: args.overlapSeconds })),
      resendWebhookDelivery: (_, args: { id: string }) => admin.resendDelivery(args.id),
      retryWebhookDelivery: (_, args: { id: string }) => admin.retryDelivery(args.id),
      sendWebhookTestEvent: (_, args: { endpointId: string; eventType?: string | null }) =>
        admin.sendTestEvent(args.endpointId, present({ eventType: args.eventType })),
    },
  };
}

/**
 * Webhook management over GraphQL, as a schema extension: the same operations as the REST routes under
 * `/api/v1/webhook-endpoints`, behind the `admin.webhooks.read` / `admin.webhooks.write` scopes.
 * `createSwitchboard` adds it when both blocks are on.
 *
 * @example
 * const schema = createSchema(webhookAdminSchema(webhooks.admin));
 */
export function webhookAdminSchema(admin: WebhookAdmin): CreateSchemaOptions {
  return {
    typeDefs,
    resolvers: resolvers(admin),
    scopes: {
      'Query.webhookEndpoints': READ,
      'Query.webhookEndpoint': READ,
      'Query.webhookDeliveries': READ,
      'Query.webhookEventTypes': READ,
      'Query.webhookEventExample': READ,
      'Mutation.createWebhookEndpoint': WRITE,
      'Mutation.updateWebhookEndpoint': WRITE,
      'Mutation.deleteWebhookEndpoint': WRITE,
      'Mutation.rotateWebhookSecret': WRITE,
      'Mutation.resendWebhookDelivery': WRITE,
      'Mutation.retryWebhookDelivery': WRITE,
      'Mutation.sendWebhookTestEvent': WRITE,
    },
  };
}
