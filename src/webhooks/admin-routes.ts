import { z } from 'zod';
import { SwitchboardError } from '../core/errors.js';
import { ifMatch } from '../http/conditional.js';
import { pageQuery, paginated, rangeOf } from '../http/pagination.js';
import { created, json, noContent } from '../http/responses.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import { ProblemSchema, pageOf } from '../http/schemas.js';
import {
  EndpointCreateInput,
  EndpointPatchInput,
  ResendRangeInput,
  RotateSecretInput,
} from './admin-schemas.js';
import type { WebhookAdmin } from './admin-service.js';
import {
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookEndpointHealthSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
  WebhookEventTypesSchema,
  WebhookHeldSubjectSchema,
} from './admin-wire.js';
import { WEBHOOK_READ_SCOPE as READ, WEBHOOK_WRITE_SCOPE as WRITE } from './scopes.js';
import { signingKeyAdminRoutes } from './signing-key-routes.js';

const tags = ['Webhooks'];
const problem = (description: string) => ({ description, schema: ProblemSchema, name: 'Problem' });
const endpointParams = z.object({
  id: z.string().min(1).meta({ description: 'Endpoint id', example: 'whe_1' }),
});
const deliveryParams = endpointParams.extend({
  deliveryId: z.string().min(1).meta({ description: 'Delivery id' }),
});
const endpoint = { description: 'The endpoint', schema: WebhookEndpointSchema, name: 'WebhookEndpoint' };
const withSecret = {
  description: 'The endpoint and its new secret, shown this once',
  schema: WebhookEndpointWithSecretSchema,
  name: 'WebhookEndpointWithSecret',
};
const requeued = {
  description: 'Queued again',
  schema: z.object({ requeued: z.number().int() }),
  name: 'Requeued',
};

/**
 * The admin routes of `/webhook-endpoints` (relative to the REST base path), as REST route
 * definitions: serve them with {@link createWebhookAdminHandler}, or pass them to the REST handler's
 * `routes` so they appear in its OpenAPI document.
 */
export function webhookAdminRoutes(admin: WebhookAdmin): AnyRoute[] {
  const deliveryOf = async (params: { id: string; deliveryId: string }) => {
    const delivery = await admin.getDelivery(params.deliveryId);
    if (delivery.endpointId !== params.id) {
      throw new SwitchboardError('not_found', `No webhook delivery with id "${params.deliveryId}".`);
    }
    return delivery;
  };
  const versionOf = (id: string) => async () =>
    (await admin.getEndpoint(id).catch(() => null))?.version ?? null;
  return [
    defineRoute({
      method: 'GET',
      path: '/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints',
      tags,
      scope: READ,
      query: pageQuery(),
      responses: {
        200: {
          description: 'A page of endpoints',
          schema: pageOf(WebhookEndpointSchema),
          name: 'WebhookEndpointPage',
        },
      },
      handle: async ({ query, url }) => paginated(await admin.listEndpoints(rangeOf(query)), query, url),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description:
        'Answers the signing secret once; store it in the receiver. Only https URLs are accepted. The endpoint is pinned to the API version it is registered on (`apiVersion`, unless the body names another): its deliveries carry records as that version’s GET answers them. Its delivery policy is optional: `payload` (`thin`: ids only), `retrySchedule`, `maxPerSecond` and `headers`.',
      tags,
      scope: WRITE,
      body: { schema: EndpointCreateInput, name: 'WebhookEndpointCreate' },
      responses: { 201: withSecret, 422: problem('A field is not valid') },
      async handle({ body, basePath, apiVersion }) {
        // Pinned to the version it is registered on, unless the body names another.
        const result = await admin.createEndpoint({ apiVersion, ...body });
        const location = `${basePath}/webhook-endpoints/${result.endpoint.id}`;
        return created({ ...result.endpoint, secret: result.secret }, location, {
          version: result.endpoint.version,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-endpoints/{id}',
      operationId: 'getWebhookEndpoint',
      summary: 'Read a webhook endpoint',
      tags,
      scope: READ,
      params: endpointParams,
      responses: { 200: endpoint, 404: problem('No such endpoint') },
      async handle({ params }) {
        const found = await admin.getEndpoint(params.id);
        return json(found, { version: found.version });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/webhook-endpoints/{id}',
      operationId: 'updateWebhookEndpoint',
      summary: 'Change a webhook endpoint',
      description:
        'Only the fields sent change. `enabled: true` re-enables an endpoint that was disabled and clears its failure record. `apiVersion` moves a receiver to another version’s record shapes, from the next event on (deliveries already made keep their body). `null` puts `retrySchedule`, `maxPerSecond` or `headers` back to the default; `headers` is merged (a name set, a null one removed, the mask `••••••••` keeping the value). Enabling or disabling an endpoint is announced (`webhook_endpoint.enabled`, `webhook_endpoint.disabled`).',
      tags,
      scope: WRITE,
      params: endpointParams,
      body: {
        schema: EndpointPatchInput,
        name: 'WebhookEndpointPatch',
        contentTypes: ['application/merge-patch+json', 'application/json'],
      },
      responses: {
        200: endpoint,
        404: problem('No such endpoint'),
        412: problem('If-Match is stale'),
        422: problem('A field is not valid'),
      },
      async handle({ params, body, request }) {
        const updated = await admin.updateEndpoint(
          params.id,
          body,
          await ifMatch(request, versionOf(params.id)),
        );
        return json(updated, { version: updated.version });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/webhook-endpoints/{id}',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Remove a webhook endpoint',
      description: 'Its deliveries and their attempts go with it.',
      tags,
      scope: WRITE,
      params: endpointParams,
      responses: { 204: { description: 'Deleted' }, 404: problem('No such endpoint') },
      async handle({ params }) {
        await admin.deleteEndpoint(params.id);
        return noContent();
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-endpoints/{id}/secrets',
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description:
        'Makes a new secret and answers it once. The previous one keeps signing alongside it for `overlapSeconds` (default 24 h), so receivers can switch without downtime. A `webhook_endpoint.secret_rotated` event (never the secret) says so.',
      tags,
      scope: WRITE,
      params: endpointParams,
      body: { schema: RotateSecretInput, name: 'WebhookSecretRotation' },
      responses: { 201: withSecret, 404: problem('No such endpoint') },
      async handle({ params, body, basePath }) {
        const result = await admin.rotateSecret(params.id, body);
        return created(
          { ...result.endpoint, secret: result.secret },
          `${basePath}/webhook-endpoints/${params.id}`,
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-endpoints/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'List deliveries of an endpoint',
      description:
        'Newest first; `status=dead` is the dead letter, `event_type` one kind of event, `event_id` one event.',
      tags,
      scope: READ,
      params: endpointParams,
      query: pageQuery().extend({
        status: z.enum(['pending', 'succeeded', 'dead']).optional(),
        event_type: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .meta({ description: 'Exactly this event type (no wildcards)', example: 'order.paid' }),
        event_id: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .meta({ description: 'The deliveries of this event', example: 'evt_01J9ZKQ8V2' }),
        from: z.iso.datetime({ offset: true }).optional().meta({ description: 'Created at or after' }),
        to: z.iso.datetime({ offset: true }).optional().meta({ description: 'Created before' }),
      }),
      responses: {
        200: {
          description: 'A page of deliveries',
          schema: pageOf(WebhookDeliverySchema),
          name: 'WebhookDeliveryPage',
        },
        404: problem('No such endpoint'),
      },
      async handle({ params, query, url }) {
        const filter = {
          endpointId: params.id,
          status: query.status,
          eventType: query.event_type,
          eventId: query.event_id,
          createdFrom: query.from === undefined ? undefined : Date.parse(query.from),
          createdBefore: query.to === undefined ? undefined : Date.parse(query.to),
        };
        return paginated(await admin.listDeliveries(filter, rangeOf(query)), query, url);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-endpoints/{id}/deliveries/{deliveryId}',
      operationId: 'getWebhookDelivery',
      summary: 'Read a delivery',
      tags,
      scope: READ,
      params: deliveryParams,
      responses: {
        200: { description: 'The delivery', schema: WebhookDeliverySchema, name: 'WebhookDelivery' },
        404: problem('No such delivery'),
      },
      handle: async ({ params }) => json(await deliveryOf(params)),
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-endpoints/{id}/deliveries/{deliveryId}/attempts',
      operationId: 'listWebhookAttempts',
      summary: 'List the attempts of a delivery',
      description:
        'Oldest first: time, status code, latency, response excerpt, error, and the headers sent (the body sent is the delivery’s `payload`).',
      tags,
      scope: READ,
      params: deliveryParams,
      responses: {
        200: {
          description: 'The attempts',
          schema: z.object({ items: z.array(WebhookAttemptSchema) }),
          name: 'WebhookAttemptList',
        },
        404: problem('No such delivery'),
      },
      async handle({ params }) {
        await deliveryOf(params);
        return json({ items: await admin.listAttempts(params.deliveryId) });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-endpoints/{id}/deliveries/{deliveryId}/redeliveries',
      operationId: 'resendWebhookDelivery',
      summary: 'Send a delivery again',
      description: 'For a succeeded or dead delivery: a fresh schedule starts now.',
      tags,
      scope: WRITE,
      params: deliveryParams,
      responses: {
        202: { description: 'Queued', schema: WebhookDeliverySchema, name: 'WebhookDelivery' },
        404: problem('No such delivery'),
        409: problem('Still being attempted'),
      },
      async handle({ params }) {
        await deliveryOf(params);
        return json(await admin.resendDelivery(params.deliveryId), { status: 202 });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-endpoints/{id}/deliveries/{deliveryId}/retries',
      operationId: 'retryWebhookDelivery',
      summary: 'Attempt a delivery now',
      description:
        'For any delivery: a succeeded or dead one starts a fresh schedule now (as a redelivery); a pending ' +
        'one waiting after a failed attempt is due now, its schedule kept. The dispatcher is woken, so the ' +
        'attempt is made within moments. 409 while an attempt is in flight.',
      tags,
      scope: WRITE,
      params: deliveryParams,
      responses: {
        202: { description: 'Due now', schema: WebhookDeliverySchema, name: 'WebhookDelivery' },
        404: problem('No such delivery'),
        409: problem('Being attempted right now'),
      },
      async handle({ params }) {
        await deliveryOf(params);
        return json(await admin.retryDelivery(params.deliveryId), { status: 202 });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-endpoints/{id}/deliveries/{deliveryId}/skips',
      operationId: 'skipWebhookDelivery',
      summary: 'Skip a pending delivery',
      description:
        'Gives up on a pending delivery without sending it: it becomes dead with a reason saying it was ' +
        'skipped, and on an endpoint ordered by subject the next event of its subject goes at once (see ' +
        '`held-subjects`). An attempt in flight records nothing. 409 when the delivery is not pending.',
      tags,
      scope: WRITE,
      params: deliveryParams,
      responses: {
        200: { description: 'Skipped (dead)', schema: WebhookDeliverySchema, name: 'WebhookDelivery' },
        404: problem('No such delivery'),
        409: problem('Not pending'),
      },
      async handle({ params }) {
        await deliveryOf(params);
        return json(await admin.skipDelivery(params.deliveryId));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-endpoints/{id}/held-subjects',
      operationId: 'listWebhookHeldSubjects',
      summary: 'List the subjects an ordered endpoint holds',
      description:
        'For an endpoint with `ordering: subject`: each subject whose first pending delivery failed and ' +
        'waits for its retry while later events of the subject wait behind it, longest held first (at ' +
        'most 100), with the blocking delivery, how many wait and since when. Skip the blocking delivery ' +
        'to let the others go. Empty for an unordered endpoint.',
      tags,
      scope: READ,
      params: endpointParams,
      responses: {
        200: {
          description: 'The held subjects',
          schema: z.object({ items: z.array(WebhookHeldSubjectSchema) }),
          name: 'WebhookHeldSubjectList',
        },
        404: problem('No such endpoint'),
      },
      handle: async ({ params }) => json({ items: await admin.listHeldSubjects(params.id) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-endpoints/{id}/redeliveries',
      operationId: 'resendWebhookDeliveries',
      summary: 'Send the deliveries of a time range again',
      description:
        'Every `dead` (or, with `status`, `succeeded`) delivery created in [`from`, `to`); `status=failed` ' +
        'takes dead ones and those waiting for a retry after a failed attempt (due now). Without `to`, ' +
        'every one created since `from`. `from` must be earlier than `to`: an empty or reversed range is ' +
        'refused with 422.',
      tags,
      scope: WRITE,
      params: endpointParams,
      body: { schema: ResendRangeInput.omit({ endpointId: true }), name: 'WebhookRedeliveryRange' },
      responses: { 202: requeued, 404: problem('No such endpoint'), 422: problem('A field is not valid') },
      handle: async ({ params, body }) =>
        json(await admin.resendDeliveries({ ...body, endpointId: params.id }), { status: 202 }),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-endpoints/{id}/test-events',
      operationId: 'sendWebhookTestEvent',
      summary: 'Send a test event',
      description:
        'Queues a `webhook.test` event for this endpoint alone, due now, and sent like every delivery: ' +
        'signed, retried, in the log. Its `data` says it is a test and names the endpoint. With ' +
        '`event_type`, an event of that kind of the catalogue instead, carrying its example `data`.',
      tags,
      scope: WRITE,
      params: endpointParams,
      query: z.object({
        event_type: z.string().min(1).max(200).optional().meta({
          description: 'A kind of the event catalogue (default webhook.test)',
          example: 'order.paid',
        }),
      }),
      responses: {
        202: { description: 'Queued', schema: WebhookDeliverySchema, name: 'WebhookDelivery' },
        404: problem('No such endpoint'),
        409: problem('The endpoint is disabled'),
        422: problem('The event type is not in the catalogue'),
      },
      async handle({ params, query, basePath }) {
        const input = query.event_type === undefined ? {} : { eventType: query.event_type };
        const delivery = await admin.sendTestEvent(params.id, input);
        const location = `${basePath}/webhook-endpoints/${params.id}/deliveries/${delivery.id}`;
        return json(delivery, { status: 202, headers: { location } });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-endpoints/{id}/health',
      operationId: 'getWebhookEndpointHealth',
      summary: 'How an endpoint is doing',
      description:
        'Attempts of the last 24 hours that succeeded and failed (per hour too) and their success rate, ' +
        'the latest attempt, deliveries created in that time that succeeded and that are dead, deliveries ' +
        'waiting now, the latest 5 failed attempts, and why the endpoint is disabled.',
      tags,
      scope: READ,
      params: endpointParams,
      responses: {
        200: {
          description: 'Its health',
          schema: WebhookEndpointHealthSchema,
          name: 'WebhookEndpointHealth',
        },
        404: problem('No such endpoint'),
      },
      handle: async ({ params }) => json(await admin.endpointHealth(params.id)),
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-event-types',
      operationId: 'listWebhookEventTypes',
      summary: 'List the event kinds endpoints can subscribe to',
      description:
        'Each with an example of its `data`, shaped like the real records as this version shows them (what an endpoint registered here is sent).',
      tags,
      scope: READ,
      responses: {
        200: { description: 'Event kinds', schema: WebhookEventTypesSchema, name: 'WebhookEventTypes' },
      },
      handle: async ({ apiVersion }) => {
        const items = admin.eventTypes();
        const examples = Object.fromEntries(items.map((t) => [t, admin.eventExample(t, apiVersion)]));
        return json({ items, examples });
      },
    }),
    ...signingKeyAdminRoutes(admin),
  ];
}
