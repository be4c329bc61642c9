import { z } from 'zod';
import { defineResource } from '../define.js';
import { amount, currency } from './fields.js';

/** Which status may follow which: `cancelled` and `refunded` are final. */
const states = {
  pending: { to: ['paid', 'cancelled'] },
  paid: { to: ['shipped', 'refunded'] },
  shipped: { to: ['delivered', 'refunded'] },
  delivered: { to: ['refunded'] },
  cancelled: { to: [] },
  refunded: { to: [] },
} as const;
type Status = keyof typeof states;

const time = z.string().meta({ format: 'date-time', description: 'ISO-8601 UTC time' });

/**
 * An amount of money, `{ amount, currency }`: how `/api/v2` gives an order's `total`. Its title names
 * the shape where an interface needs a name (GraphQL's `Money`, `Order.totalMoney`).
 */
const MoneySchema = z
  .object({
    amount: amount.meta({ description: 'Exact decimal amount as text', example: '129.90' }),
    currency: currency.meta({ description: 'ISO 4217 code', example: 'EUR' }),
  })
  .meta({ title: 'Money', description: 'An amount of money in a currency' });

/**
 * An order of a client: an amount, a currency and a status that moves along its life cycle
 * (`pending → paid → shipped → delivered`; `cancelled` and `refunded` are final). Every move publishes
 * `order.<status>`; every order event carries the client's `customerEmail`.
 */
export const orders = defineResource({
  name: 'order',
  idPrefix: 'ord',
  description: 'An order of a client.',
  fields: {
    clientId: z.string().min(1),
    total: amount.meta({ description: 'Exact decimal amount as text, e.g. "129.90".' }),
    currency: currency.meta({ description: 'ISO 4217 code, e.g. EUR.' }),
  },
  immutable: ['clientId', 'total', 'currency'],
  relations: { clientId: 'client' },
  owner: 'clientId',
  lifecycle: {
    field: 'status',
    initial: 'pending',
    states,
  },
  changes: { replace: false, delete: false },
  scopes: {
    read: 'crm.orders.read',
    write: 'crm.orders.write',
    describe: { read: 'See orders and their status', write: 'Create orders and change their status' },
  },
  async eventData(order, related) {
    const client = await related.get('client', String(order.clientId));
    return { customerEmail: client?.email };
  },
  versions: {
    // The one breaking change of v2: `total` is money.
    2: {
      present: ({ total, currency, ...rest }) => ({ ...rest, total: { amount: total, currency } }),
      recordSchema: z
        .object({
          id: z.string(),
          clientId: z.string(),
          status: z.enum(Object.keys(states) as [Status, ...Status[]]),
          total: MoneySchema,
          createdAt: time,
          updatedAt: time,
          version: z.number().int(),
        })
        .meta({ id: 'Order' }),
      createInput: z.strictObject({ clientId: z.string().min(1), total: z.strictObject(MoneySchema.shape) }),
      accept: ({ total, ...rest }) => {
        const money = total as { amount?: unknown; currency?: unknown } | undefined;
        return { ...rest, total: money?.amount, currency: money?.currency };
      },
    },
  },
  graphql: {
    move: 'updateOrderStatus',
    descriptions: {
      order: 'The order, or null when it does not exist or is not visible to the caller.',
      updateOrderStatus: 'Moves an order along its life cycle; an illegal move is a conflict error.',
    },
  },
});
