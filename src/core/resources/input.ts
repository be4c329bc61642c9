/** What a host writes in `defineResource({...})`: the declaration, before anything is derived from it. */
import type { z } from 'zod';
import type { ResourceQuery, ResourceRecord } from '../storage/index.js';

/** A life cycle on one field: where records start, which moves are allowed, what each announces. */
export interface LifecycleInput {
  /** The field that holds the state, e.g. `status`. It is not written directly on create. */
  readonly field: string;
  /** The state of a new record. */
  readonly initial: string;
  /**
   * Every state, with the states it may move to and the event a move into it publishes (default
   * `<name>.<state>`).
   */
  readonly states: Readonly<Record<string, { readonly to: readonly string[]; readonly event?: string }>>;
}

/** Other records, read (and, in `prepare`, written) in the transaction of the write at hand. */
export interface Related {
  get(resource: string, id: string): Promise<ResourceRecord | null>;
  /** Records of a resource with these field values, oldest first (at most 1,000). */
  find(resource: string, where: ResourceQuery['where']): Promise<readonly ResourceRecord[]>;
  /** Creates a record of another resource, with its event, in the same transaction. */
  create(resource: string, input: Record<string, unknown>): Promise<ResourceRecord>;
}

/** See {@link ResourceInput.check}. */
export type ResourceCheck = (
  record: ResourceRecord,
  others: (
    where: Readonly<Record<string, string | number | boolean | null>>,
  ) => Promise<readonly ResourceRecord[]>,
) => Promise<void>;

/**
 * The wire form of a resource from one API version on, when it differs from the declared fields
 * (e.g. `/api/v2` gives an order's `total` as `{ amount, currency }`).
 */
export interface ResourceVersion {
  /** The record as this version shows it, and its schema (for OpenAPI). */
  readonly present: (record: ResourceRecord) => Record<string, unknown>;
  readonly recordSchema: z.ZodObject;
  /** A create body of this version, and how it becomes the declared fields. */
  readonly createInput: z.ZodType<Record<string, unknown>>;
  readonly accept: (input: Record<string, unknown>) => Record<string, unknown>;
}

/** GraphQL names that differ from the derived ones (the built-ins keep the names they were published with). */
export interface ResourceGraphQLNames {
  /** The create mutation, e.g. `sendMessage` instead of `createMessage`. */
  readonly create?: string;
  /** Its input type, e.g. `SendMessageInput`. */
  readonly createInput?: string;
  /** The life-cycle mutation, e.g. `updateOrderStatus` instead of `moveOrder`. */
  readonly move?: string;
  /**
   * A subscription to new records only, answering the record itself, with the `groupedBy` fields as
   * required arguments: `onNewMessage(chatbotId: String!): Message!`.
   */
  readonly onCreated?: string;
  /** Extra fields that read another field (`visitor_id` reads `visitorId`). */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Descriptions of the generated root fields, by field name. */
  readonly descriptions?: Readonly<Record<string, string>>;
}

/** The scopes of a resource: one to read it, one to write it, and what each allows in words. */
export interface ScopesInput {
  readonly read: string;
  readonly write: string;
  readonly describe?: { readonly read?: string; readonly write?: string };
}

/** What a host declares; see `defineResource`. */
export interface ResourceInput<F extends Record<string, z.ZodType>> {
  /** Singular, lowercase, e.g. `return`: events are `return.created` …, the GraphQL type `Return`. */
  readonly name: string;
  /** Plural for paths and list fields, e.g. `returns` → `/api/v1/returns`. Default: name + `s`. */
  readonly plural?: string;
  /** Prefix of ids, e.g. `ret` → `ret_01j…`. */
  readonly idPrefix: string;
  /**
   * The fields callers write, as zod schemas: `.optional()` for optional ones, `.nullable()` to clear.
   * A schema's transforms normalise what is stored (`.trim().toLowerCase()` for an e-mail). A
   * `.nullable()` field may be left out of a create (it starts `null`) but a replace must send it.
   */
  readonly fields: F;
  /** Fields set at creation only: replace and patch refuse them. */
  readonly immutable?: readonly (keyof F & string)[];
  /** References: field → resource it points at (`client`, `order`, …); a dangling one is refused. */
  readonly relations?: Readonly<Partial<Record<keyof F & string, string>>>;
  /**
   * The relation that says whose record it is: a signed-in user sees only their own client's, and
   * the records go when their owner does. `id` for the client itself. It may name a record that is
   * owned in turn: a message's `conversationId` makes it its conversation's client's.
   */
  readonly owner?: (keyof F & string) | 'id';
  /**
   * The relation whose record an event of this one is about, when not the record itself: a message's
   * `conversationId` puts its events in its conversation's order, so an endpoint that asks for ordering
   * gets a conversation's messages and moves one after another. Default: the record itself.
   */
  readonly subject?: keyof F & string;
  /** Fields a list filters on by equality (`?status=approved`); relations always can. */
  readonly filters?: readonly (keyof F & string)[];
  /** List parameters that match part of a text field, ignoring case: `{ name: 'name' }` → `?name=ada`. */
  readonly search?: Readonly<Record<string, keyof F & string>>;
  /** Fields no two records share (compared as stored, e.g. a lower-cased e-mail): a `conflict`. */
  readonly unique?: readonly (keyof F & string)[];
  /** Fields a list may sort on besides the creation time (`?sort=-startsAt`). */
  readonly sort?: readonly (keyof F & string)[];
  readonly lifecycle?: LifecycleInput;
  /**
   * Which changes callers may make after creation (default all). `false`: records are written once
   * (a chat message) and show only when, as `timestamp`, with no `updatedAt` or `version`.
   */
  readonly changes?:
    | false
    | { readonly replace?: boolean; readonly update?: boolean; readonly delete?: boolean };
  /**
   * Fields that group records under a path besides their client: `{ chatbotId: 'chatbots' }` serves
   * `/chatbots/{chatbot_id}/messages`.
   */
  readonly groupedBy?: Readonly<Partial<Record<keyof F & string, string>>>;
  /** Events for create, change and delete (defaults `<name>.created`, `.updated`, `.deleted`). */
  readonly events?: { readonly created?: string; readonly updated?: string; readonly deleted?: string };
  /**
   * `<area>.<object>.read` and `.write`, and what each allows in words for the consent page and the
   * console (default "See returns", "Create, change and delete returns", from the plural and `changes`).
   */
  readonly scopes: ScopesInput;
  /** One line on what the record is, for the OpenAPI document and the GraphQL schema. */
  readonly description?: string;
  /**
   * A rule across records, checked in the write's transaction before a record is stored (created or
   * changed): throw a `SwitchboardError` (e.g. `conflict`) to refuse it. `others` lists records of
   * the same resource.
   */
  readonly check?: ResourceCheck;
  /**
   * Runs in a create's transaction before the record is stored, and returns the record to store:
   * fills fields from other records (a message joins its visitor's open conversation or starts one).
   */
  readonly prepare?: (record: ResourceRecord, related: Related) => Promise<ResourceRecord>;
  /** Data every event of the resource carries besides the record (an order's `customerEmail`). */
  readonly eventData?: (record: ResourceRecord, related: Related) => Promise<Record<string, unknown>>;
  /** Wire forms of later API versions, by version number. */
  readonly versions?: Readonly<Record<number, ResourceVersion>>;
  readonly graphql?: ResourceGraphQLNames;
  /**
   * What AI agents reach over MCP: `false` serves no tools for the resource; `hide` leaves fields out of
   * its tools (not shown, not written, not filtered or sorted on), e.g. personal data an agent has no
   * need for. REST and GraphQL still serve them. Default: every field, as the other interfaces.
   */
  readonly mcp?: false | { readonly hide?: readonly (keyof F & string)[] };
}
