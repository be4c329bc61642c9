/**
 * The GraphQL of resources (src/core/resources), built-in and declared alike, contributed to the
 * schema like a host extension: per resource a type, a query for one and for a list, create / update
 * / delete mutations as its changes allow, a life-cycle mutation, a field under `Client` for records a
 * client owns (batched), and subscriptions to its changes; every field scope-checked; a user limited
 * to their own client's records.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { z } from 'zod';
import type { Scope } from '../core/auth.js';
import { eventStream } from '../core/event-stream.js';
import type { Resource } from '../core/resources/define.js';
import { capital } from '../core/resources/names.js';
import { sortOf, whereOf } from '../core/resources/query.js';
import type { ResourceService } from '../core/resources/service.js';
import { PREVIOUS_RECORD_FIELD } from '../core/resources/wire.js';
import type { ResourceRecord } from '../core/storage/index.js';
import type { GraphQLContext } from './context.js';
import { type CurrentField, currentFieldsOf } from './current-shapes.js';
import type { CreateSchemaOptions } from './extension.js';
import { descriptionOf, docString, graphqlType } from './field-types.js';
import { selectsPlainField } from './look-ahead.js';
import { type GraphQLResolvers, listRange, type Paging } from './resolvers.js';

/** The schema extension of these resources; nothing when there are none. */
export function resourceSchema(resources: readonly Resource[]): CreateSchemaOptions {
  if (resources.length === 0) return {};
  // The current API version's object shapes, each type defined once whichever resources use it.
  const types = new Map<string, string>();
  const current = resources.map((r) => currentFieldsOf(r, types));
  return {
    typeDefs: [...resources.map((r, i) => typeDefsOf(r, current[i]!)), ...types.values()],
    resolvers: resources.map((r, i) => resolversOf(r, current[i]!)),
    scopes: Object.assign({}, ...resources.map(resourceScopes)),
  };
}

/** The GraphQL names of a resource's fields and operations, derived or as declared. */
function namesOf(resource: Resource) {
  const { typeName, lifecycle, graphql } = resource;
  return {
    one: resource.names.field,
    plural: resource.names.pluralField,
    stateType: `${typeName}${capital(lifecycle?.field ?? 'state')}`,
    create: graphql.create ?? `create${typeName}`,
    createInput: graphql.createInput ?? `Create${typeName}Input`,
    update: resource.changes.update && resource.writable.length ? `update${typeName}` : undefined,
    remove: resource.changes.delete ? `delete${typeName}` : undefined,
    move: lifecycle && resource.changes.update ? (graphql.move ?? `move${typeName}`) : undefined,
    change: `on${typeName}Change`,
    created: graphql.onCreated,
    /** The field under `Client` for records a client owns. */
    ofClient: ownedByClient(resource) ? resource.names.pluralField : undefined,
  };
}

const upper = (state: string): string => state.toUpperCase().replace(/-/g, '_');
const ownedByClient = (r: Resource): boolean =>
  r.owner !== undefined && r.owner !== 'id' && r.relations[r.owner] === 'client';

function typeDefsOf(resource: Resource, current: readonly CurrentField[]): string {
  const { typeName, lifecycle } = resource;
  const names = namesOf(resource);
  const describe = (name: string) => {
    const text = resource.graphql.descriptions?.[name];
    return text ? `  ${docString(text)}\n` : '';
  };
  const field = (name: string, schema: z.ZodType, allOptional = false) =>
    `  ${descriptionOf(schema)}${name}: ${graphqlType(schema, allOptional, name in resource.relations)}`;
  const replaced = new Map(current.map((f) => [f.replaces, f.name]));
  const deprecated = (name: string) =>
    replaced.has(name) ? ` @deprecated(reason: "Use ${replaced.get(name)}, the current shape.")` : '';
  const fieldLines = Object.entries(resource.fields).map(
    ([name, schema]) => field(name, schema) + deprecated(name),
  );
  fieldLines.push(...current.map((f) => `  ${f.definition}`));
  for (const [alias, target] of Object.entries(resource.graphql.aliases ?? {}))
    fieldLines.push(
      `  "Same as ${target}."\n  ${alias}: ${graphqlType(resource.fields[target]!, false, false)}`,
    );
  const createLines = Object.entries(resource.fields).map(([name, schema]) => field(name, schema));
  const updateLines = resource.writable.map((name) => field(name, resource.fields[name]!, true));
  const filterArgs = (skip: readonly string[] = []) =>
    [
      ...resource.filters
        .filter((f) => !skip.includes(f))
        .map((f) => `${f}: ${f === lifecycle?.field ? names.stateType : 'String'}`),
      ...Object.keys(resource.search).map((p) => `${p}: String`),
    ].join(', ');
  const grouped = Object.keys(resource.groupedBy);
  const listArgs = [
    ...grouped.map((f) => `${f}: String!`),
    filterArgs(grouped),
    'limit: Int',
    'offset: Int = 0',
    'sort: String',
  ]
    .filter(Boolean)
    .join(', ');
  const subscriptionArgs = argsOf(resource);
  const stateEnum = lifecycle
    ? `${docString(`The life of a ${resource.name}: ${movesOf(resource)}.`)}\nenum ${names.stateType} { ${Object.keys(lifecycle.states).map(upper).join(' ')} }\n`
    : '';
  const mutations = [
    `${describe(names.create)}  ${names.create}(input: ${names.createInput}!): ${typeName}!`,
    names.update &&
      `${describe(names.update)}  ${names.update}(id: ID!, input: Update${typeName}Input!): ${typeName}!`,
    names.remove &&
      `${describe(names.remove) || `  "True when the ${resource.name} was deleted."\n`}  ${names.remove}(id: ID!): Boolean!`,
    names.move &&
      `${describe(names.move)}  ${names.move}(id: ID!, ${lifecycle!.field}: ${names.stateType}!): ${typeName}!`,
  ].filter(Boolean);
  return `
${docString(resource.description)}
type ${typeName} {
  id: ID!
${fieldLines.join('\n')}
${lifecycle ? `  ${lifecycle.field}: ${names.stateType}!\n` : ''}  ${resource.createdField}: DateTime!
${resource.versioned ? '  updatedAt: DateTime!\n  "Increases on every change."\n  version: Int!\n' : ''}}
${stateEnum}
input ${names.createInput} {
${createLines.join('\n')}
}
${names.update ? `input Update${typeName}Input {\n${updateLines.join('\n')}\n}\n` : ''}
${docString(`A change of a ${resource.name}: the event (\`${resource.events.created}\` …) and the record after it.`)}
type ${typeName}Change {
  event: String!
  ${names.one}: ${typeName}!
}
extend type Query {
${describe(names.one)}  ${names.one}(id: ID!): ${typeName}
${describe(names.plural)}  ${names.plural}(${listArgs}): [${typeName}!]!
}
extend type Mutation {
${mutations.join('\n')}
}
extend type Subscription {
  "Every change of the ${resource.plural} the caller may see, narrowed by the arguments given (e.g. one chatbot's)."
  ${names.change}${subscriptionArgs.length ? `(${subscriptionArgs.map((f) => `${f}: ${f === lifecycle?.field ? names.stateType : 'String'}`).join(', ')})` : ''}: ${typeName}Change!
${names.created ? `${describe(names.created)}  ${names.created}(${grouped.map((f) => `${f}: String!`).join(', ')}): ${typeName}!\n` : ''}}
${
  names.ofClient
    ? `extend type Client {
  """
  The client's ${resource.plural}, oldest first, at most \`limit\` of them (1 to the server's list
  limit, which is also the default): page with \`offset\`. Needs ${resource.scopes.read}.
  """
  ${names.ofClient}(${[filterArgs([resource.owner!]), 'limit: Int', 'offset: Int'].filter(Boolean).join(', ')}): [${typeName}!]!
}\n`
    : ''
}`;
}

function resolversOf(resource: Resource, current: readonly CurrentField[]): GraphQLResolvers {
  const { typeName, lifecycle } = resource;
  const names = namesOf(resource);
  // The service acting for the caller decides what they may reach; resolvers only render its answer.
  const service = (ctx: GraphQLContext): ResourceService =>
    ctx.domain.resources[resource.name]!.for(ctx.principal);
  // Records a client owns, read for every client of the list at once when they are selected.
  const prefetchOwned = async (
    clients: readonly ResourceRecord[],
    ctx: GraphQLContext,
    info: GraphQLResolveInfo,
  ) => {
    if (clients.length < 2) return;
    let ids: string[] | undefined;
    for (const other of ownedOf(ctx)) {
      if (!ctx.principal.scopes.has(other.scopes.read) || !selectsPlainField(info, other.names.pluralField))
        continue;
      ids ??= clients.map((c) => c.id);
      await ctx.records.prefetch(other.name, ids);
    }
  };

  const resolvers: Record<string, Record<string, unknown>> = {
    Query: {
      [names.one]: (_: unknown, args: { id: string }, ctx: GraphQLContext) => service(ctx).find(args.id),
      [names.plural]: async (
        _: unknown,
        args: Paging & Record<string, unknown>,
        ctx: GraphQLContext,
        info: GraphQLResolveInfo,
      ) => {
        const range = listRange(args, ctx);
        const { items } = await service(ctx).list({
          where: whereOf(resource, args, pick(args, Object.keys(resource.groupedBy))),
          sort: sortOf(resource, args.sort),
          range,
        });
        if (resource.name === 'client') await prefetchOwned(items, ctx, info);
        return items;
      },
    },
    Mutation: {
      [names.create]: (_: unknown, args: { input: Record<string, unknown> }, ctx: GraphQLContext) =>
        service(ctx).create(args.input),
    },
    Subscription: {
      [names.change]: {
        subscribe: (_: unknown, args: Record<string, string | undefined>, ctx: GraphQLContext) => {
          const access = service(ctx);
          return eventStream(ctx.bus, {
            types: resource.eventTypes,
            maxQueue: ctx.limits.maxSubscriberQueue,
            ...(ctx.dropSlowSubscriber ? { onOverflow: ctx.dropSlowSubscriber } : {}),
            pick: (event) => {
              // An erased client's events carry ids only: its records are gone, nothing of them to
              // show but the deletion itself (whose record is its id: select only `id` for it).
              if (event.redacted && event.type !== resource.events.deleted) return undefined;
              const record = recordOf(event.data);
              if (!access.sees(event) || !matches(resource, record, args)) return undefined;
              return { event: event.type, [names.one]: record };
            },
          });
        },
        resolve: (change: unknown) => change,
      },
    },
  };
  if (names.created)
    resolvers.Subscription![names.created] = {
      subscribe: (_: unknown, args: Record<string, string | undefined>, ctx: GraphQLContext) => {
        const access = service(ctx);
        return eventStream(ctx.bus, {
          types: [resource.events.created],
          maxQueue: ctx.limits.maxSubscriberQueue,
          ...(ctx.dropSlowSubscriber ? { onOverflow: ctx.dropSlowSubscriber } : {}),
          pick: (event) => {
            if (event.redacted) return undefined; // its client was erased: the record is gone
            const record = recordOf(event.data);
            return access.sees(event) && matches(resource, record, args) ? record : undefined;
          },
        });
      },
      resolve: (record: unknown) => record,
    };
  if (names.update)
    resolvers.Mutation![names.update] = async (
      _: unknown,
      args: { id: string; input: Record<string, unknown> },
      ctx: GraphQLContext,
    ) => service(ctx).update(args.id, args.input);
  if (names.remove)
    resolvers.Mutation![names.remove] = async (_: unknown, args: { id: string }, ctx: GraphQLContext) => {
      await service(ctx).delete(args.id);
      return true;
    };
  if (names.move)
    resolvers.Mutation![names.move] = async (_: unknown, args: Record<string, string>, ctx: GraphQLContext) =>
      service(ctx).update(args.id!, { [lifecycle!.field]: args[lifecycle!.field] });
  if (lifecycle)
    // States travel as the enum's values (`WITH_AGENT`) and are kept as declared (`with_agent`).
    resolvers[names.stateType] = Object.fromEntries(Object.keys(lifecycle.states).map((s) => [upper(s), s]));
  const aliases = Object.entries(resource.graphql.aliases ?? {});
  if (aliases.length || current.length)
    resolvers[typeName] = Object.fromEntries([
      ...aliases.map(([alias, target]) => [alias, (record: ResourceRecord) => record[target]]),
      ...current.map((f) => [f.name, f.resolve]),
    ]);
  if (names.ofClient) {
    const filters = resource.filters.filter((f) => f !== resource.owner);
    resolvers.Client = {
      [names.ofClient]: (
        client: { id: string },
        args: Paging & Record<string, unknown>,
        ctx: GraphQLContext,
      ) => {
        const where = pick(args, filters);
        const records = ctx.records.load(
          resource.name,
          client.id,
          Object.keys(where).length ? where : undefined,
        );
        // At most the server's list limit when none is given: no caller reads a client's every record
        // at once, and the query's cost (cost.ts) prices the field at that limit.
        const { limit, offset } = listRange(
          { limit: args.limit ?? ctx.limits.maxListLimit, offset: args.offset },
          ctx,
        );
        const slice = (all: readonly ResourceRecord[]) =>
          offset === 0 && all.length <= limit ? all : all.slice(offset, offset + limit);
        return records instanceof Promise ? records.then(slice) : slice(records);
      },
    };
  }
  return resolvers as GraphQLResolvers;
}

const owned = new WeakMap<object, readonly Resource[]>();

/** The resources whose records a client owns, of the domain at hand. */
function ownedOf(ctx: GraphQLContext): readonly Resource[] {
  let found = owned.get(ctx.domain.resources);
  if (!found) {
    found = Object.values(ctx.domain.resources)
      .map((s) => s.resource)
      .filter(ownedByClient);
    owned.set(ctx.domain.resources, found);
  }
  return found;
}

/** The arguments given (not null) among `fields`. */
function pick(args: Record<string, unknown>, fields: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const f of fields) if (typeof args[f] === 'string') picked[f] = args[f] as string;
  return picked;
}

/** An event's record: its data without what events add (`previous`). */
function recordOf(data: Readonly<Record<string, unknown>>): ResourceRecord {
  const { [PREVIOUS_RECORD_FIELD]: _previous, ...record } = data;
  return record as ResourceRecord;
}

/** Whether a record has every value a subscription's arguments name. */
function matches(
  resource: Resource,
  record: ResourceRecord,
  args: Record<string, string | undefined>,
): boolean {
  for (const field of argsOf(resource)) {
    const wanted = args[field];
    if (wanted !== undefined && wanted !== null && record[field] !== wanted) return false;
  }
  return true;
}

/** What a subscription to a resource's changes may be narrowed by: its owner, groups and filters. */
function argsOf(resource: Resource): string[] {
  const owner = resource.owner && resource.owner !== 'id' ? [resource.owner] : [];
  return [...new Set([...owner, ...resource.filters])];
}

function movesOf(resource: Resource): string {
  return Object.entries(resource.lifecycle!.states)
    .map(([state, s]) =>
      s.to.length ? `${upper(state)} → ${s.to.map(upper).join(' | ')}` : `${upper(state)} is final`,
    )
    .join('; ');
}

/** The scope of every field a resource adds: `Type.field` → scope. */
export function resourceScopes(resource: Resource): Record<string, Scope> {
  const { scopes } = resource;
  const names = namesOf(resource);
  const entries: Record<string, Scope> = {
    [`Query.${names.one}`]: scopes.read,
    [`Query.${names.plural}`]: scopes.read,
    [`Mutation.${names.create}`]: scopes.write,
    [`Subscription.${names.change}`]: scopes.read,
  };
  for (const mutation of [names.update, names.remove, names.move])
    if (mutation) entries[`Mutation.${mutation}`] = scopes.write;
  if (names.created) entries[`Subscription.${names.created}`] = scopes.read;
  if (names.ofClient) entries[`Client.${names.ofClient}`] = scopes.read;
  return entries;
}
