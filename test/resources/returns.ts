/** The resource a host declares in the tests: a shop's returns. */
import { z } from 'zod';
import { defineResource } from '../../src/index.js';

// What a host writes: one declaration.
export const returns = defineResource({
  name: 'return',
  idPrefix: 'ret',
  description: 'A customer returning an order.',
  fields: {
    clientId: z.string(),
    orderId: z.string(),
    reason: z.string().trim().min(1).max(500),
    quantity: z.int().min(1).max(100),
    note: z.string().max(1000).optional(),
  },
  immutable: ['clientId', 'orderId'],
  relations: { clientId: 'client', orderId: 'order' },
  owner: 'clientId',
  filters: ['orderId'],
  sort: ['quantity'],
  lifecycle: {
    field: 'status',
    initial: 'requested',
    states: {
      requested: { to: ['approved', 'refused'] },
      approved: { to: ['refunded'] },
      refused: { to: [] },
      refunded: { to: [] },
    },
  },
  scopes: { read: 'shop.returns.read', write: 'shop.returns.write' },
});
