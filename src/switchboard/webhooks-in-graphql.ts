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
    "hmac (the endpoint's secret) or ed25519 (Standard Webhooks v1a with the deployment's keys, published at /.well-known/webhook-keys)"
    signature: String!
    "The API version whose record shapes deliveries carry (data as GET /api/v{apiVersion}/… answers it)."
    apiVersion: Int!
    enabled: Boolean!
    "manual, gone (the receiver answered 410) or failing"
    disabledReason: String
    failingSince: DateTime
    "Days its finished deliveries stay in the delivery log; null: the storage's retention (30 days unless configured)."
    logRetentionDays: Int
    "Delays in ms before each retry, replacing the default schedule; null: the default (8 attempts over about 27.5 hours)."
    retrySchedule: [Int!]
    "Request headers sent on every delivery; values of credential-like names (authorization, cookie, x-api-key, …) masked as ••••••••."
    headers: [WebhookHeader!]!
    "Deliveries sent per second at most; null: the dispatcher-wide pace, if any."
    maxPerSecond: Float
    "full (the event with its data) or thin (only event, event_id, subject and sequence)."
    payload: String!
    "subject (each subject's events arrive in sequence order, later ones waiting while an earlier one is retried) or none."
    ordering: String!
    "The subjects held behind a failing delivery (ordering subject only), longest held first."
    heldSubjects: [WebhookHeldSubject!]!
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

  "One of the deployment's Ed25519 keys that sign ed25519 endpoints' deliveries (never its private half)."
  type WebhookSigningKey {
    "The key id, the kid of /.well-known/webhook-keys"
    kid: ID!
    algorithm: String!
    "The JWK x: the public key, base64url"
    publicKey: String!
    "True for the key made last; the others sign beside it until they expire."
    active: Boolean!
    createdAt: DateTime!
    expiresAt: DateTime
  }

  "A request header an endpoint sends on every delivery."
  type WebhookHeader {
    name: String!
    "Masked (••••••••) when the name is a credential's."
    value: String!
  }

  "A request header to send on every delivery; in a change, a null value removes it, the mask •••••••• keeps it."
  input WebhookHeaderInput {
    name: String!
    value: String
  }

  "An endpoint with its new signing secret: shown this once, never readable again."
  type WebhookEndpointWithSecret {
    endpoint: WebhookEndpoint!
    secret: String!
  }

  "A subject of an ordered endpoint whose later events wait behind a delivery that failed and waits for its retry."
  type WebhookHeldSubject {
    subject: ID!
    "The subject's first pending delivery: what the others wait for. Skip it to let them go."
    blocking: WebhookDelivery!
    "How many later deliveries of the subject wait behind it."
    waiting: Int!
    "When the oldest of those was made."
    since: DateTime!
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
    "The client the event is about; null for events no client owns."
    owner: ID
    "When the client's deletion erased it: its body keeps ids, types and times, its attempts no response text or headers."
    erasedAt: DateTime
    "The record the event is about (a message's conversation); null for events without one."
    subject: ID
    "The event's place among its subject's events (1, 2, …)."
    sequence: Int
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
    "hmac (default) or ed25519; ed25519 needs the standard scheme (its default)."
    signature: String
    enabled: Boolean
    "The API version whose record shapes deliveries carry; default the current one, the shapes of this schema."
    apiVersion: Int
    "Days its finished deliveries stay in the delivery log (1 to 400); default the storage's retention."
    logRetentionDays: Int
    "Delays in ms before each retry (1 to 9, each 100 ms to 24 h): [100, 200] retries twice, then gives up."
    retrySchedule: [Int!]
    "Request headers sent on every delivery (not hop-by-hop nor the sender's own: content-type, user-agent, webhook-*, x-signature…)."
    headers: [WebhookHeaderInput!]
    "Deliveries sent per second at most (0.1 to 1000)."
    maxPerSecond: Float
    "full (default) or thin: only event, event_id, subject and sequence; the receiver reads the record itself."
    payload: String
    "none (default) or subject: each subject's events in sequence order."
    ordering: String
  }

  input UpdateWebhookEndpointInput {
    url: String
    eventTypes: [String!]
    description: String
    scheme: String
    "hmac (default) or ed25519; ed25519 needs the standard scheme (its default)."
    signature: String
    enabled: Boolean
    "Moves the receiver to another API version's record shapes, from the next event on."
    apiVersion: Int
    "Days its finished deliveries stay in the delivery log (1 to 400); null: back to the storage's retention."
    logRetentionDays: Int
    "Delays in ms before each retry (1 to 9, each 100 ms to 24 h); null: back to the default schedule."
    retrySchedule: [Int!]
    "Sets the headers named (a null value removes one, the mask keeps one); null removes them all."
    headers: [WebhookHeaderInput!]
    "Deliveries sent per second at most (0.1 to 1000); null: back to the dispatcher-wide pace."
    maxPerSecond: Float
    "full or thin."
    payload: String
    "none or subject."
    ordering: String
  }

  extend type Query {
    webhookEndpoints(limit: Int, offset: Int): [WebhookEndpoint!]!
    webhookEndpoint(id: ID!): WebhookEndpoint
    webhookDeliveries(endpointId: ID, status: WebhookDeliveryStatus, limit: Int, offset: Int): [WebhookDelivery!]!
    "Every event kind an endpoint can subscribe to."
    webhookEventTypes: [String!]!
    "The Ed25519 signing keys not yet expired, the active one first."
    webhookSigningKeys: [WebhookSigningKey!]!
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
    "A new Ed25519 signing key; the previous ones keep signing and stay published for overlapSeconds (default 24 h, 0 drops them)."
    rotateWebhookSigningKey(overlapSeconds: Int): [WebhookSigningKey!]!
    "Sends a finished delivery again, with a fresh retry schedule."
    resendWebhookDelivery(id: ID!): WebhookDelivery!
    "Attempts any delivery now: a finished one starts a fresh schedule, one waiting after a failure is due now."
    retryWebhookDelivery(id: ID!): WebhookDelivery!
    "Gives up on a pending delivery without sending it (dead, with a reason); an ordered endpoint's next event of its subject goes."
    skipWebhookDelivery(id: ID!): WebhookDelivery!
    "Delivers a test event to one endpoint now, like any other delivery: webhook.test, or a kind of the catalogue with its example data."
    sendWebhookTestEvent(endpointId: ID!, eventType: String): WebhookDelivery!
  }
`;

/** The fields of an endpoint an explicit null clears (back to the default), rather than leaves alone. */
const CLEARED_BY_NULL = ['logRetentionDays', 'retrySchedule', 'headers', 'maxPerSecond'] as const;

/** Headers as GraphQL sends them (a list of names and values) as the admin takes them (an object). */
function headersInput(input: Record<string, unknown>): Record<string, unknown> {
  const list = input.headers as readonly { name: string; value: string | null }[] | null | undefined;
  if (!list) return input;
  return { ...input, headers: Object.fromEntries(list.map(({ name, value }) => [name, value])) };
}

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
      headers: (endpoint: WebhookEndpoint) =>
        Object.entries(endpoint.headers ?? {}).map(([name, value]) => ({ name, value })),
      payload: (endpoint: WebhookEndpoint) => endpoint.payload ?? 'full',
      heldSubjects: (endpoint: WebhookEndpoint) => admin.listHeldSubjects(endpoint.id),
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
      webhookSigningKeys: () => admin.listSigningKeys(),
      webhookEventExample: (_, args: { type: string; apiVersion?: number | null }) =>
        JSON.stringify(admin.eventExample(args.type, args.apiVersion ?? undefined)),
    },
    Mutation: {
      createWebhookEndpoint: (_, args: { input: Record<string, unknown> }) =>
        admin.createEndpoint(headersInput(present(args.input))),
      updateWebhookEndpoint: (_, args: { id: string; input: Record<string, unknown> }) =>
        admin.updateEndpoint(args.id, {
          ...headersInput(present(args.input)),
          ...Object.fromEntries(CLEARED_BY_NULL.filter((f) => args.input[f] === null).map((f) => [f, null])),
        }),
      async deleteWebhookEndpoint(_, args: { id: string }) {
        await admin.deleteEndpoint(args.id);
        return true;
      },
      rotateWebhookSecret: (_, args: { id: string; overlapSeconds?: number | null }) =>
        admin.rotateSecret(args.id, present({ overlapSeconds: args.overlapSeconds })),
      rotateWebhookSigningKey: (_, args: { overlapSeconds?: number | null }) =>
        admin.rotateSigningKey(present({ overlapSeconds: args.overlapSeconds })),
      resendWebhookDelivery: (_, args: { id: string }) => admin.resendDelivery(args.id),
      retryWebhookDelivery: (_, args: { id: string }) => admin.retryDelivery(args.id),
      skipWebhookDelivery: (_, args: { id: string }) => admin.skipDelivery(args.id),
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
      'Query.webhookSigningKeys': READ,
      'Query.webhookEventExample': READ,
      'Mutation.createWebhookEndpoint': WRITE,
      'Mutation.updateWebhookEndpoint': WRITE,
      'Mutation.deleteWebhookEndpoint': WRITE,
      'Mutation.rotateWebhookSecret': WRITE,
      'Mutation.rotateWebhookSigningKey': WRITE,
      'Mutation.resendWebhookDelivery': WRITE,
      'Mutation.retryWebhookDelivery': WRITE,
      'Mutation.skipWebhookDelivery': WRITE,
      'Mutation.sendWebhookTestEvent': WRITE,
    },
  };
}
