/**
 * Domain events: every change publishes exactly one, named `<resource>.<action>`, with a unique
 * `event_id`. Events are written to the outbox in the same transaction as the change (see
 * `outbox-relay.ts`), so a change never exists without its event, nor an event without its change.
 * Which kinds there are follows from the resources' declarations (each resource's `eventTypes`).
 */

/** A committed change, as written to the outbox and delivered to subscribers and webhooks. */
export interface DomainEvent {
  /** The unique `event_id`; stays the same on every delivery and retry. */
  readonly id: string;
  /** `<resource>.<action>`, e.g. `order.created`. Hosts may add kinds of their own. */
  readonly type: string;
  /** ISO-8601 UTC time of the change. */
  readonly occurredAt: string;
  /** The resource's detail fields, e.g. an order with its customer's e-mail. */
  readonly data: Readonly<Record<string, unknown>>;
  /**
   * The record whose story the event belongs to: the record itself, or the one its resource declares as
   * its `subject` (a message's conversation). Events of one subject are delivered in order to an endpoint
   * that asks for it.
   */
  readonly subject?: string;
  /**
   * The event's place among its subject's events (1, 2, …), assigned by the outbox as the change commits:
   * a receiver can check that nothing of a subject came out of order.
   */
  readonly sequence?: number;
  /**
   * The client whose record the event is about, followed through relations (a message's conversation's
   * client), when one is: a signed-in user receives only their own client's events.
   */
  readonly owner?: string;
  /**
   * The W3C `traceparent` of the span that made the change, when tracing was on: its webhooks carry it
   * on, so a receiver joins the trace of the request that caused the event.
   */
  readonly traceparent?: string;
  /**
   * The interface the change came through, when its caller said (`mcp`): shown in the console's
   * activity. Not part of a webhook's payload.
   */
  readonly via?: string;
  /**
   * Set when the event is a tombstone: its client was erased, and `data` keeps only ids. Webhooks of it
   * carry `"redacted": true`.
   */
  readonly redacted?: true;
}

/**
 * An event as it travels, the same on a webhook and in the feed: snake_case names, the record's data,
 * and `redacted` on a tombstone.
 */
export interface EventBody {
  readonly event: string;
  readonly event_id: string;
  readonly created_at: string;
  readonly subject?: string;
  readonly sequence?: number;
  readonly data: Readonly<Record<string, unknown>>;
  readonly redacted?: true;
}

/** The body of `event`, carrying `data` (its own data unless given, e.g. shaped for an API version). */
export function eventBody(
  event: DomainEvent,
  data: Readonly<Record<string, unknown>> = event.data,
): EventBody {
  // Built member by member, not with conditional spreads: on Node 20 (V8 11.3) members after a spread
  // take a slow path, and every webhook payload and feed item is one of these.
  const body: { -readonly [K in keyof EventBody]: EventBody[K] } = {
    event: event.type,
    event_id: event.id,
    created_at: event.occurredAt,
  } as EventBody;
  // The record the event is about and its place among that record's events, when it has them.
  if (event.subject !== undefined) body.subject = event.subject;
  if (event.sequence !== undefined) body.sequence = event.sequence;
  body.data = data;
  // A tombstone (its client erased): `data` keeps ids only.
  if (event.redacted) body.redacted = true;
  return body;
}

/**
 * Whether an event type matches a pattern: exact (`order.created`), a resource wildcard (`order.*`) or
 * everything (`*`).
 */
export function matchesEventType(pattern: string, type: string): boolean {
  if (pattern === '*' || pattern === type) return true;
  return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1));
}
