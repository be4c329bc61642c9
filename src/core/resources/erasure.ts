/**
 * A deleted client leaves no personal data in the event log: the deletion's transaction makes
 * tombstones of its events in the outbox and of the webhook deliveries and attempts made of them (see
 * core/storage/erasure.ts). What a tombstone keeps is derived from the declarations: a record's `id`
 * and the fields that name other records.
 */
import type { Stores } from '../storage/index.js';
import type { Resource } from './define.js';

/** The fields of an event's `data` a tombstone keeps: `id` and every relation field of the resources. */
export function keptOnErasure(resources: Iterable<Resource>): string[] {
  const kept = new Set(['id']);
  for (const resource of resources) for (const field of Object.keys(resource.relations)) kept.add(field);
  return [...kept];
}

/**
 * Erases the client `owner` from the event log inside `tx`, its deletion's transaction, after its
 * `deleted` event was appended (so that event is a tombstone too). The outbox goes first: on
 * PostgreSQL a fan-out writing deliveries of one of its events holds that event's row, so the erasure
 * waits for it and then finds those deliveries; a fan-out that comes after finds the event erased.
 */
export async function eraseOwner(
  tx: Stores,
  erasure: { readonly owner: string; readonly keep: readonly string[]; readonly at: number },
): Promise<void> {
  await tx.outbox.erase(erasure);
  await tx.webhooks.deliveries.erase(erasure);
}
