/**
 * A resource a host declares is served like a built-in under every authenticator (issue 29): the same
 * create, read, list, patch and delete over REST and the same GraphQL query and mutation succeed for a
 * built-in (clients) and for the host's warranty claims, whether the caller is trusted
 * (`trustEveryone`), holds an API key with the resource's scopes made through the admin API, or an
 * OAuth token. Their scopes and events are in the catalogues, read from the declarations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGraphQLHandler, createSchema, resourceSchema } from '../../src/graphql/index.js';
import {
  type Authenticate,
  clients,
  createDomain,
  createMemoryEventBus,
  createRuntime,
  createSwitchboard,
  defineResource,
  type Resource,
  type Switchboard,
  trustEveryone,
} from '../../src/index.js';
import { createRestHandler } from '../../src/rest/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createWebhooks } from '../../src/webhooks/index.js';
import {
  ADMIN_KEY,
  authorizationUrl,
  authorizeThroughPage,
  type Demo,
  openConsentPage,
  REDIRECT,
  signInOnPage,
  startDemo,
  tokenRequest,
} from '../oauth/support.js';

// What a host writes: one declaration, with no words for its scopes.
const claims = defineResource({
  name: 'warranty-claim',
  idPrefix: 'wcl',
  description: 'A claim under the warranty of something a client bought.',
  fields: {
    clientId: z.string(),
    product: z.string().trim().min(1).max(200),
    note: z.string().max(500).optional(),
  },
  relations: { clientId: 'client' },
  owner: 'clientId',
  scopes: { read: 'shop.claims.read', write: 'shop.claims.write' },
});

interface Case {
  readonly resource: Resource;
  input(ownerId: string, n: number): Record<string, unknown>;
  readonly patch: Record<string, unknown>;
}

const CASES: readonly Case[] = [
  {
    resource: clients,
    input: (_, n) => ({ name: 'Ada', email: `ada-${n}@example.com` }),
    patch: { city: 'London' },
  },
  {
    resource: claims,
    input: (ownerId) => ({ clientId: ownerId, product: 'Kettle' }),
    patch: { note: 'Lid' },
  },
];

/** A switchboard and how a caller of a resource authenticates on it. */
interface Caller {
  readonly switchboard: Switchboard;
  headers(resource: Resource): Promise<Record<string, string>>;
}

async function call(
  switchboard: Switchboard,
  headers: Record<string, string>,
  path: string,
  init: { method?: string; json?: unknown } = {},
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
): Promise<{ status: number; body: any }> {
  const response = await switchboard.fetch(
    new Request(`http://localhost${path}`, {
      method: init.method ?? 'GET',
      headers: { ...headers, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const admin = { authorization: `Bearer ${ADMIN_KEY}` };

/** What a caller may do with a resource, as answered over REST and GraphQL. */
async function exercise(caller: Caller, { resource, input, patch }: Case, n: number) {
  const { switchboard } = caller;
  const headers = await caller.headers(resource);
  const owner = await switchboard.domain.clients.create({ name: 'Owner', email: `owner-${n}@example.com` });
  const path = `/api/v1/${resource.plural}`;
  const made = await call(switchboard, headers, path, { method: 'POST', json: input(owner.id, n) });
  const id: string = made.body?.id;
  const read = await call(switchboard, headers, `${path}/${id}`);
  const listed = await call(switchboard, headers, path);
  const patched = await call(switchboard, headers, `${path}/${id}`, { method: 'PATCH', json: patch });
  const deleted = await call(switchboard, headers, `${path}/${id}`, { method: 'DELETE' });
  const gone = await call(switchboard, headers, `${path}/${id}`);

  const { type, pluralField } = resource.names;
  const mutation = await call(switchboard, headers, '/graphql', {
    method: 'POST',
    json: {
      query: `mutation($input: Create${type}Input!) { create${type}(input: $input) { id } }`,
      variables: { input: input(owner.id, n + 1) },
    },
  });
  const query = await call(switchboard, headers, '/graphql', {
    method: 'POST',
    json: { query: `{ ${pluralField} { id } }` },
  });
  const createdOverGraphQL: string | undefined = mutation.body.data?.[`create${type}`]?.id;
  return {
    rest: [made.status, read.status, listed.status, patched.status, deleted.status, gone.status],
    listedIt: listed.body?.items?.some((r: { id: string }) => r.id === id),
    patchedIt: Object.entries(patch).every(([k, v]) => patched.body?.[k] === v),
    graphqlErrors: [mutation.body.errors, query.body.errors],
    queriedIt: query.body.data?.[pluralField]?.some((r: { id: string }) => r.id === createdOverGraphQL),
  };
}

const LIKE_A_BUILT_IN = {
  rest: [201, 200, 200, 200, 204, 404],
  listedIt: true,
  patchedIt: true,
  graphqlErrors: [undefined, undefined],
  queriedIt: true,
};

const served = (authenticate?: Authenticate) =>
  createSwitchboard({
    resources: [claims],
    oauth: { adminApiKey: ADMIN_KEY },
    ...(authenticate ? { authenticate } : {}),
  });

const scopesOf = (resource: Resource) => [resource.scopes.read, resource.scopes.write];

const AUTHENTICATORS: readonly [string, () => Caller][] = [
  ['trustEveryone', () => ({ switchboard: served(trustEveryone), headers: async () => ({}) })],
  [
    "an API key with the resource's scopes, made through the admin API",
    () => {
      const switchboard = served();
      return {
        switchboard,
        async headers(resource) {
          const made = await call(switchboard, admin, '/oauth/api-keys', {
            method: 'POST',
            json: { name: `${resource.name} sync`, scopes: scopesOf(resource) },
          });
          expect(made.status).toBe(201);
          return { authorization: `Bearer ${made.body.key}` };
        },
      };
    },
  ],
  [
    "an OAuth access token with the resource's scopes (client credentials)",
    () => {
      const switchboard = served();
      return {
        switchboard,
        async headers(resource) {
          const registered = await call(switchboard, admin, '/oauth/clients', {
            method: 'POST',
            json: {
              name: `${resource.name} robot`,
              type: 'confidential',
              redirectUris: [],
              scopes: scopesOf(resource),
              grantTypes: ['client_credentials'],
            },
          });
          expect(registered.status).toBe(201);
          const basic = btoa(`${registered.body.id}:${registered.body.secret}`);
          const token = await switchboard.fetch(
            new Request('http://localhost/oauth/token', {
              method: 'POST',
              headers: {
                authorization: `Basic ${basic}`,
                'content-type': 'application/x-www-form-urlencoded',
              },
              body: new URLSearchParams({ grant_type: 'client_credentials' }),
            }),
          );
          const tokens = (await token.json()) as { access_token: string; scope: string };
          expect(tokens.scope.split(' ').sort()).toEqual(scopesOf(resource).sort());
          return { authorization: `Bearer ${tokens.access_token}` };
        },
      };
    },
  ],
];

describe.each(AUTHENTICATORS)('a host resource under %s', (_, makeCaller) => {
  let caller: Caller;
  beforeAll(() => {
    caller = makeCaller();
  });

  it.each(CASES.map((c, i) => [c.resource.name, c, i] as const))(
    '%s: created, read, listed, patched and deleted over REST; created and queried over GraphQL',
    async (_name, c, i) => {
      expect(await exercise(caller, c, i * 10)).toEqual(LIKE_A_BUILT_IN);
    },
  );
});

describe('trustEveryone on a building block used on its own', () => {
  it("holds a host resource's scopes on REST and GraphQL over a domain serving it", async () => {
    const storage = createMemoryStorage();
    const runtime = createRuntime({ storage });
    const domain = createDomain(runtime, { resources: [claims] });
    const owner = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const rest = createRestHandler(runtime, { domain, authenticate: trustEveryone });
    const made = await rest(
      new Request('http://localhost/api/v1/warranty-claims', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: owner.id, product: 'Kettle' }),
      }),
    );
    expect(made.status).toBe(201);
    const graphql = createGraphQLHandler(runtime, {
      domain,
      bus: createMemoryEventBus(),
      schema: createSchema([resourceSchema([claims])]),
      authenticate: trustEveryone,
    });
    const listed = await graphql(
      new Request('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ warrantyClaims { product } }' }),
      }),
    );
    expect(await listed.json()).toEqual({ data: { warrantyClaims: [{ product: 'Kettle' }] } });
  });
});

describe('the webhook event-type catalogue', () => {
  it('lists every event of every resource the switchboard serves, read from the model', async () => {
    const switchboard = createSwitchboard({ resources: [claims], authenticate: trustEveryone });
    const { status, body } = await call(switchboard, {}, '/api/v1/webhook-event-types');
    expect(status).toBe(200);
    const declared = Object.values(switchboard.domain.resources).flatMap((s) => s.resource.eventTypes);
    expect(declared).toEqual(expect.arrayContaining(['warranty-claim.created', 'booking.confirmed']));
    expect(body.items).toEqual(expect.arrayContaining(declared));
    for (const type of declared) expect(body.examples[type]).toEqual(expect.any(Object));
  });

  it('lists every built-in resource event on webhooks used on their own', () => {
    const webhooks = createWebhooks(createRuntime({ storage: createMemoryStorage() }), {
      authenticate: trustEveryone,
    });
    const { domain } = createSwitchboard({ webhooks: false, graphql: false, oauth: false });
    const declared = Object.values(domain.resources).flatMap((s) => s.resource.eventTypes);
    expect(webhooks.admin.eventTypes()).toEqual(expect.arrayContaining(declared));
  });

  it("lets an endpoint subscribe to a host resource's event", async () => {
    const switchboard = createSwitchboard({ resources: [claims], authenticate: trustEveryone });
    const made = await call(switchboard, {}, '/api/v1/webhook-endpoints', {
      method: 'POST',
      json: {
        url: 'https://claims.example.com/hooks',
        eventTypes: ['warranty-claim.created', 'return-note.*'],
      },
    });
    expect(made.status).toBe(201);
    expect(made.body.eventTypes).toEqual(['warranty-claim.created', 'return-note.*']);
  });
});

describe("a host resource's scopes on the consent page", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ resources: [claims] });
  });
  afterAll(() => demo.close());

  it('shows them in words derived from the declaration, and the token they give serves the resource', async () => {
    const app = await call(demo.switchboard, admin, '/oauth/clients', {
      method: 'POST',
      json: { name: 'Claims bot', type: 'public', redirectUris: [REDIRECT], scopes: scopesOf(claims) },
    });
    expect(app.status).toBe(201);
    const scope = scopesOf(claims).join(' ');
    const { url, verifier } = authorizationUrl(demo, { client_id: app.body.id, scope });
    const consent = await signInOnPage(await openConsentPage(url), demo.ada, demo.base);
    expect(consent.scopes).toEqual(scopesOf(claims));
    expect(consent.html).toContain('See warranty claims <code>shop.claims.read</code>');
    expect(consent.html).toContain(
      'Create, change and delete warranty claims <code>shop.claims.write</code>',
    );

    const callback = await authorizeThroughPage(url, demo.ada, demo.base);
    const { body } = await tokenRequest(
      demo,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: app.body.id,
      },
      null,
    );
    const mine = await call(
      demo.switchboard,
      { authorization: `Bearer ${body.access_token}` },
      '/api/v1/warranty-claims',
      { method: 'POST', json: { clientId: demo.ada.id, product: 'Toaster' } },
    );
    expect(mine.status).toBe(201);
  });
});
