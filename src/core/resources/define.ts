/**
 * A resource definition: one object per kind of business record (a client, an order, a salon's
 * bookings, a shop's returns), from which storage, REST, GraphQL, events and scope checks follow with
 * no further code. The built-in records are declared this way too (built-ins/).
 */
import { z } from 'zod';
import type { ResourceRecord } from '../storage/index.js';
import { withIndexedTextBounded } from './indexed-text.js';
import type {
  LifecycleInput,
  Related,
  ResourceCheck,
  ResourceGraphQLNames,
  ResourceInput,
  ResourceVersion,
} from './input.js';
import { capital, namesOf, type ResourceNames } from './names.js';

/** A resource as the interfaces use it: the declaration with everything derived from it. */
export interface Resource {
  readonly name: string;
  readonly plural: string;
  /** PascalCase of the name: the GraphQL type and the OpenAPI schema. */
  readonly typeName: string;
  /** The name and plural in every case the interfaces use. */
  readonly names: ResourceNames;
  readonly idPrefix: string;
  readonly description: string;
  readonly fields: Readonly<Record<string, z.ZodType>>;
  /** The fields replace and patch may write (all but the immutable ones). */
  readonly writable: readonly string[];
  /** Reference field → the resource it names. */
  readonly relations: Readonly<Record<string, string>>;
  /** The field naming the client whose record it is; `id` when the record is the client itself. */
  readonly owner: string | undefined;
  /** The relation naming the record its events are about (their `subject`); undefined: the record itself. */
  readonly subject: string | undefined;
  readonly filters: readonly string[];
  /** Query parameter → text field it matches part of. */
  readonly search: Readonly<Record<string, string>>;
  readonly unique: readonly string[];
  readonly sortable: readonly string[];
  /** `createdAt`, or `timestamp` for a record that never changes. */
  readonly createdField: string;
  /** Which changes callers may make after creation; none for an append-only record. */
  readonly changes: { readonly replace: boolean; readonly update: boolean; readonly delete: boolean };
  /** Whether records change at all, and so carry `updatedAt` and `version`. */
  readonly versioned: boolean;
  /** Field → path segment it groups records under besides their client (`chatbotId` → `chatbots`). */
  readonly groupedBy: Readonly<Record<string, string>>;
  readonly lifecycle: LifecycleInput | undefined;
  readonly events: { readonly created: string; readonly updated: string; readonly deleted: string };
  /** The event a move into each state publishes: `<name>.<state>`, or the state's declared `event`. */
  readonly moveEvents: Readonly<Record<string, string>>;
  /** Where a move's event carries the state before it (`previousStatus`); none without a life cycle. */
  readonly previousStateField: string | undefined;
  /** The scopes to read and to write it, and what each allows in words (declared or derived). */
  readonly scopes: {
    readonly read: string;
    readonly write: string;
    readonly describe: { readonly read: string; readonly write: string };
  };
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
  readonly prepare: ((record: ResourceRecord, related: Related) => Promise<ResourceRecord>) | undefined;
  readonly eventData:
    | ((record: ResourceRecord, related: Related) => Promise<Record<string, unknown>>)
    | undefined;
  readonly versions: Readonly<Record<number, ResourceVersion>>;
  readonly graphql: ResourceGraphQLNames;
  /** Whether MCP serves it, and the fields its tools leave out. */
  readonly mcp: { readonly served: boolean; readonly hidden: readonly string[] };
}

/**
 * A resource with the declaration it was made from, kept as a type only: the typed client reads its
 * wire shapes from it (see wire-types.ts).
 */
export type DeclaredResource<D = unknown> = Resource & { readonly '~declaration'?: D };

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
export function defineResource<F extends Record<string, z.ZodType>, const D extends ResourceInput<F>>(
  input: D & ResourceInput<F>,
): DeclaredResource<D> {
  if (!NAME.test(input.name))
    throw new Error(`Resource name "${input.name}": lowercase letters, digits, hyphens.`);
  const plural = input.plural ?? `${input.name}s`;
  if (!NAME.test(plural)) throw new Error(`Resource plural "${plural}": lowercase letters, digits, hyphens.`);
  if (!/^[a-z]{2,8}$/.test(input.idPrefix)) throw new Error(`Id prefix "${input.idPrefix}": 2 to 8 letters.`);
  const fields: Record<string, z.ZodType> = withIndexedTextBounded(input);
  for (const field of Object.keys(fields))
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(field))
      throw new Error(`${input.name}: field "${field}": letters, digits and _, not starting with a digit.`);
  const lifecycle = input.lifecycle;
  if (lifecycle) checkLifecycle(input.name, lifecycle, fields);
  const immutable = new Set<string>(input.immutable ?? []);
  const writable = Object.fromEntries(Object.entries(fields).filter(([k]) => !immutable.has(k)));
  const changes =
    input.changes === false
      ? { replace: false, update: false, delete: false }
      : { replace: true, update: true, delete: true, ...input.changes };
  const versioned = input.changes !== false;
  const createdField = versioned ? 'createdAt' : 'timestamp';

  const stateSchema = lifecycle ? z.enum(Object.keys(lifecycle.states) as [string, ...string[]]) : undefined;
  const patchShape: Record<string, z.ZodType> = Object.fromEntries(
    Object.entries(writable).map(([k, schema]) => [k, schema.optional()]),
  );
  if (lifecycle && stateSchema) patchShape[lifecycle.field] = stateSchema.optional();

  const names = namesOf(input.name, plural);
  const typeName = names.type;
  const recordShape: Record<string, z.ZodType> = {
    id: z.string().meta({ description: 'Assigned by the service on creation' }),
  };
  for (const [k, schema] of Object.entries(fields)) recordShape[k] = outputOf(schema);
  if (lifecycle && stateSchema) recordShape[lifecycle.field] = stateSchema;
  const time = z.string().meta({ format: 'date-time', description: 'ISO-8601 UTC time' });
  recordShape[createdField] = time;
  if (versioned)
    Object.assign(recordShape, {
      updatedAt: time,
      version: z
        .number()
        .int()
        .min(1)
        .meta({ description: 'Increases on every change; the ETag carries it' }),
    });

  const relations = Object.fromEntries(
    Object.entries(input.relations ?? {}).map(([field, target]) => [field, String(target)]),
  );
  if (input.subject !== undefined && !(input.subject in relations))
    throw new Error(`${input.name}: the subject "${input.subject}" must be a relation.`);
  const events = {
    created: input.events?.created ?? `${input.name}.created`,
    updated: input.events?.updated ?? `${input.name}.updated`,
    deleted: input.events?.deleted ?? `${input.name}.deleted`,
  };
  const moveEvents = Object.fromEntries(
    Object.entries(lifecycle?.states ?? {}).map(([state, s]) => [state, s.event ?? `${input.name}.${state}`]),
  );
  // A move into a state no state leads to (the initial one, usually) never happens.
  const reachable = new Set(Object.values(lifecycle?.states ?? {}).flatMap((s) => s.to));
  const moves = Object.entries(moveEvents)
    .filter(([state]) => reachable.has(state))
    .map(([, event]) => event);
  const eventTypes = [
    events.created,
    ...((changes.replace || changes.update) && Object.keys(writable).length ? [events.updated] : []),
    ...(changes.delete ? [events.deleted] : []),
    ...(changes.update ? moves : []),
  ];
  return {
    name: input.name,
    plural,
    typeName,
    names,
    idPrefix: input.idPrefix,
    description: input.description ?? `A ${input.name}.`,
    fields,
    writable: Object.keys(writable),
    relations,
    owner: input.owner,
    subject: input.subject,
    filters: [
      ...new Set([
        ...(input.filters ?? []),
        ...Object.keys(relations),
        ...Object.keys(input.groupedBy ?? {}),
        ...(lifecycle ? [lifecycle.field] : []),
      ]),
    ],
    search: { ...(input.search as Record<string, string> | undefined) },
    unique: [...(input.unique ?? [])],
    sortable: [createdField, ...(input.sort ?? [])],
    createdField,
    changes,
    versioned,
    groupedBy: { ...(input.groupedBy as Record<string, string> | undefined) },
    lifecycle,
    events,
    moveEvents,
    previousStateField: lifecycle && `previous${capital(lifecycle.field)}`,
    scopes: {
      read: input.scopes.read,
      write: input.scopes.write,
      describe: {
        read: input.scopes.describe?.read ?? `See ${words(plural)}`,
        write: input.scopes.describe?.write ?? `${listed(verbs(changes))} ${words(plural)}`,
      },
    },
    // A nullable field may be left out of a create (it starts null); a replace must send it.
    createInput: z.strictObject(
      Object.fromEntries(
        Object.entries(fields).map(([k, schema]) => [
          k,
          schema instanceof z.ZodNullable ? schema.optional() : schema,
        ]),
      ),
    ),
    replaceInput: z.strictObject(writable),
    patchInput: z
      .strictObject(patchShape)
      .refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' })
      .meta({ minProperties: 1 }),
    recordSchema: z.object(recordShape).meta({ id: typeName, description: input.description }),
    eventTypes: [...new Set(eventTypes)],
    check: input.check,
    prepare: input.prepare,
    eventData: input.eventData,
    versions: { ...input.versions },
    graphql: { ...input.graphql },
    mcp: mcpOf(input.name, input.mcp, fields),
  };
}

/** The MCP part of the model; a hidden field must be one the resource has, and not its identity. */
function mcpOf(
  name: string,
  mcp: ResourceInput<Record<string, z.ZodType>>['mcp'],
  fields: Record<string, z.ZodType>,
): Resource['mcp'] {
  if (mcp === false) return { served: false, hidden: [] };
  const hidden = [...new Set(mcp?.hide ?? [])];
  for (const field of hidden)
    if (!(field in fields)) throw new Error(`${name}: mcp.hide names "${field}", which is not a field.`);
  return { served: true, hidden };
}

/** What the write scope allows: create always, change and delete as the declaration lets callers. */
function verbs(changes: Resource['changes']): string[] {
  return [
    'Create',
    ...(changes.replace || changes.update ? ['change'] : []),
    ...(changes.delete ? ['delete'] : []),
  ];
}

/** `['Create', 'change', 'delete']` → `Create, change and delete`. */
const listed = (items: readonly string[]): string =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? '');

/** `return-notes` → `return notes`. */
const words = (name: string): string => name.replaceAll('-', ' ');

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
