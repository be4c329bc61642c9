import { z } from 'zod';
import { SwitchboardError } from '../../core/errors.js';
import type { Order as OrderRecord, OrderStatus } from '../../core/records.js';
import { OrderCreateInput, OrderStatusChangeInput, OrderStatusSchema } from '../../core/validation.js';
import { ifMatch } from '../../http/conditional.js';
import { PAGE_HEADERS, pageQuery, paginated, rangeOf } from '../../http/pagination.js';
import { created, json } from '../../http/responses.js';
import { type AnyRoute, defineRoute } from '../../http/route.js';
import { ProblemSchema, pageOf } from '../../http/schemas.js';
import { OrderV1Schema, OrderV2Schema } from '../schemas.js';
import { assertVisible, presentOrder, type ResourceRouteOptions } from './context.js';

const problem = (description: string) => ({ description, schema: ProblemSchema, name: 'Problem' });

/** v2 takes the money object it answers with. */
const OrderCreateV2Input = z.strictObject({
  total: z.strictObject({ amount: OrderCreateInput.shape.total, currency: OrderCreateInput.shape.currency }),
});

/**
 * Orders: of a client (`/clients/{id}/orders`), of a user (`/users/{user_id}/orders`, `me` for the
 * signed-in user), one order (`/orders/{id}`) and its status change (PATCH, along the life cycle).
 */
export function orderRoutes(options: ResourceRouteOptions): AnyRoute[] {
  const { domain } = options;
  const version = options.apiVersion ?? 1;
  const Order = version === 1 ? OrderV1Schema : OrderV2Schema;
  const present = (order: Parameters<typeof presentOrder>[0]) => presentOrder(order, version);
  const tags = ['Orders'];
  const listQuery = pageQuery(options.limits).extend({
    status: OrderStatusSchema.optional().meta({ description: 'Only orders in this status' }),
  });
  const orderResponse = {
    description: 'The order',
    schema: Order,
    name: 'Order',
    headers: { ETag: 'The version of the order' },
  };
  const orderPage = {
    description: 'A page of orders',
    schema: pageOf(Order),
    name: 'OrderPage',
    headers: PAGE_HEADERS,
  };

  return [
    defineRoute({
      method: 'GET',
      path: '/clients/{id}/orders',
      operationId: 'listClientOrders',
      summary: 'List the orders of a client',
      tags,
      scope: 'crm.orders.read',
      params: z.object({ id: z.string().min(1) }),
      query: listQuery,
      responses: {
        200: orderPage,
        400: problem('A query parameter is not valid'),
        404: problem('No such client'),
      },
      async handle({ params, query, principal, url }) {
        assertVisible(principal, params.id);
        const page = await domain.orders.listByClient(
          params.id,
          { status: query.status as OrderStatus },
          rangeOf(query),
        );
        return paginated(page, query, url, present);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/orders',
      operationId: 'listUserOrders',
      summary: 'List the orders of a user',
      description: 'A user is a client who can sign in; `me` names the signed-in user.',
      tags,
      scope: 'crm.orders.read',
      params: z.object({ user_id: z.string().min(1).meta({ description: 'A client id, or `me`' }) }),
      query: listQuery,
      responses: {
        200: orderPage,
        400: problem('A query parameter is not valid'),
        404: problem('No such user'),
      },
      async handle({ params, query, principal, url }) {
        const userId = params.user_id === 'me' ? principal.userId : params.user_id;
        if (userId === undefined) {
          throw new SwitchboardError(
            'not_found',
            'The caller is not a signed-in user, so "me" names nobody.',
          );
        }
        assertVisible(principal, userId, 'user');
        const page = await domain.orders
          .listByClient(userId, { status: query.status as OrderStatus }, rangeOf(query))
          .catch((error: unknown) => {
            throw error instanceof SwitchboardError && error.code === 'not_found'
              ? new SwitchboardError('not_found', `No user with id "${userId}".`)
              : error;
          });
        return paginated(page, query, url, present);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/clients/{id}/orders',
      operationId: 'createOrder',
      summary: 'Create an order for a client',
      description: 'The order starts `pending`. Send an `Idempotency-Key` header to make retries safe.',
      tags,
      scope: 'crm.orders.write',
      params: z.object({ id: z.string().min(1) }),
      body: { schema: version === 1 ? OrderCreateInput : OrderCreateV2Input, name: 'OrderCreate' },
      responses: {
        201: { ...orderResponse, description: 'Created', headers: { Location: 'URL of the new order' } },
        404: problem('No such client'),
        422: problem('A field is not valid'),
      },
      async handle({ params, body, principal, basePath, idempotent }) {
        assertVisible(principal, params.id);
        const input = version === 1 ? body : fromMoney(body as z.output<typeof OrderCreateV2Input>);
        const respond = (order: OrderRecord) =>
          created(present(order), `${basePath}/orders/${encodeURIComponent(order.id)}`, {
            version: order.version,
          });
        return respond(await domain.orders.create(params.id, input, idempotent(respond)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/orders/{id}',
      operationId: 'getOrder',
      summary: 'Get an order',
      tags,
      scope: 'crm.orders.read',
      params: z.object({ id: z.string().min(1) }),
      responses: { 200: orderResponse, 304: { description: 'Not modified' }, 404: problem('No such order') },
      async handle({ params, principal }) {
        const order = await domain.orders.get(params.id);
        assertVisible(principal, order.clientId, 'order', order.id);
        return json(present(order), { version: order.version });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/orders/{id}',
      operationId: 'changeOrderStatus',
      summary: "Change an order's status",
      description:
        'pending → paid | cancelled; paid → shipped | refunded; shipped → delivered | refunded; ' +
        'delivered → refunded. Any other move is a 409. Publishes `order.<status>`.',
      tags,
      scope: 'crm.orders.write',
      params: z.object({ id: z.string().min(1) }),
      body: {
        schema: OrderStatusChangeInput,
        name: 'OrderStatusChange',
        contentTypes: ['application/merge-patch+json', 'application/json'],
      },
      responses: {
        200: orderResponse,
        404: problem('No such order'),
        409: problem('The life cycle does not allow this move'),
        412: problem('If-Match names a version that is no longer current'),
        422: problem('The status is not valid'),
      },
      async handle({ params, principal, body, request }) {
        const current = await domain.orders.get(params.id);
        assertVisible(principal, current.clientId, 'order', current.id);
        const write = await ifMatch(
          request,
          async () => (await domain.orders.find(params.id))?.version ?? null,
        );
        const order = await domain.orders.changeStatus(params.id, body, write);
        return json(present(order), { version: order.version });
      },
    }),
  ];
}

function fromMoney(body: z.output<typeof OrderCreateV2Input>): { total: string; currency: string } {
  return { total: body.total.amount, currency: body.total.currency };
}
