/**
 * The MCP tools of every served resource, derived from its declaration with no per-resource code (as
 * REST's routes are, src/rest/routes/declared.ts): `list_<plural>`, `get_<name>`, `create_<name>`,
 * `update_<name>`, `delete_<name>` where the declaration allows the change, and `move_<name>` along a
 * life cycle. Each call goes through the service acting for the caller: the same scopes, ownership,
 * writes, events and webhooks as REST and GraphQL.
 */
import { z } from 'zod';
import type { Principal } from '../core/auth.js';
import type { WriteOptions } from '../core/domain/context.js';
import { SwitchboardError } from '../core/errors.js';
import type { Resource } from '../core/resources/define.js';
import { sortOf, whereOf } from '../core/resources/query.js';
import type { ResourceService } from '../core/resources/service.js';
import { wireOf } from '../core/resources/wire.js';
import type { Clock } from '../core/runtime.js';
import type { IdempotencyStore, ResourceRecord } from '../core/storage/index.js';
import { validate } from '../core/validation.js';
import { runIdempotent } from '../http/idempotency.js';
import { listQueryOf } from '../http/list-query.js';
import { type PageLimits, rangeOf } from '../http/pagination.js';
import { isAnswer, json } from '../http/responses.js';

/** What a tool tells a client it does (MCP `ToolAnnotations`). */
export interface McpToolAnnotations {
  readonly title: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** One tool: what `tools/list` shows, the scope it needs, and what a call does. */
export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema: Record<string, unknown>;
  readonly annotations: McpToolAnnotations;
  /** The scope a caller must hold to see and call it. */
  readonly scope: string;
  /** Whether it writes: charged to the write budget. */
  readonly writes: boolean;
  /** Runs it for the caller; arguments not of its shape are refused as `validation_failed`. */
  call(principal: Principal, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** What the tools are derived with: the API version records are shown in, and the page bounds. */
export interface McpToolOptions {
  readonly apiVersion: number;
  readonly limits?: PageLimits;
  /** Where creates keep their results for `idempotencyKey` (REST's `Idempotency-Key` store). */
  readonly idempotency?: { readonly store: IdempotencyStore; readonly clock: Clock };
}

const idempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/)
  .optional()
  .meta({
    description: 'Send one (e.g. a UUID) to make a retry return the first result instead of creating twice',
  });

const id = z.string().min(1).max(200);
const ifVersion = z.int().min(1).optional().meta({
  description: 'Change only if the record is still at this version (as If-Match): else precondition_failed',
});

/**
 * A record as agents see it in an API version: that version's wire shape without the fields the
 * declaration hides from MCP. Tools answer it, and `resources/read` too.
 */
export function agentPresenter(
  resource: Resource,
  apiVersion: number,
): (record: ResourceRecord) => Record<string, unknown> {
  const wire = wireOf(resource, apiVersion);
  const hidden = resource.mcp.hidden;
  return (record) => omit(wire.present(record), hidden);
}

/** The tools of one resource, in a stable order. */
export function resourceTools(service: ResourceService, options: McpToolOptions): McpTool[] {
  const resource = service.resource;
  const { name, plural, lifecycle, changes } = resource;
  const snake = (text: string) => text.replaceAll('-', '_');
  if (!resource.mcp.served) return [];
  const wire = wireOf(resource, options.apiVersion);
  const hidden = resource.mcp.hidden;
  // The record's JSON Schema (tools' outputSchema) is made here only: resources/read needs none.
  const record = jsonSchema(withoutHidden(wire.recordSchema, hidden), 'output');
  const shown = agentPresenter(resource, options.apiVersion);
  const describe = (what: string) => `${what} ${resource.description}`;
  const read = resource.scopes.read;
  const write = resource.scopes.write;
  const tools: McpTool[] = [];
  const acting = (principal: Principal) => service.for(principal);
  // A hidden field an agent sends is refused, not ignored: it would be written (or matched) unseen.
  const visibleOnly = <T extends Record<string, unknown>>(args: T): T => {
    const sent = hidden.filter((field) => field in args);
    if (sent.length)
      throw new SwitchboardError('validation_failed', `${sent.join(', ')}: not available to agents.`, {
        details: sent.map((field) => ({ field, code: 'unknown_field', message: 'Not available to agents.' })),
      });
    return args;
  };
  const createInput = jsonSchema(withoutHidden(wire.createInput, hidden), 'input');
  for (const field of hidden)
    if (requiredIn(wire.createInput, field))
      throw new Error(
        `${name}: mcp.hide hides "${field}", which a create must send: make it optional or nullable, or serve no tools (mcp: false).`,
      );

  const listArgs = listQueryOf(resource, options.limits, hidden);
  tools.push(
    tool({
      name: `list_${snake(plural)}`,
      title: `List ${words(plural)}`,
      description: describe(
        `Lists ${words(plural)}, a page at a time (page, limit); filters combine with AND; sort takes a field, "-" before it for descending.`,
      ),
      args: listArgs,
      output: {
        type: 'object',
        properties: {
          items: { type: 'array', items: record },
          page: { type: 'integer' },
          limit: { type: 'integer' },
          total: { type: 'integer' },
        },
        required: ['items', 'page', 'limit', 'total'],
      },
      hints: { readOnlyHint: true, idempotentHint: true },
      scope: read,
      async run(principal, args) {
        const page = await acting(principal).list({
          where: whereOf(resource, args),
          sort: sortOf(resource, args.sort),
          range: rangeOf(args),
        });
        return { items: page.items.map(shown), page: args.page, limit: args.limit, total: page.total };
      },
    }),
    tool({
      name: `get_${snake(name)}`,
      title: `Get a ${words(name)}`,
      description: describe(`Gets one ${words(name)} by id.`),
      args: z.object({ id }),
      output: record,
      hints: { readOnlyHint: true, idempotentHint: true },
      scope: read,
      run: async (principal, args) => shown(await acting(principal).get(args.id)),
    }),
    tool({
      name: `create_${snake(name)}`,
      title: `Create a ${words(name)}`,
      description: describe(
        `Creates a ${words(name)}${lifecycle ? ` (${lifecycle.initial} at first)` : ''}.`,
      ),
      // The fields are checked by the service, so that a bad one is a validation_failed result naming it.
      args: z.looseObject({ idempotencyKey }),
      input: withIdempotencyKey(createInput, options.idempotency !== undefined),
      output: record,
      hints: {},
      scope: write,
      async run(principal, { idempotencyKey: key, ...sent }) {
        const fields = visibleOnly(sent);
        const store = options.idempotency;
        if (key === undefined || !store) return shown(await acting(principal).create(wire.accept(fields)));
        // REST's Idempotency-Key semantics and store: the result is kept in the create's transaction.
        const answer = await runIdempotent({
          store: store.store,
          key: `mcp:${encodeURIComponent(principal.subject)}:create_${snake(name)}:${key}`,
          body: new TextEncoder().encode(JSON.stringify(fields)),
          now: store.clock.now(),
          run: async (idempotent) => {
            const respond = (r: Parameters<typeof shown>[0]) => json(shown(r));
            return respond(await acting(principal).create(wire.accept(fields), idempotent(respond)));
          },
        });
        const body = isAnswer(answer) ? (answer.body ?? 'null') : await answer.text();
        return JSON.parse(body) as Record<string, unknown>;
      },
    }),
  );
  if (changes.update && resource.writable.length) {
    const patch = (resource.patchInput as unknown as z.ZodObject).shape;
    const fields = Object.fromEntries(
      Object.entries(patch).filter(([f]) => f !== lifecycle?.field && !hidden.includes(f)),
    );
    tools.push(
      tool({
        name: `update_${snake(name)}`,
        title: `Update a ${words(name)}`,
        description: describe(
          `Changes some fields of a ${words(name)} (JSON Merge Patch: only the fields sent change; null clears one).`,
        ),
        args: z.looseObject({ id, ifVersion }),
        input: jsonSchema(z.strictObject({ id, ifVersion, ...fields }), 'input'),
        output: record,
        hints: { idempotentHint: true },
        scope: write,
        async run(principal, { id: target, ifVersion: version, ...changes }) {
          return shown(await acting(principal).update(target, visibleOnly(changes), writeOptions(version)));
        },
      }),
    );
  }
  if (changes.delete)
    tools.push(
      tool({
        name: `delete_${snake(name)}`,
        title: `Delete a ${words(name)}`,
        description: describe(`Deletes a ${words(name)} and the records it owns.`),
        args: z.object({ id, ifVersion }),
        output: {
          type: 'object',
          properties: { id: { type: 'string' }, deleted: { type: 'boolean' } },
          required: ['id', 'deleted'],
        },
        hints: { destructiveHint: true, idempotentHint: true },
        scope: write,
        async run(principal, args) {
          await acting(principal).delete(args.id, writeOptions(args.ifVersion));
          return { id: args.id, deleted: true };
        },
      }),
    );
  if (lifecycle && changes.update) {
    const states = Object.keys(lifecycle.states) as [string, ...string[]];
    const moves = Object.entries(lifecycle.states)
      .filter(([, s]) => s.to.length)
      .map(([state, s]) => `${state} → ${s.to.join(' | ')}`)
      .join('; ');
    // Reaching a state that leads nowhere cannot be undone.
    const final = states.filter((s) => lifecycle.states[s]!.to.length === 0);
    tools.push(
      tool({
        name: `move_${snake(name)}`,
        title: `Move a ${words(name)} along its life cycle`,
        description: describe(
          `Moves a ${words(name)} to another ${lifecycle.field} (${moves}); any other move is an invalid_transition.${final.length ? ` ${final.join(' and ')} cannot be left.` : ''}`,
        ),
        args: z.object({ id, [lifecycle.field]: z.enum(states), ifVersion }),
        output: record,
        hints: { destructiveHint: final.length > 0 },
        scope: write,
        async run(principal, args) {
          const target = args.id as string;
          const state = args[lifecycle.field];
          const options = writeOptions(args.ifVersion as number | undefined);
          return shown(await acting(principal).update(target, { [lifecycle.field]: state }, options));
        },
      }),
    );
  }
  return tools;
}

interface ToolSpec<A extends z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** How the arguments are read; a failure is invalid params. */
  readonly args: A;
  /** What `tools/list` shows of them, when not the JSON Schema of `args`. */
  readonly input?: Record<string, unknown>;
  readonly output: Record<string, unknown>;
  readonly hints: Partial<Pick<McpToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>;
  readonly scope: string;
  run(principal: Principal, args: z.output<A>): Promise<Record<string, unknown>>;
}

function tool<A extends z.ZodType>(spec: ToolSpec<A>): McpTool {
  const readOnly = spec.hints.readOnlyHint ?? false;
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: spec.input ?? jsonSchema(spec.args, 'input'),
    outputSchema: spec.output,
    annotations: {
      title: spec.title,
      readOnlyHint: readOnly,
      destructiveHint: spec.hints.destructiveHint ?? false,
      idempotentHint: spec.hints.idempotentHint ?? false,
      // Only this service's records: nothing outside it is reached.
      openWorldHint: false,
    },
    scope: spec.scope,
    writes: !readOnly,
    // Arguments not of the tool's shape are a tool error naming the fields (`validation_failed`), as
    // MCP 2025-11-25 asks: the model reads it and corrects its call, which a protocol error hides.
    call: (principal, args) => spec.run(principal, validate(spec.args, args)),
  };
}

/** A create's input schema with `idempotencyKey` beside the fields, when creates keep their results. */
function withIdempotencyKey(schema: Record<string, unknown>, offered: boolean): Record<string, unknown> {
  if (!offered) return schema;
  const properties = schema.properties as Record<string, unknown> | undefined;
  return { ...schema, properties: { ...properties, idempotencyKey: jsonSchema(idempotencyKey, 'input') } };
}

function writeOptions(version: number | undefined): WriteOptions {
  return version === undefined ? {} : { ifVersion: version };
}

/** `return-notes` → `return notes`. */
const words = (text: string): string => text.replaceAll('-', ' ');

/** A zod schema as the JSON Schema MCP clients read, inlined (no `$ref` to a shared component). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    reused: 'inline',
    cycles: 'ref',
  }) as Record<string, unknown>;
  const {
    $schema: _s,
    id: _id,
    $ref: ref,
    $defs: defs,
    ...rest
  } = json as Record<string, unknown> & {
    $ref?: string;
    $defs?: Record<string, Record<string, unknown>>;
  };
  // A schema with an `id` (a record's type name) comes back as a `$ref` to itself: tools want the object.
  const named = typeof ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(ref)?.[1] : undefined;
  if (named && defs?.[named]) {
    const { [named]: root, ...others } = defs;
    return { ...root, ...rest, ...(Object.keys(others).length ? { $defs: others } : {}) };
  }
  return { ...rest, ...(ref ? { $ref: ref } : {}), ...(defs ? { $defs: defs } : {}) };
}

/** An object schema without the hidden fields (those it has: a version may have renamed others). */
function withoutHidden<S extends z.ZodType>(schema: S, hidden: readonly string[]): S {
  if (!hidden.length || !(schema instanceof z.ZodObject)) return schema;
  const mask = Object.fromEntries(hidden.filter((f) => f in schema.shape).map((f) => [f, true as const]));
  return schema.omit(mask as Parameters<typeof schema.omit>[0]) as unknown as S;
}

/** Whether a create must send `field`: it refuses the field's absence. */
function requiredIn(schema: z.ZodType, field: string): boolean {
  return (
    schema instanceof z.ZodObject &&
    field in schema.shape &&
    !schema.shape[field]!.safeParse(undefined).success
  );
}

function omit(record: Record<string, unknown>, hidden: readonly string[]): Record<string, unknown> {
  if (!hidden.length) return record;
  const shown = { ...record };
  for (const field of hidden) delete shown[field];
  return shown;
}
