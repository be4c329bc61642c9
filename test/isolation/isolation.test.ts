/**
 * Tenant isolation, generated from the resource declarations: for every resource a client owns —
 * built-in, or declared by the host (returns, and notes owned through their return) — and every
 * interface (REST v1 and v2, the typed client, GraphQL queries, nested fields and mutations,
 * subscriptions over WebSocket and SSE, MCP's tools, the admin routes and the console), Ada's user token never
 * reads, receives, creates into, changes or re-owns a record of Grace's. A resource or interface added
 * later is covered here without new code. On memory and on PostgreSQL.
 */
import { createClient as sseClient } from 'graphql-sse';
import { createClient as wsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSwitchboardClient, SwitchboardApiError } from '../../src/client/index.js';
import type { ResourceRecord } from '../../src/core/storage/index.js';
import type { ResourceService } from '../../src/index.js';
import { ADMIN_KEY } from '../oauth/support.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { until } from '../support/until.js';
import { type JsonSchema, sampleOf } from './samples.js';
import { HOST_RESOURCES, ownedResources, startWorld, type Tenant, type World } from './world.js';

const OWNED = ownedResources();
const VERSIONS = [1, 2] as const;
/** Ada's attempts on Grace's records get one of these, never a 2xx. */
const REFUSED = [403, 404, 422];

interface Adapter {
  readonly name: string;
  start(): Promise<World>;
  stop(): Promise<void>;
}

const adapters: Adapter[] = [
  { name: 'memory', start: () => startWorld(), stop: async () => {} },
  (() => {
    let db: TestDatabase | undefined;
    return {
      name: 'PostgreSQL',
      async start() {
        db = await createTestDatabase();
        return startWorld(await db.storage());
      },
      stop: async () => db?.drop(),
    };
  })(),
];

describe.each(adapters)('tenant isolation on $name', (adapter) => {
  let world: World;
  let ada: Tenant;
  let grace: Tenant;
  beforeAll(async () => {
    world = await adapter.start();
    ({ ada, grace } = world);
    world.demo.switchboard.start();
  }, 60_000);
  afterAll(async () => {
    await world?.demo.switchboard.close();
    await world?.close();
    await adapter.stop();
  });

  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${world.demo.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const idsIn = (body: Record<string, unknown>) => ((body.items ?? []) as { id: string }[]).map((r) => r.id);
  const mine = (tenant: Tenant, name: string) => tenant.records.get(name)!;
  /** Grace's record as stored, and every record of the resource: what must not change. */
  const snapshot = async (service: ResourceService) => ({
    grace: await service.find(mine(grace, service.resource.name).id),
    total: (await service.list({ range: { offset: 0, limit: 1 } })).total,
  });
  const tenantPlural = () => OWNED.find((s) => s.ownerPath!.length === 0)!.resource.plural;
  /** Whose the record is, asked of the server as each of them. */
  const ownerSeen = async (version: number, plural: string, id: string) => ({
    ada: (await call(ada.token, 'GET', `/api/v${version}/${plural}/${id}`)).status,
    grace: (await call(grace.token, 'GET', `/api/v${version}/${plural}/${id}`)).status,
  });

  for (const service of OWNED) {
    const { resource } = service;
    const { name, plural } = resource;
    const direct = service.ownerPath!.length === 1 && service.ownerPath![0]!.resource;
    // The model comes from a switchboard made at collection; records live in the world's.
    const live = () => world.services[name]!;

    describe(`${name}`, () => {
      it(`REST v1 and v2: Ada reads, lists and filters none of Grace's ${plural}`, async () => {
        const theirs = mine(grace, name);
        for (const v of VERSIONS) {
          const base = `/api/v${v}`;
          expect((await call(ada.token, 'GET', `${base}/${plural}/${theirs.id}`)).status).toBe(404);
          const all = await call(ada.token, 'GET', `${base}/${plural}?limit=100`);
          expect(all.status).toBe(200);
          expect(idsIn(all.body)).toContain(mine(ada, name).id);
          expect(idsIn(all.body)).not.toContain(theirs.id);
          const filters = [
            ...resource.filters.map((f) => [f, theirs[f]] as const),
            ...Object.entries(resource.search).map(([p, f]) => [p, theirs[f]] as const),
            ['id', theirs.id] as const,
          ];
          for (const [parameter, value] of filters) {
            if (typeof value !== 'string') continue;
            const found = await call(
              ada.token,
              'GET',
              `${base}/${plural}?${parameter}=${encodeURIComponent(value)}`,
            );
            expect(idsIn(found.body), `${plural}?${parameter}`).not.toContain(theirs.id);
          }
          if (direct) {
            for (const nested of [`/${tenantPlural()}/${grace.clientId}`, `/users/${grace.clientId}`])
              expect((await call(ada.token, 'GET', `${base}${nested}/${plural}`)).status).toBe(404);
          }
          for (const [field, segment] of Object.entries(resource.groupedBy)) {
            const found = await call(
              ada.token,
              'GET',
              `${base}/${segment}/${String(theirs[field])}/${plural}`,
            );
            expect(found.status).toBe(200);
            expect(idsIn(found.body)).not.toContain(theirs.id);
          }
        }
      });

      it(`the typed client: Ada gets none of Grace's ${plural}`, async () => {
        for (const version of VERSIONS) {
          const api = createSwitchboardClient({
            baseUrl: world.demo.base,
            version,
            token: ada.token,
            resources: HOST_RESOURCES,
          }) as unknown as Record<
            string,
            { get(id: string): Promise<unknown>; list(): Promise<{ items: { id: string }[] }> }
          >;
          const error = await api[plural]!.get(mine(grace, name).id).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(SwitchboardApiError);
          expect((error as SwitchboardApiError).status).toBe(404);
          const ids = (await api[plural]!.list()).items.map((r) => r.id);
          expect(ids).toContain(mine(ada, name).id);
          expect(ids).not.toContain(mine(grace, name).id);
        }
      });

      it(`REST v1 and v2: Ada changes, moves and deletes none of Grace's ${plural}`, async () => {
        const before = await snapshot(live());
        const theirs = before.grace!;
        for (const v of VERSIONS) {
          const path = `/api/v${v}/${plural}/${theirs.id}`;
          if (resource.changes.replace) {
            const body = writableOf(service, theirs);
            expect((await call(ada.token, 'PUT', path, body)).status).toBe(404);
          }
          if (resource.changes.update) {
            for (const patch of patchesOf(service, theirs))
              expect((await call(ada.token, 'PATCH', path, patch)).status, JSON.stringify(patch)).toBe(404);
          }
          if (resource.changes.delete) expect((await call(ada.token, 'DELETE', path)).status).toBe(404);
        }
        expect(await snapshot(live())).toEqual(before);
      });

      it(`REST v1 and v2: Ada creates nothing into Grace's records, and what she creates is hers`, async () => {
        const before = await snapshot(live());
        for (const v of VERSIONS) {
          const attempts = await createAttempts(v, service);
          for (const { path, body } of attempts) {
            const answer = await call(ada.token, 'POST', `/api/v${v}${path}`, body);
            if (answer.status === 201) {
              // Accepted only as Ada's own: Ada reads it, Grace does not.
              const id = String(answer.body.id);
              expect(await ownerSeen(v, plural, id), `${path} ${JSON.stringify(body)}`).toEqual({
                ada: 200,
                grace: 404,
              });
              await live()
                .delete(id)
                .catch(() => undefined);
            } else {
              expect(REFUSED, `${path} ${JSON.stringify(body)}: ${answer.text}`).toContain(answer.status);
            }
          }
        }
        const after = await snapshot(live());
        expect(after.grace).toEqual(before.grace);
        if (!resource.changes.delete) return;
        expect(after.total).toBe(before.total);
      });

      const reowning = Object.entries(resource.relations).filter(
        ([field, target]) =>
          resource.writable.includes(field) && OWNED.some((s) => s.resource.name === target),
      );
      if (resource.changes.update && reowning.length)
        it(`REST v1 and v2: Ada cannot hand her ${name} to Grace (${reowning.map(([f]) => f).join(', ')})`, async () => {
          const hers = await live().get(mine(ada, name).id);
          for (const v of VERSIONS)
            for (const [field, target] of reowning) {
              const path = `/api/v${v}/${plural}/${hers.id}`;
              const patch = await call(ada.token, 'PATCH', path, { [field]: mine(grace, target).id });
              expect(REFUSED, patch.text).toContain(patch.status);
              if (resource.changes.replace) {
                const body = writableOf(service, hers);
                const put = await call(ada.token, 'PUT', path, { ...body, [field]: mine(grace, target).id });
                expect(REFUSED, put.text).toContain(put.status);
              }
            }
          expect(await live().get(hers.id)).toEqual(hers);
          expect(await ownerSeen(1, plural, hers.id)).toEqual({ ada: 200, grace: 404 });
        });

      it(`GraphQL: Ada reads none of Grace's ${plural}, nested fields included`, async () => {
        const names = await graphqlNames(resource.typeName);
        const theirs = mine(grace, name);
        if (names.one) {
          const one = await graphql(ada.token, `query($id: ID!) { ${names.one}(id: $id) { id } }`, {
            id: theirs.id,
          });
          expect(one.data?.[names.one]).toBeNull();
        }
        if (names.list) {
          const args = names.list.required
            .map((a) => `${a}: ${JSON.stringify(String(theirs[a]))}`)
            .join(', ');
          const all = await graphql(ada.token, `{ ${names.list.name}${args ? `(${args})` : ''} { id } }`);
          expect(all.errors).toBeUndefined();
          expect(JSON.stringify(all.data)).not.toContain(theirs.id);
        }
        for (const [type, field] of names.nested) {
          const lists = await graphqlNames(type);
          const query = `{ ${lists.list!.name} { id ${field} { id } } }`;
          const answer = await graphql(ada.token, query);
          expect(answer.errors, query).toBeUndefined();
          expect(JSON.stringify(answer.data), query).not.toContain(theirs.id);
        }
      });

      it(`GraphQL: Ada changes, moves, deletes and creates into none of Grace's ${plural}`, async () => {
        const before = await snapshot(live());
        const theirs = before.grace!;
        const names = await graphqlNames(resource.typeName);
        const refused = async (query: string, variables: Record<string, unknown>) => {
          const answer = await graphql(ada.token, query, variables);
          expect(answer.errors?.length, `${query} ${JSON.stringify(variables)}`).toBeGreaterThan(0);
          expect(answer.data?.[Object.keys(answer.data ?? {})[0] ?? ''] ?? null).toBeNull();
        };
        if (names.update) {
          const field = resource.writable.find((f) => typeof theirs[f] === 'string');
          if (field)
            await refused(
              `mutation($id: ID!, $input: ${names.update.input}!) { ${names.update.name}(id: $id, input: $input) { id } }`,
              {
                id: theirs.id,
                input: { [field]: theirs[field] },
              },
            );
        }
        if (names.move) {
          const to = nextState(service, theirs);
          if (to)
            await refused(
              `mutation($id: ID!) { ${names.move.name}(id: $id, ${names.move.arg}: ${upper(to)}) { id } }`,
              {
                id: theirs.id,
              },
            );
        }
        if (names.remove) await refused(`mutation($id: ID!) { ${names.remove}(id: $id) }`, { id: theirs.id });
        if (names.create) {
          for (const [field, target] of ownedRelations(service)) {
            const input = { ...world.sample(name, ada), [field]: mine(grace, target).id };
            await refused(
              `mutation($input: ${names.create.input}!) { ${names.create.name}(input: $input) { id } }`,
              {
                input,
              },
            );
          }
        }
        expect(await snapshot(live())).toEqual(before);
      });

      if (resource.mcp.served)
        it(`MCP: Ada's agent reads, changes, moves, deletes and creates into none of Grace's ${plural}`, async () => {
          const before = await snapshot(live());
          const theirs = before.grace!;
          const tools = await mcpToolsOf(ada.token, resource.name, resource.plural);
          expect(tools.length).toBeGreaterThan(0);
          for (const tool of tools) {
            const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
            const required = (tool.inputSchema.required ?? []) as string[];
            if ('id' in properties) {
              // get, update, delete, move: naming Grace's record is as naming none.
              const args: Record<string, unknown> = { id: theirs.id };
              for (const field of required.filter((f) => f !== 'id'))
                args[field] =
                  field === resource.lifecycle?.field
                    ? (nextState(service, theirs) ?? theirs[field])
                    : sampleOf(properties[field]!, ada.tag, () => ({}), field);
              const patch = patchesOf(service, theirs)[0];
              if (!required.length || required.every((f) => f === 'id'))
                for (const [field, value] of Object.entries(patch ?? {}))
                  if (field in properties) args[field] = value;
              const answer = await mcpCall(ada.token, tool.name, args);
              expect(answer.isError, `${tool.name} ${JSON.stringify(args)}`).toBe(true);
              expect(answer.text, tool.name).toMatch(/^not_found: /);
            } else if ('page' in properties) {
              const all = await mcpCall(ada.token, tool.name, { limit: 100 });
              const ids = JSON.stringify(all.structured);
              expect(ids).toContain(mine(ada, name).id);
              expect(ids).not.toContain(theirs.id);
              for (const field of Object.keys(properties)) {
                const value = theirs[resource.search[field] ?? field];
                if (field === 'id' || typeof value !== 'string') continue;
                const found = await mcpCall(ada.token, tool.name, { [field]: value, limit: 100 });
                expect(JSON.stringify(found.structured), `${tool.name} ${field}`).not.toContain(theirs.id);
              }
            } else {
              // A create naming one of Grace's records in any reference: refused, or made Ada's own.
              for (const [field, target] of ownedRelations(service)) {
                if (!(field in properties)) continue;
                const args = { ...world.sample(name, ada), [field]: mine(grace, target).id };
                const answer = await mcpCall(ada.token, tool.name, args);
                if (answer.isError) continue;
                const id = String(answer.structured?.id);
                expect(await ownerSeen(1, plural, id), `${tool.name} ${JSON.stringify(args)}`).toEqual({
                  ada: 200,
                  grace: 404,
                });
                await live()
                  .delete(id)
                  .catch(() => undefined);
              }
            }
          }
          // Grace's record by its resource URI: as unknown as one that does not exist.
          const templates = await call(ada.token, 'POST', '/mcp', {
            jsonrpc: '2.0',
            id: 1,
            method: 'resources/templates/list',
          });
          const { resourceTemplates } = templates.body.result as {
            resourceTemplates: { uriTemplate: string }[];
          };
          const template = resourceTemplates.find((t) => t.uriTemplate.endsWith(`/${plural}/{id}`));
          expect(template, plural).toBeDefined();
          const read = (id: string) =>
            call(ada.token, 'POST', '/mcp', {
              jsonrpc: '2.0',
              id: 1,
              method: 'resources/read',
              params: { uri: template!.uriTemplate.replace('{id}', id) },
            });
          expect((await read(mine(ada, name).id)).body.result).toBeDefined();
          expect((await read(theirs.id)).body.error).toMatchObject({ code: -32002 });
          const after = await snapshot(live());
          expect(after.grace).toEqual(before.grace);
        });

      if (resource.mcp.served)
        it(`MCP's change stream: Ada's agent is told of none of Grace's ${plural}`, async () => {
          const seen = { ada: [] as string[], witness: [] as string[] };
          const stops = [listenOverMcp(ada.token, seen.ada), listenOverMcp(ADMIN_KEY, seen.witness)];
          try {
            await until(() => seen.ada.length > 0 && seen.witness.length > 0, 'both streams to open');
            const changed = await changeOf(live(), grace);
            await until(() => seen.witness.join('').includes(changed), 'the admin to be told of the change');
            await new Promise((r) => setTimeout(r, 200));
            expect(seen.ada.join('')).not.toContain(changed);
          } finally {
            for (const stop of stops) stop();
          }
        });

      it(`subscriptions over WebSocket and SSE: Ada receives none of Grace's ${plural}`, async () => {
        const names = await graphqlNames(resource.typeName);
        const theirs = mine(grace, name);
        for (const subscription of names.subscriptions) {
          const args = subscription.required
            .map((a) => `${a}: ${JSON.stringify(String(theirs[a]))}`)
            .join(', ');
          const query = `subscription { ${subscription.name}${args ? `(${args})` : ''} ${subscription.selection} }`;
          const seen = { ws: [] as string[], sse: [] as string[], witness: [] as string[] };
          const sockets = world.demo.switchboard.graphqlWebSocket!;
          // Nothing else in this file subscribes: the last subscription's sockets are gone first.
          await until(() => sockets.subscriptions().subscribers === 0, 'the last subscriptions to end');
          const stops = [
            listenOverWebSocket(ada.token, query, seen.ws),
            listenOverSse(ada.token, query, seen.sse),
            listenOverWebSocket(ADMIN_KEY, query, seen.witness),
          ];
          await until(() => sockets.subscriptions().subscribers === 2, 'both WebSocket subscriptions');
          await new Promise((r) => setTimeout(r, 150));
          // Grace's record changes (or a new one of hers appears): the admin, watching too, sees it.
          const changed = await changeOf(live(), grace);
          await until(
            () => seen.witness.some((text) => text.includes(changed)),
            'the admin to see the change',
          );
          await new Promise((r) => setTimeout(r, 200));
          for (const stop of stops) stop();
          expect(seen.ws.join(''), query).not.toContain(changed);
          expect(seen.sse.join(''), query).not.toContain(changed);
          expect(
            [...seen.ws, ...seen.sse].filter((t) => t.startsWith('error')),
            query,
          ).toEqual([]);
        }
      });
    });
  }

  it("a user's token reaches no admin route and no console page", async () => {
    for (const path of [
      '/api/v1/webhook-endpoints',
      '/api/v2/webhook-endpoints',
      '/oauth/clients',
      '/oauth/api-keys',
      '/oauth/grants',
    ])
      expect([401, 403], path).toContain((await call(ada.token, 'GET', path)).status);
    const created = await call(ada.token, 'POST', '/api/v1/webhook-endpoints', {
      url: 'https://example.com/hooks',
      eventTypes: ['*'],
    });
    expect([401, 403]).toContain(created.status);
    for (const path of ['/console', '/console/webhooks', '/console/access']) {
      const page = await fetch(`${world.demo.base}${path}`, {
        headers: { authorization: `Bearer ${ada.token}` },
        redirect: 'manual',
      });
      const html = await page.text();
      expect(page.status, path).not.toBe(200);
      expect(html).not.toContain(mine(grace, 'order').id);
    }
  });

  // --- helpers that read the model and the published schemas, never a resource by name ---

  /** A valid replacement of the record: its writable fields (unset ones sent as null where allowed). */
  function writableOf(service: ResourceService, record: ResourceRecord): Record<string, unknown> {
    const { resource } = service;
    const all = Object.fromEntries(resource.writable.map((f) => [f, record[f]]));
    if (resource.replaceInput.safeParse(all).success) return all;
    return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== null));
  }

  /** The patches of a change: each writable text field, and the next life-cycle state. */
  function patchesOf(service: ResourceService, record: ResourceRecord): Record<string, unknown>[] {
    const patches: Record<string, unknown>[] = [];
    const field = service.resource.writable.find((f) => typeof record[f] === 'string');
    if (field) patches.push({ [field]: `${String(record[field])}!` });
    const to = nextState(service, record);
    if (to) patches.push({ [service.resource.lifecycle!.field]: to });
    return patches;
  }

  function nextState(service: ResourceService, record: ResourceRecord): string | undefined {
    const lifecycle = service.resource.lifecycle;
    return lifecycle?.states[String(record[lifecycle.field])]?.to[0];
  }

  /** References to records a client owns: what Ada might name of Grace's. */
  function ownedRelations(service: ResourceService): [string, string][] {
    return Object.entries(service.resource.relations).filter(([, target]) =>
      OWNED.some((s) => s.resource.name === target),
    );
  }

  const documents = new Map<number, Promise<Record<string, unknown>>>();
  /** Every way Ada might create a record into Grace's, in the request shapes version `v` documents. */
  async function createAttempts(v: number, service: ResourceService) {
    const { resource } = service;
    documents.set(
      v,
      documents.get(v) ?? call(ADMIN_KEY, 'GET', `/api/v${v}/openapi.json`).then((a) => a.body),
    );
    const document = (await documents.get(v)!) as { paths: Record<string, Record<string, JsonSchema>> };
    const resolve = (ref: string): JsonSchema =>
      ref
        .split('/')
        .slice(1)
        .reduce<JsonSchema>((node, key) => node[key] as JsonSchema, document as unknown as JsonSchema);
    const bodyOf = (path: string, tenant: Tenant): Record<string, unknown> | undefined => {
      const operation = document.paths[path]?.post as {
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
      };
      const schema = operation?.requestBody?.content['application/json']?.schema;
      if (!schema) return undefined;
      const body = sampleOf(schema, tenant.tag, resolve) as Record<string, unknown>;
      for (const [field, target] of Object.entries(resource.relations))
        if (field in body && tenant.records.has(target)) body[field] = tenant.records.get(target)!.id;
      return body;
    };
    const attempts: { path: string; body: unknown }[] = [];
    const own = bodyOf(`/${resource.plural}`, ada);
    if (own) {
      // Naming one of Grace's records in any reference (her client, her conversation, her return …).
      for (const [field, target] of ownedRelations(service))
        attempts.push({ path: `/${resource.plural}`, body: { ...own, [field]: mine(grace, target).id } });
      // Grace's values with the optional references left out: what a `prepare` joins by value (her open
      // conversation with the same chatbot and visitor).
      const hers = bodyOf(`/${resource.plural}`, grace)!;
      for (const [field, target] of ownedRelations(service))
        if (!(field in own) || hers[field] === mine(grace, target).id) {
          const { [field]: _left, ...rest } = hers;
          const required = Object.fromEntries(
            ownedRelations(service)
              .filter(([f]) => f in own && f !== field)
              .map(([f]) => [f, own[f]]),
          );
          attempts.push({ path: `/${resource.plural}`, body: { ...rest, ...required } });
        }
      if (service.ownerPath!.length === 0) attempts.push({ path: `/${resource.plural}`, body: own });
    }
    if (service.ownerPath!.length === 1) {
      const path = `/${tenantPlural()}/${grace.clientId}/${resource.plural}`;
      const body = bodyOf(`/${tenantPlural()}/{id}/${resource.plural}`, ada);
      if (body) attempts.push({ path, body });
    }
    for (const [field, segment] of Object.entries(resource.groupedBy)) {
      const template = Object.keys(document.paths).find(
        (p) => p.startsWith(`/${segment}/{`) && p.endsWith(`/${resource.plural}`),
      );
      const body = template && bodyOf(template, grace);
      if (!body) continue;
      for (const [f] of ownedRelations(service)) delete body[f];
      attempts.push({
        path: `/${segment}/${String(mine(grace, resource.name)[field])}/${resource.plural}`,
        body,
      });
    }
    return attempts;
  }

  /** A change Grace's records see (a new record of hers, or her client renamed); resolves with text it carries. */
  async function changeOf(service: ResourceService, tenant: Tenant): Promise<string> {
    if (service.ownerPath!.length === 0) {
      const field = service.resource.writable.find(
        (f) => typeof mine(tenant, service.resource.name)[f] === 'string',
      )!;
      const text = `${tenant.tag}-renamed-${Date.now()}`;
      await service.update(tenant.clientId, { [field]: text });
      return tenant.clientId;
    }
    const created = await service.create(world.sample(service.resource.name, tenant));
    return created.id;
  }

  type McpTool = { name: string; inputSchema: JsonSchema };
  /** The MCP tools a caller sees of a resource: those named for it, by the tools' naming rule. */
  async function mcpToolsOf(token: string, name: string, plural: string): Promise<McpTool[]> {
    const answer = await call(token, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const { tools } = answer.body.result as { tools: McpTool[] };
    const suffixes = [name, plural].map((n) => `_${n.replaceAll('-', '_')}`);
    return tools.filter((t) =>
      suffixes.some((suffix) => t.name.endsWith(suffix) && !t.name.slice(0, -suffix.length).includes('_')),
    );
  }

  async function mcpCall(token: string, tool: string, args: Record<string, unknown>) {
    const answer = await call(token, 'POST', '/mcp', {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: args },
    });
    const result = answer.body.result as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: Record<string, unknown>;
    };
    expect(result, answer.text).toBeDefined();
    return {
      isError: result.isError === true,
      text: result.content[0]!.text,
      structured: result.structuredContent,
    };
  }

  async function graphql(token: string, query: string, variables: Record<string, unknown> = {}) {
    const answer = await call(token, 'POST', '/graphql', { query, variables });
    return answer.body as { data?: Record<string, unknown> | null; errors?: { message: string }[] };
  }

  let schema: Promise<IntrospectedSchema> | undefined;
  /** The fields the GraphQL schema offers for a type, found by their types rather than their names. */
  async function graphqlNames(typeName: string) {
    schema ??= graphql(ADMIN_KEY, INTROSPECTION).then(
      (a) => (a.data as { __schema: IntrospectedSchema }).__schema,
    );
    const { types } = await schema;
    const fieldsOf = (type: string) => types.find((t) => t.name === type)?.fields ?? [];
    const returns = (f: IntrospectedField, list: boolean, name = typeName) =>
      named(f.type) === name && isList(f.type) === list;
    const required = (f: IntrospectedField) =>
      f.args.filter((a) => a.type.kind === 'NON_NULL').map((a) => a.name);
    const argNamed = (f: IntrospectedField, arg: string) => f.args.find((a) => a.name === arg);
    const query = fieldsOf('Query');
    const mutation = fieldsOf('Mutation');
    const one = query.find((f) => returns(f, false) && argNamed(f, 'id'));
    const list = query.find((f) => returns(f, true));
    const create = mutation.find((f) => returns(f, false) && argNamed(f, 'input') && !argNamed(f, 'id'));
    const update = mutation.find((f) => returns(f, false) && argNamed(f, 'input') && argNamed(f, 'id'));
    const move = mutation.find(
      (f) => returns(f, false) && argNamed(f, 'id') && f.args.length === 2 && !argNamed(f, 'input'),
    );
    const remove = mutation.find(
      (f) =>
        named(f.type) === 'Boolean' &&
        f.args.length === 1 &&
        argNamed(f, 'id') &&
        f.name.toLowerCase().endsWith(typeName.toLowerCase()),
    );
    const change = `${typeName}Change`;
    const changeField = fieldsOf(change).find((f) => named(f.type) === typeName)?.name;
    const subscriptions = fieldsOf('Subscription')
      .filter((f) => named(f.type) === typeName || named(f.type) === change)
      .map((f) => ({
        name: f.name,
        required: required(f),
        selection: named(f.type) === change ? `{ event ${changeField} { id } }` : '{ id }',
      }));
    const nested = types
      .filter((t) => t.fields && !['Query', 'Mutation', 'Subscription'].includes(t.name))
      .flatMap((t) => (t.fields ?? []).filter((f) => returns(f, true)).map((f) => [t.name, f.name] as const))
      .filter(([type]) => fieldsOf('Query').some((f) => named(f.type) === type && isList(f.type)));
    const inputOf = (f: IntrospectedField | undefined) => (f ? named(argNamed(f, 'input')!.type) : '');
    return {
      one: one?.name,
      list: list && { name: list.name, required: required(list) },
      create: create && { name: create.name, input: inputOf(create) },
      update: update && { name: update.name, input: inputOf(update) },
      move: move && { name: move.name, arg: move.args.find((a) => a.name !== 'id')!.name },
      remove: remove?.name,
      subscriptions,
      nested,
    };
  }

  function listenOverWebSocket(token: string, query: string, into: string[]): () => void {
    const client = wsClient({
      url: `${world.demo.base.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    const stop = client.subscribe(
      { query },
      {
        next: (value) => into.push(JSON.stringify(value)),
        error: (error) => into.push(`error ${JSON.stringify(error)}`),
        complete: () => {},
      },
    );
    return () => {
      stop();
      void client.dispose();
    };
  }

  /** Reads the MCP change stream (`GET /mcp`) of a caller into `into`, chunk by chunk, until stopped. */
  function listenOverMcp(token: string, into: string[]): () => void {
    const abort = new AbortController();
    void fetch(`${world.demo.base}/mcp`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: abort.signal,
    })
      .then(async (response) => {
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        for (let step = await reader.read(); !step.done; step = await reader.read())
          into.push(decoder.decode(step.value));
      })
      .catch(() => {});
    return () => abort.abort();
  }

  function listenOverSse(token: string, query: string, into: string[]): () => void {
    const client = sseClient({
      url: `${world.demo.base}/graphql`,
      retryAttempts: 0,
      headers: { authorization: `Bearer ${token}` },
    });
    const stop = client.subscribe(
      { query },
      {
        next: (value) => into.push(JSON.stringify(value)),
        error: (error) => into.push(`error ${String(error)}`),
        complete: () => {},
      },
    );
    return () => {
      stop();
      client.dispose();
    };
  }
});

const upper = (state: string) => state.toUpperCase().replace(/-/g, '_');

interface IntrospectedType {
  kind: string;
  name: string | null;
  ofType: IntrospectedType | null;
}
interface IntrospectedField {
  name: string;
  type: IntrospectedType;
  args: { name: string; type: IntrospectedType }[];
}
interface IntrospectedSchema {
  types: { name: string; fields: IntrospectedField[] | null }[];
}

function named(type: IntrospectedType): string {
  return type.name ?? named(type.ofType!);
}
function isList(type: IntrospectedType): boolean {
  return type.kind === 'LIST' || (type.ofType !== null && isList(type.ofType));
}

const TYPE = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const INTROSPECTION = `{ __schema { types { name fields { name type { ${TYPE} } args { name type { ${TYPE} } } } } } }`;
