/**
 * What the REST peers (hono.ts, fastify.ts) share, so they do the same work as each other and as
 * Switchboard's routes: the bench key's scopes by SHA-256, records in a Map seeded with Switchboard's
 * own clients (BENCH_CLIENTS), the client declaration's create input and the page query, and the bodies
 * of new records and of problems. Each peer keeps only its framework's wiring.
 */
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Client } from '../../../src/index.js';
import { BENCH_KEY } from './fixture.js';

/** The scopes of a bearer header's key, looked up by its SHA-256 as Switchboard's guard does. */
const keys = new Map([
  [createHash('sha256').update(BENCH_KEY).digest('hex'), new Set(['crm.clients.read', 'crm.clients.write'])],
]);
export const scopesOf = (header: string | undefined): ReadonlySet<string> | undefined =>
  header?.startsWith('Bearer ')
    ? keys.get(createHash('sha256').update(header.slice(7)).digest('hex'))
    : undefined;

export const clients = new Map<string, Client>();
export const ordered: Client[] = [];
export const emails = new Set<string>();
for (const client of JSON.parse(process.env.BENCH_CLIENTS ?? '[]') as Client[]) keep(client);

export function keep(client: Client): void {
  clients.set(client.id, client);
  ordered.push(client);
  emails.add(client.email);
}

// Mirrors the client declaration's create input (src/core/resources/built-ins/clients.ts).
const text = (max: number) => z.string().trim().min(1).max(max);
export const createInput = z.strictObject({
  name: text(200),
  email: z.string().trim().toLowerCase().max(254).check(z.email()),
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9][0-9 ()\-.]{3,30}$/)
    .nullable()
    .optional(),
  city: text(100).nullable().optional(),
});
export const pageQuery = z.object({
  page: z.coerce.number<string>().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number<string>().int().min(1).max(100).default(20),
});

export const FRESH = { 'cache-control': 'private, no-cache', vary: 'Authorization' };

/** A new client from a valid create input, kept. */
export function createClient(input: z.output<typeof createInput>): Client {
  const now = new Date().toISOString();
  const client: Client = {
    id: `cli_${randomUUID().replaceAll('-', '')}`,
    name: input.name,
    email: input.email,
    phone: input.phone ?? null,
    city: input.city ?? null,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  keep(client);
  return client;
}

/** An RFC 9457 problem body, shaped like Switchboard's. */
export const problemBody = (status: number, code: string, detail: string): string =>
  JSON.stringify({ type: `https://bench.example/problems/${code}`, status, detail, code });
