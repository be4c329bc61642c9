/**
 * The GraphQL of declared resources (src/core/resources), contributed to the schema like a host
 * extension: per resource a type, a query for one and for a list, create / update / delete mutations, a
 * life-cycle mutation, a field under `Client` for records that relate to one, and a subscription to
 * its changes; every field scope-checked; a user limited to their own client's records.
 */
import { z } from 'zod';
import type { Scope } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import { assertMayCreate, canSee, sortOf, whereOf } from '../core/resources/access.js';
import type { Resource } from '../core/resources/define.js';
import type { ResourceService } from '../core/resources/service.js';
import type { ResourceRecord } from '../core/storage/index.js';
import type { GraphQLContext } from './context.js';
import { type GraphQLResolvers, listRange, type Paging } from './resolvers.js';
import type { CreateSchemaOptions } from './schema.js';
import { eventStream } from './subscriptions/event-stream.js';

/** The schema extension of the declared resources; nothing when there are none. */
export function resourceSchema(resources: readonly Resource[]): CreateSchemaOptions {
  if (resources.length === 0) return {};
  return {
    typeDefs: resources.map(typeDefsOf),
    resolvers: resources.map(resolversOf),
    scopes: Object.assign({}, ...resources.map(scopesOf)),
  };
}

const upper = (state: string): string => state.toUpperCase().replace(/-/g, '_');
const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const camel = (text: string): string => text.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function typeDefsOf(resource: Resource): string {
  const { typeName, lifecycle } = resource;
  const plural = camel(resource.plural);
  const one = camel(resource.name);
  const stateType = `${typeName}${capital(lifecycle?.field ?? 'state')}`;
  const fieldLines = Object.entries(resource.fields).map(
    ([name, schema]) => `  ${name}: ${graphqlType(schema)}`,
  );
  const createLines = Object.entries(resource.fields).map(
    ([name, schema]) => `  ${name}: ${graphqlType(schema)}`,
  );
  const updateLines = resource.writable.map(
    (name) => `  ${name}: ${graphqlType(resource.fields[name]!, true)}`,
  );
  const filters = resource.filters.map((f) => `${f}: String`).join(', ');
  const listArgs = `limit: Int, offset: Int${filters ? `, ${filters}` : ''}, sort: String`;
  const relatesToClient = Object.values(resource.relations).includes('client');
  const subscriptionArgs = argsOf(resource);
  return `
"""${resource.description.replace(/"""/g, '')}"""
type ${typeName} {
  id: ID!
${fieldLines.join('\n')}
${lifecycle ? `  ${lifecycle.field}: ${stateType}!\n` : ''}  createdAt: DateTime!
  updatedAt: DateTime!
  version: Int!
}
${lifecycle ? `enum ${stateType} { ${Object.keys(lifecycle.states).map(upper).join(' ')} }\n` : ''}
input Create${typeName}Input {
${createLines.join('\n')}
}
input Update${typeName}Input {
${updateLines.length ? updateLines.join('\n') : '  _: Boolean'}
}
"""A change of a ${resource.name}: the event (\`${resource.name}.created\` …) and the record after it."""
type ${typeName}Change {
  event: String!
  ${one}: ${typeName}!
}
extend type Query {
  ${one}(id: ID!): ${typeName}
  ${plural}(${listArgs}): [${typeName}!]!
}
extend type Mutation {
  create${typeName}(input: Create${typeName}Input!): ${typeName}!
  update${typeName}(id: ID!, input: Update${typeName}Input!): ${typeName}!
  delete${typeName}(id: ID!): Boolean!
${lifecycle ? `  move${typeName}(id: ID!, ${lifecycle.field}: ${stateType}!): ${typeName}!\n` : ''}}
extend type Subscription {
  "Every change of the ${resource.plural} the caller may see, narrowed by the arguments given (e.g. one chatbot's)."
  on${typeName}Change${subscriptionArgs.length ? `(${subscriptionArgs.map((f) => `${f}: String`).join(', ')})` : ''}: ${typeName}Change!
}
${relatesToClient ? `extend type Client {\n  ${plural}(limit: Int, offset: Int): [${typeName}!]!\n}\n` : ''}`;
}

function resolversOf(resource: Resource): GraphQLResolvers {
  const { typeName, lifecycle } = resource;
  const plural = camel(resource.plural);
  const one = camel(resource.name);
  const service = (ctx: GraphQLContext): ResourceService => ctx.domain.resources[resource.name]!;
  /** States travel as enum values (`WITH_AGENT`) and are stored as declared (`with_agent`). */
  const stored = (value: string) =>
    Object.keys(lifecycle?.states ?? {}).find((s) => upper(s) === value) ?? value;
  const wire = (record: ResourceRecord): ResourceRecord =>
    lifecycle ? { ...record, [lifecycle.field]: upper(String(record[lifecycle.field])) } : record;
  const findVisible = async (ctx: GraphQLContext, id: string): Promise<ResourceRecord> => {
    const record = await service(ctx).find(id);
    if (!record || !canSee(resource, ctx.principal, record))
      throw new SwitchboardError('not_found', `No ${resource.name} with id "${id}".`);
    return record;
  };
  const list = async (ctx: GraphQLContext, args: Paging & Record<string, unknown>, fixed = {}) => {
    const { limit, offset } = listRange(args, ctx);
    // Life-cycle states may be given as the enum's values (`APPROVED`) as well as stored (`approved`).
    const filters =
      lifecycle && typeof args[lifecycle.field] === 'string'
        ? { ...args, [lifecycle.field]: stored(String(args[lifecycle.field]).toUpperCase()) }
        : args;
    const page = await service(ctx).list({
      where: whereOf(resource, ctx.principal, filters, fixed),
      sort: sortOf(resource, args.sort),
      range: { limit, offset },
    });
    return page.items.map(wire);
  };

  const resolvers: Record<string, Record<string, unknown>> = {
    Query: {
      [one]: async (_: unknown, args: { id: string }, ctx: GraphQLContext) => {
        const record = await service(ctx).find(args.id);
        return record && canSee(resource, ctx.principal, record) ? wire(record) : null;
      },
      [plural]: (_: unknown, args: Paging & Record<string, unknown>, ctx: GraphQLContext) => list(ctx, args),
    },
    Mutation: {
      [`create${typeName}`]: async (
        _: unknown,
        args: { input: Record<string, unknown> },
        ctx: GraphQLContext,
      ) => {
        assertMayCreate(resource, ctx.principal, args.input);
        return wire(await service(ctx).create(args.input));
      },
      [`update${typeName}`]: async (
        _: unknown,
        args: { id: string; input: Record<string, unknown> },
        ctx: GraphQLContext,
      ) => {
        await findVisible(ctx, args.id);
        return wire(await service(ctx).update(args.id, args.input));
      },
      [`delete${typeName}`]: async (_: unknown, args: { id: string }, ctx: GraphQLContext) => {
        await findVisible(ctx, args.id);
        await service(ctx).delete(args.id);
        return true;
      },
    },
    Subscription: {
      [`on${typeName}Change`]: {
        subscribe: (_: unknown, args: Record<string, string | undefined>, ctx: GraphQLContext) =>
          eventStream(ctx.bus, {
            types: resource.eventTypes,
            maxQueue: ctx.limits.maxSubscriberQueue,
            ...(ctx.dropSlowSubscriber ? { onOverflow: ctx.dropSlowSubscriber } : {}),
            pick: (event) => {
              const { previous: _previous, ...record } = event.data as ResourceRecord & {
                previous?: unknown;
              };
              if (!canSee(resource, ctx.principal, record)) return undefined;
              for (const field of argsOf(resource)) {
                const wanted = args[field];
                if (wanted === undefined || wanted === null) continue;
                const value = field === lifecycle?.field ? stored(wanted.toUpperCase()) : wanted;
                if (record[field] !== value) return undefined;
              }
              return { event: event.type, [one]: wire(record as ResourceRecord) };
            },
          }),
        resolve: (change: unknown) => change,
      },
    },
  };
  if (lifecycle) {
    resolvers.Mutation![`move${typeName}`] = async (
      _: unknown,
      args: Record<string, string>,
      ctx: GraphQLContext,
    ) => {
      await findVisible(ctx, args.id!);
      return wire(await service(ctx).update(args.id!, { [lifecycle.field]: stored(args[lifecycle.field]!) }));
    };
  }
  const clientField = Object.entries(resource.relations).find(([, target]) => target === 'client')?.[0];
  if (clientField) {
    resolvers.Client = {
      [plural]: async (client: { id: string }, args: Paging, ctx: GraphQLContext) => {
        const { limit, offset } = listRange(args, ctx);
        const records = await ofClient(ctx, resource, clientField, client.id);
        return records.slice(offset, offset + limit).map(wire);
      },
    };
  }
  return resolvers as GraphQLResolvers;
}

interface Batch {
  readonly ids: Set<string>;
  readonly result: Promise<Map<string, ResourceRecord[]>>;
}

/** Open batches of `Client.<plural>` per operation and resource (the context lives as long as one). */
const batches = new WeakMap<GraphQLContext, Map<string, Batch>>();

/** The most records one batch reads; past it, each client's are read on their own. */
const BATCH_LIMIT = 10_000;

/**
 * A client's records of a resource, read for every client of the operation in one storage call:
 * the resolvers of a list of clients run before the batch does, so all their ids are in it.
 */
function ofClient(
  ctx: GraphQLContext,
  resource: Resource,
  field: string,
  clientId: string,
): Promise<ResourceRecord[]> {
  let open = batches.get(ctx);
  if (!open) {
    open = new Map();
    batches.set(ctx, open);
  }
  let batch = open.get(resource.name);
  if (!batch) {
    const ids = new Set<string>();
    const service = ctx.domain.resources[resource.name]!;
    const sort = { field: 'createdAt', descending: false };
    const of = (clients: string | string[]) => whereOf(resource, ctx.principal, {}, { [field]: clients });
    const result = Promise.resolve().then(async () => {
      open.delete(resource.name);
      const page = await service.list({
        where: of([...ids]),
        sort,
        range: { offset: 0, limit: BATCH_LIMIT },
      });
      const grouped = new Map<string, ResourceRecord[]>([...ids].map((id) => [id, []]));
      if (page.total > page.items.length) {
        for (const id of ids) {
          const own = await service.list({
            where: of(id),
            sort,
            range: { offset: 0, limit: BATCH_LIMIT },
          });
          grouped.set(id, [...own.items]);
        }
        return grouped;
      }
      for (const record of page.items) grouped.get(String(record[field]))?.push(record);
      return grouped;
    });
    batch = { ids, result };
    open.set(resource.name, batch);
  }
  batch.ids.add(clientId);
  return batch.result.then((grouped) => grouped.get(clientId) ?? []);
}

/** What a subscription to a resource's changes may be narrowed by: its owner and its filters. */
function argsOf(resource: Resource): string[] {
  return [...new Set([...(resource.owner ? [resource.owner] : []), ...resource.filters])];
}

function scopesOf(resource: Resource): Record<string, Scope> {
  const { typeName, scopes } = resource;
  const plural = camel(resource.plural);
  const entries: Record<string, Scope> = {
    [`Query.${camel(resource.name)}`]: scopes.read,
    [`Query.${plural}`]: scopes.read,
    [`Mutation.create${typeName}`]: scopes.write,
    [`Mutation.update${typeName}`]: scopes.write,
    [`Mutation.delete${typeName}`]: scopes.write,
    [`Subscription.on${typeName}Change`]: scopes.read,
  };
  if (resource.lifecycle) entries[`Mutation.move${typeName}`] = scopes.write;
  if (Object.values(resource.relations).includes('client')) entries[`Client.${plural}`] = scopes.read;
  return entries;
}

/** The GraphQL type of a field's zod schema: nullable where the field is optional (or all are, in a patch). */
function graphqlType(schema: z.ZodType, allOptional = false): string {
  let inner = schema;
  let optional = allOptional;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) {
    optional = true;
    inner = (inner instanceof z.ZodDefault ? inner.unwrap() : inner.unwrap()) as z.ZodType;
  }
  let name = 'String';
  if (inner instanceof z.ZodNumber)
    name = inner.format === 'safeint' || inner.format === 'int32' ? 'Int' : 'Float';
  else if (inner instanceof z.ZodBoolean) name = 'Boolean';
  // An optional field reads as null when not set, and may be left out of an input.
  return optional ? name : `${name}!`;
}
