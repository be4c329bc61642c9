/**
 * Erasure of a client's personal data from the event log: when the tenant record (a client) is deleted,
 * every stored event about it or its records, and every webhook delivery and attempt made of them, is
 * reduced to a tombstone in the same transaction. A tombstone keeps ids, types and times for audit; the
 * record fields an event carried are gone but for the ids named in {@link Erasure.keep}.
 */

/** What `erase` is told: whose data goes, which fields of an event's `data` stay, and when. */
export interface Erasure {
  /** The deleted client: every event whose `owner` it is, and every delivery made of one. */
  readonly owner: string;
  /**
   * The fields of an event's `data` a tombstone keeps, in the order the event had them: the record's
   * `id` and the ids of related records (`clientId`, `conversationId`), derived from the declarations.
   */
  readonly keep: readonly string[];
  /** Epoch milliseconds. */
  readonly at: number;
}

/** An event's `data` as its tombstone keeps it: only the fields in `keep`, in their order. */
export function erasedData(
  data: Readonly<Record<string, unknown>>,
  keep: readonly string[],
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(data)) if (keep.includes(field)) kept[field] = value;
  return kept;
}

/**
 * A delivery's body as its tombstone keeps it: the same envelope, its `data` cut to the fields in
 * `keep`, and `"redacted": true`, so a receiver sent it later knows the fields it lacks are gone, not
 * empty. A body without `data` stays as it is; one that is not a JSON object (none is made) becomes
 * `{"redacted":true}`.
 *
 * @example
 * erasedPayload('{"event":"client.created","event_id":"evt_1","data":{"id":"cli_1","email":"a@b.c"}}', ['id']);
 * // '{"event":"client.created","event_id":"evt_1","data":{"id":"cli_1"},"redacted":true}'
 */
export function erasedPayload(payload: string, keep: readonly string[]): string {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    body = null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return '{"redacted":true}';
  // A body without data (a thin endpoint's: type, ids and sequence) holds nothing to erase.
  if (!('data' in body)) return payload;
  const envelope: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'redacted') continue;
    envelope[key] =
      key === 'data' && typeof value === 'object' && value !== null && !Array.isArray(value)
        ? erasedData(value as Record<string, unknown>, keep)
        : value;
  }
  envelope.redacted = true;
  return JSON.stringify(envelope);
}
