/**
 * The wire shapes of the resource interface as zod schemas. The same objects document responses in
 * the OpenAPI document and check real responses in the tests, so the reference cannot drift.
 */
import { z } from 'zod';
import { ORDER_STATUSES } from '../core/records.js';

const timestamp = z.string().meta({ format: 'date-time', description: 'ISO-8601 UTC time' });

export const ClientSchema = z.object({
  id: z.string().meta({ description: 'Assigned by the service on creation', example: 'cli_1' }),
  name: z.string(),
  email: z.string().meta({ format: 'email', description: 'Lower-cased; unique across clients' }),
  phone: z.string().nullable(),
  city: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
  version: z.number().int().meta({ description: 'Increases on every change; the ETag carries it' }),
});

const orderFields = {
  id: z.string(),
  clientId: z.string(),
  status: z.enum(ORDER_STATUSES as [string, ...string[]]),
  createdAt: timestamp,
  updatedAt: timestamp,
  version: z.number().int(),
};

const amount = z.string().meta({ description: 'Exact decimal amount as text', example: '129.90' });
const currency = z.string().meta({ description: 'ISO 4217 code', example: 'EUR' });

/** v1 order: `total` and `currency` side by side. */
export const OrderV1Schema = z.object({ ...orderFields, total: amount, currency });

/** An amount of money, `{ amount, currency }`: how v2 gives an order's `total` (the one breaking change of v2). */
export const MoneySchema = z.object({ amount, currency });
/** An order as `/api/v2` sends it: `total` is a {@link MoneySchema} object. */
export const OrderV2Schema = z.object({ ...orderFields, total: MoneySchema });

/** A chat message as the resource interface sends it. */
export const MessageSchema = z.object({
  id: z.string(),
  chatbotId: z.string(),
  visitorId: z.string(),
  content: z.string(),
  timestamp,
});
