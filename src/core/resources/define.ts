/**
 * A resource definition: one object per kind of business record (a salon's bookings, a shop's
 * returns), from which storage, REST, GraphQL, events and scope checks follow with no further code.
 */
import { z } from 'zod';
import type { ResourceRecord } from '../storage/index.js';

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

/** What a host declares; see {@link defineResource}. */
export interface ResourceInput<F extends Record<string, z.ZodType>> {
  /** Singular, lowercase, e.g. `return`: events are `return.created` …, the GraphQL type `Return`. */
  readonly name: string;
  /** Plural for paths and list fields, e.g. `returns` → `/api/v1/returns`. Default: name + `s`. */
  readonly plural?: string;
  /** Prefix of ids, e.g. `ret` → `ret_01j…`. */
  readonly idPrefix: string;
  /** The fields callers write, as zod schemas: `.optional()` for optional ones, `.nullable()` to clear. */
  readonly fields: F;
  /** Fields set at creation only: replace and patch refuse them. */
  readonly immutable?: readonly (keyof F & string)[];
  /** References: field → resource it points at (`client` for the built-in clients). */
  readonly relations?: Readonly<Partial<Record<keyof F & string, string>>>;
  /** The relation that says whose record it is: a signed-in user sees only their own client's. */
  readonly owner?: keyof F & string;
  /** Fields a list filters on by equality (`?status=approved`); relations always can. */
  readonly filters?: readonly (keyof F & string)[];
  /** Fields a list may sort on besides `createdAt` (`?sort=-startsAt`). */
  readonly sort?: readonly (keyof F & string)[];
  readonly lifecycle?: LifecycleInput;
  /** Events for create, change and delete (defaults `<name>.created`, `.updated`, `.deleted`). */
  readonly events?: { readonly created?: string; readonly updated?: string; readonly deleted?: string };
  /** `<area>.<object>.read` and `.write`. */
  readonly scopes: { readonly read: string; readonly write: string };
  /** One line on what the record is, for the OpenAPI document and the GraphQL schema. */
  readonly description?: string;
  /**
   * A rule across records, checked in the write's transaction before a record is stored (created or
   * changed): throw a `SwitchboardError` (e.g. `conflict`) to refuse it. `others` lists records of
   * the same resource.
   */
  readonly check?: ResourceCheck;
}

/** See {@link ResourceInput.check}. */
export type ResourceCheck = (
  record: ResourceRecord,
  others: (
    where: Readonly<Record<string, string | number | boolean | null>>,
  ) => Promise<readonly ResourceRecord[]>,
) => Promise<void>;

/** A resource as the interfaces use it: the declaration with everything derived from it. */
export interface Resource {
  readonly name: string;
  readonly plural: string;
  /** PascalCase of the name: the GraphQL type and the OpenAPI schema. */
  readonly typeName: string;
  readonly idPrefix: string;
  readonly description: string;
  readonly fields: Readonly<Record<string, z.ZodType>>;
  /** The fields replace and patch may write (all but the immutable ones). */
  readonly writable: readonly string[];
  readonly relations: Readonly<Record<string, string>>;
  readonly owner: string | undefined;
  readonly filters: readonly string[];
  readonly sortable: readonly string[];
  readonly lifecycle: LifecycleInput | undefined;
  readonly events: { readonly created: string; readonly updated: string; readonly deleted: string };
  readonly scopes: { readonly read: string; readonly write: string };
  /** Create: the fields (the life-cycle field is set to its initial state). */
  readonly createInput: z.ZodType<Record<string, unknown>>;
  /** Replace (PUT): every field but the immutable ones; an absent optional field is cleared. */
  readonly replaceInput: z.ZodType<Record<string, unknown>>;
  /** Patch: any of those, at least one; the life-cycle field moves the record. */
  readonly patchInput: z.ZodType<Record<string, unknown>>;
  /** A record as every interface shows it. */
  readonly recordSchema: z.ZodObject;
  /** Every event it publishes, for the event-type catalogue. */
  readonly eventTypes: readonly string[];
  readonly check: ResourceCheck | undefined;
}

const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/**
 * Declares a resource. Pass it to `createSwitchboard({ resources: [...] })` and it is stored, served
 * over REST and GraphQL, documented in OpenAPI, announced as events to webhooks and subscriptions, and
 * scope-checked on every interface.
 *
 * @example
 * const returns = defineResource({
 *   name: 'return', idPrefix: 'ret', owner: 'clientId', relations: { clientId: 'client' },
 *   fields: { clientId: z.string(), orderId: z.string(), reason: z.string().max(500) },
 *   lifecycle: { field: 'status', initial: 'requested',
 *     states: { requested: { to: ['approved', 'refused'] }, approved: { to: [] }, refused: { to: [] } } },
 *   scopes: { read: 'shop.returns.read', write: 'shop.returns.write' },
 * });
 */
export function defineResource<F extends Record<string, z.ZodType>>(input: ResourceInput<F>): Resource {
  if (!NAME.test(input.name))
    throw new Error(`Resource name "${input.name}": lowercase letters, digits, hyphens.`);
  const plural = input.plural ?? `${input.name}s`;
  if (!NAME.test(plural)) throw new Error(`Resource plural "${plural}": lowercase letters, digits, hyphens.`);
  if (!/^[a-z]{2,8}$/.test(input.idPrefix)) throw new Error(`Id prefix "${input.idPrefix}": 2 to 8 letters.`);
  const fields: Record<string, z.ZodType> = { ...input.fields };
  const lifecycle = input.lifecycle;
  if (lifecycle) checkLifecycle(input.name, lifecycle, fields);
  const immutable = new Set<string>(input.immutable ?? []);
  const writable = Object.fromEntries(Object.entries(fields).filter(([k]) => !immutable.has(k)));

  const stateSchema = lifecycle ? z.enum(Object.keys(lifecycle.states) as [string, ...string[]]) : undefined;
  const patchShape: Record<string, z.ZodType> = Object.fromEntries(
    Object.entries(writable).map(([k, schema]) => [k, schema.optional()]),
  );
  if (lifecycle && stateSchema) patchShape[lifecycle.field] = stateSchema.optional();

  const typeName = pascal(input.name);
  const recordShape: Record<string, z.ZodType> = { id: z.string() };
  for (const [k, schema] of Object.entries(fields)) recordShape[k] = outputOf(schema);
  if (lifecycle && stateSchema) recordShape[lifecycle.field] = stateSchema;
  Object.assign(recordShape, {
    createdAt: z.string().meta({ format: 'date-time' }),
    updatedAt: z.string().meta({ format: 'date-time' }),
    version: z.number().int().min(1),
  });

  const events = {
    created: input.events?.created ?? `${input.name}.created`,
    updated: input.events?.updated ?? `${input.name}.updated`,
    deleted: input.events?.deleted ?? `${input.name}.deleted`,
  };
  const moveEvents = lifecycle
    ? Object.entries(lifecycle.states).map(([state, s]) => s.event ?? `${input.name}.${state}`)
    : [];
  return {
    name: input.name,
    plural,
    typeName,
    idPrefix: input.idPrefix,
    description: input.description ?? `A ${input.name}.`,
    fields,
    writable: Object.keys(writable),
    relations: { ...(input.relations as Record<string, string> | undefined) },
    owner: input.owner,
    filters: [
      ...new Set([
        ...(input.filters ?? []),
        ...Object.keys(input.relations ?? {}),
        ...(lifecycle ? [lifecycle.field] : []),
      ]),
    ],
    sortable: ['createdAt', ...(input.sort ?? [])],
    lifecycle,
    events,
    scopes: input.scopes,
    createInput: z.strictObject(fields),
    replaceInput: z.strictObject(writable),
    patchInput: z
      .strictObject(patchShape)
      .refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' })
      .meta({ minProperties: 1 }),
    recordSchema: z.object(recordShape).meta({ id: typeName, description: input.description }),
    eventTypes: [...new Set([events.created, events.updated, events.deleted, ...moveEvents])],
    check: input.check,
  };
}

/** What a stored value looks like: optional fields are always present, `null` when not set. */
function outputOf(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType).nullable() : schema;
}

function checkLifecycle(name: string, lifecycle: LifecycleInput, fields: Record<string, z.ZodType>): void {
  const states = Object.keys(lifecycle.states);
  if (lifecycle.field in fields)
    throw new Error(`${name}: the life-cycle field "${lifecycle.field}" is not one of the written fields.`);
  if (!states.includes(lifecycle.initial))
    throw new Error(`${name}: unknown initial state ${lifecycle.initial}.`);
  for (const [state, { to }] of Object.entries(lifecycle.states))
    for (const next of to)
      if (!states.includes(next)) throw new Error(`${name}: ${state} moves to unknown state ${next}.`);
}

function pascal(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_, _dash, c: string) => c.toUpperCase());
}
