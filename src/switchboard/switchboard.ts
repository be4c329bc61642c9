import { type ConsoleConfig, type ConsoleHandler, createConsole } from '../console/index.js';
import { type Authenticate, resolveTrust, type ScopeCatalogue } from '../core/auth.js';
import { createDomain, type Domain } from '../core/domain/index.js';
import { renderProblemPage } from '../core/error-catalogue.js';
import { SwitchboardError } from '../core/errors.js';
import { createMemoryEventBus, type EventBus } from '../core/event-bus.js';
import { createEventFeed, type EventFeedConfig } from '../core/event-feed/index.js';
import { createOutboxRelay, type OutboxRelay } from '../core/outbox-relay.js';
import { BUILT_IN_RESOURCES, CORE_RESOURCES } from '../core/resources/built-ins/index.js';
import type { Resource } from '../core/resources/define.js';
import { scopeCatalogue } from '../core/resources/scopes.js';
import { latestApiVersion } from '../core/resources/wire.js';
import { type Clock, createRuntime, type IdGenerator, type Logger, silentLogger } from '../core/runtime.js';
import type { Storage } from '../core/storage/index.js';
import { createTelemetry, type TelemetryOptions, tracedStorage } from '../core/telemetry/index.js';
import { eventFeedSchema } from '../graphql/event-feed.js';
import {
  createGraphQLHandler,
  createGraphQLWebSocketServer,
  createSchema,
  type GraphQLConfig,
  type GraphQLWebSocketServer,
  resourceSchema,
} from '../graphql/index.js';
import { jsonResponse } from '../http/json.js';
import { problemResponse } from '../http/problem.js';
import { createRateLimiter, type RateLimitConfig } from '../http/rate-limit.js';
import { type ConnectionInfo, type RequestContext, requestContext } from '../http/request-context.js';
import { instrumentFetch } from '../http/request-telemetry.js';
import { pathnameOf } from '../http/url.js';
import {
  assetResponse,
  brandingOf,
  type Look,
  type LookOptions,
  lookCsp,
  resolveLook,
} from '../internal/look/index.js';
import { createMcpHandler, type McpConfig } from '../mcp/index.js';
import { mcpToolNames } from '../mcp/tool-names.js';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  createGuard,
  OAUTH_ADMIN_SCOPES,
  type OAuthConfig,
} from '../oauth/index.js';
import { createRestVersions, type RestConfig } from '../rest/index.js';
import { eventFeedRoutes } from '../rest/routes/events.js';
import { createMemoryStorage } from '../storage/memory/index.js';
import {
  createWebhooks,
  WEBHOOK_ADMIN_SCOPES,
  WEBHOOK_KEYS_PATH,
  type Webhooks,
  type WebhooksConfig,
} from '../webhooks/index.js';
import { WEBHOOK_READ_SCOPE } from '../webhooks/scopes.js';
import { observeState } from './observed-state.js';
import { type FetchHandler, type Mount, prefixRouter } from './prefix-router.js';
import { webhookAdminSchema } from './webhooks-in-graphql.js';

export type { FetchHandler } from './prefix-router.js';

/**
 * Options of {@link createSwitchboard}: the runtime (storage, clock, ids, logger, telemetry, fetch) and
 * shared services (bus, authentication) at the top, given once to every block; then the settings of
 * each interface, which `false` leaves out. A sub-config holds settings only (`WebhooksConfig`,
 * `OAuthConfig`, `GraphQLConfig`, `RestConfig`, `ConsoleConfig`, `RateLimitConfig`): naming a
 * dependency there does not compile, so nothing given is ignored.
 */
export interface SwitchboardOptions {
  /** Where records live; in-memory when omitted. */
  readonly storage?: Storage;
  /**
   * Live event fan-out; in-process when omitted. Pass a cross-instance bus when running many instances:
   * with one given, the guard also keeps the credentials it found valid between requests, since every
   * revocation is announced on it (docs/oauth.md).
   */
  readonly bus?: EventBus;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly logger?: Logger;
  /**
   * Outbound HTTP, for webhook attempts. Default: the runtime's own, looked up when a request is sent
   * (`node:http` with keep-alive connections where the runtime has it, else its `fetch`).
   */
  readonly fetch?: typeof fetch;
  /**
   * The host's name, logo and accent colour on every page (sign-in and consent, the console, the REST
   * reference, problem pages, GraphiQL's header), e.g. `{ name: 'Acme support', accent: '#7b2cbf' }`.
   */
  readonly look?: LookOptions;
  /**
   * A business's own records, declared with `defineResource`: stored, served over REST and GraphQL,
   * announced as events to webhooks and subscriptions, scope-checked (docs/resources.md). Served
   * beside the built-in conversations and bookings.
   */
  readonly resources?: readonly Resource[];
  /**
   * Serve the built-in bookings (default true). Clients, orders, conversations and messages are always
   * served: other records refer to them.
   */
  readonly builtInResources?: boolean;
  /**
   * How callers are identified on every interface. Default: the OAuth guard (`Authorization: Bearer`
   * with an OAuth access token or an `sbk_` API key). Pass `trustEveryone` only behind a gateway that
   * authenticates for you.
   */
  readonly authenticate?: Authenticate;
  /**
   * The OAuth 2.0 authorization server (`switchboard-kit/oauth`) on `/oauth` and `/.well-known`:
   * `signIn` (behind `signInLockout`, shared by every instance on the storage), `issuer`, `adminApiKey`,
   * lifetimes, ID tokens. Storage, clock, ids, logger, budgets and `authenticate` come from the
   * switchboard. `false` leaves the endpoints out; the guard still checks API keys and tokens.
   */
  readonly oauth?: OAuthConfig | false;
  /** How often the outbox relay polls for events left by crashed or other instances (default 1 s). */
  readonly relayIntervalMs?: number;
  /** How often `storage.sweep` deletes expired records, when the adapter has it (default 5 minutes). */
  readonly sweepIntervalMs?: number;
  /**
   * The REST interface (`switchboard-kit/rest`): `/api/v1` by default; pass `versions` to mount several
   * (e.g. a deprecated v1 beside v2), `routes` to add routes, `false` to leave it out.
   */
  readonly rest?: RestConfig | false;
  /**
   * Signed webhooks (`switchboard-kit/webhooks`): admin routes on `/api/v1/webhook-endpoints`, a
   * delivery per matching endpoint for every committed event, and the retry dispatcher started by
   * `start()`. Pass `outbound.resolveHost` (from `switchboard-kit/node` on Node) so receiver host names
   * can be checked; `false` leaves webhooks out. The runtime (outbound `fetch` included) and
   * `authenticate` come from the switchboard.
   */
  readonly webhooks?: WebhooksConfig | false;
  /**
   * The GraphQL interface (`switchboard-kit/graphql`) on `/graphql`: schema, introspection, limits;
   * `false` to leave it out. Domain, bus, `authenticate` and budgets come from the switchboard.
   */
  readonly graphql?: GraphQLConfig | false;
  /**
   * The operator console on `/console` (docs/console.md): webhooks, API keys, OAuth clients, grants
   * and live activity, behind a sign-in with an admin API key (or a user account `isAdmin` accepts);
   * users see and revoke the applications they authorized. Sessions are kept in the storage, so a
   * sign-out ends them on every instance. Give `secret` when several instances serve it. `false`
   * leaves it out.
   */
  readonly console?: ConsoleConfig | false;
  /**
   * Request budgets per caller: REST reads and writes apart (default 1,000 and 250 per 10 s), GraphQL
   * queries and mutations by the fields they select (50,000 per 10 s, over HTTP and WebSocket), token
   * requests (60 a minute per client), failed client authentications (20 a minute per address),
   * WebSocket subscriptions (60 a minute) and password sign-ins (20 a minute per address), shared by
   * every instance on the storage; over budget is 429 with
   * `Retry-After`, and every answer carries the IETF RateLimit fields. Each WebSocket also has a budget
   * of messages (600 a minute), beyond which it is closed with 1008. On by default; `rules` tunes a
   * class, `trustedProxies` tells callers apart behind a proxy, `false` turns them off (e.g. behind a
   * gateway that limits already). The sign-in lockout per username is apart: `oauth.signInLockout`.
   */
  readonly rateLimits?: RateLimitConfig | false;
  /**
   * The MCP endpoint (`switchboard-kit/mcp`) on `/mcp`: every resource's tools for AI agents, behind
   * the same authentication, scopes and budgets as REST (docs/mcp.md); `false` leaves it out.
   */
  readonly mcp?: McpConfig | false;
  /**
   * The durable event feed (docs/events.md): `GET /events` in every REST version (pages, or Server-Sent
   * Events that resume after `Last-Event-ID`) and GraphQL's `events` connection, behind each event
   * type's scope; `false` leaves it out. How long events stay readable is the storage's
   * `eventRetentionMs`.
   */
  readonly events?: EventFeedConfig | false;
  /**
   * Where OpenTelemetry spans and metrics go (docs/operations.md): by default the SDK registered
   * globally, and nothing at all when none is. A span per request, GraphQL operation, storage
   * transaction, outbox batch and webhook attempt; request durations, webhook outcomes and lag, queue
   * sizes, rate-limit refusals.
   */
  readonly telemetry?: TelemetryOptions;
}

/** The mounts whose 401s name their protected resource's metadata: the APIs that take this server's tokens. */
const RESOURCE_MOUNTS: ReadonlySet<string> = new Set(['rest', 'graphql', 'mcp', 'webhooks']);

/** Everything assembled: one fetch handler plus the parts, each also usable on its own. */
export interface Switchboard {
  /** Serves every interface: health checks, and each building block under its path. */
  readonly fetch: FetchHandler;
  readonly domain: Domain;
  readonly storage: Storage;
  readonly bus: EventBus;
  readonly relay: OutboxRelay;
  /**
   * The GraphQL subscription server (graphql-ws core), to hook into a runtime's WebSockets, e.g.
   * `serve({ websockets: [graphqlWebSocketRoute(switchboard.graphqlWebSocket)] })` on Node.
   * Undefined when GraphQL is turned off.
   */
  readonly graphqlWebSocket: GraphQLWebSocketServer | undefined;
  /** The authorization server: register clients, create API keys, rotate ID-token keys. Undefined when OAuth is off. */
  readonly oauth: AuthorizationServer | undefined;
  /** The webhook sender: admin service, dispatcher. Undefined when webhooks are off. */
  readonly webhooks: Webhooks | undefined;
  /** The operator console: `endSessions(userId)` signs a user out everywhere. Undefined when it is off. */
  readonly console: ConsoleHandler | undefined;
  /** Starts background work (the outbox relay's polling). Idempotent. */
  start(): void;
  /** Stops background work after finishing what is in flight; the storage stays open (the host owns it). */
  close(): Promise<void>;
}

/**
 * Assembles the building blocks into one Web-standard fetch handler.
 *
 * @example
 * import { createSwitchboard } from 'switchboard-kit';
 * import { serve } from 'switchboard-kit/node';
 * const switchboard = createSwitchboard();
 * switchboard.start();
 * await serve({ fetch: switchboard.fetch, port: 4000, onShutdown: switchboard.close });
 */
export function createSwitchboard(options: SwitchboardOptions = {}): Switchboard {
  checkAdminApiKey(options.oauth || undefined);
  const hostStorage = options.storage ?? createMemoryStorage();
  const telemetry = createTelemetry(options.telemetry);
  // The one runtime every block is given: what the host passed at the top, defaults for the rest.
  const runtime = createRuntime({
    storage: tracedStorage(hostStorage, telemetry),
    telemetry,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.look ? { look: options.look } : {}),
  });
  const { storage, clock, logger } = runtime;
  const look = resolveLook(runtime.look);
  const bus = options.bus ?? createMemoryEventBus({ logger });
  const relay = createOutboxRelay(runtime, { bus });
  const resources = [
    ...(options.builtInResources === false ? [] : BUILT_IN_RESOURCES),
    ...(options.resources ?? []),
  ];
  // The core records as well: what the storage indexes and webhooks announce.
  const everyResource = [...CORE_RESOURCES, ...resources];
  const domain = createDomain(runtime, { onCommit: () => relay.kick(), resources });

  // Indexes for the resources' lists (PostgreSQL: one per filtered field), made once the storage can.
  let prepared: Promise<void> | undefined;
  const prepareStorage = (): Promise<void> =>
    (prepared ??= Promise.resolve(
      storage.resources.prepare?.(
        everyResource.map(({ name, filters, unique }) => ({ name, filters, unique })),
      ),
    ).then(
      (missed = []) => {
        for (const what of missed) logger.log('warn', `resource storage: ${what}`);
      },
      (error: unknown) => {
        prepared = undefined;
        logger.log('warn', 'the storage could not prepare the resource lists; retried on the next /readyz', {
          error: String(error),
        });
      },
    ));

  const rateLimit = options.rateLimits === false ? undefined : createRateLimiter(runtime, options.rateLimits);
  // Every scope this switchboard checks, in words: its resources' and its modules' administration's.
  const scopes: ScopeCatalogue = {
    ...scopeCatalogue(everyResource),
    ...(options.webhooks === false ? {} : WEBHOOK_ADMIN_SCOPES),
    ...(options.oauth === false ? {} : OAUTH_ADMIN_SCOPES),
    ...(options.oauth ? options.oauth.scopes : {}),
  };
  // trustEveryone's caller holds all of them, a host resource's as a built-in's.
  const hostAuthenticate = options.authenticate && resolveTrust(options.authenticate, Object.keys(scopes));
  // The tools /mcp serves, what an OAuth client's tools may be restricted to: derived when first asked.
  let toolNames: readonly string[] | undefined;
  const mcpTools = options.mcp === false ? undefined : () => (toolNames ??= mcpToolNames(domain));
  // Where this server may fetch from, for webhooks and client metadata documents alike, unless OAuth has its own.
  const outbound = (options.oauth || undefined)?.outbound ?? (options.webhooks || undefined)?.outbound;
  const oauth =
    options.oauth === false
      ? undefined
      : createAuthorizationServer(runtime, {
          ...options.oauth,
          ...(outbound ? { outbound } : {}),
          // Declared resources' scopes can be granted, shown on the consent page and held by the admin key.
          scopes,
          // A bus that reaches every instance on the storage carries revocations, so the guard keeps
          // credentials: the host's, or the in-process one over the switchboard's own memory storage.
          ...(options.bus || !options.storage ? { bus } : {}),
          ...(rateLimit ? { rateLimit } : {}),
          ...(hostAuthenticate ? { authenticate: hostAuthenticate } : {}),
          ...(mcpTools ? { mcpTools } : {}),
        });
  const authenticate: Authenticate = hostAuthenticate ?? oauth?.authenticate ?? createGuard(runtime);

  // In any order: the longest matching prefix serves the request (prefix-router.ts).
  const mounts: Mount[] = [
    {
      prefix: '/healthz',
      name: 'health',
      handle: async () => jsonResponse(200, { status: 'ok' }, { 'cache-control': 'no-store' }),
    },
    {
      prefix: '/readyz',
      name: 'health',
      handle: () => {
        void prepareStorage();
        return readiness(storage, logger);
      },
    },
    // The page of each error code, where problem documents' `type` points.
    {
      prefix: '/problems',
      name: 'docs',
      handle: async (request) => problemPage(look, pathnameOf(request.url)),
    },
  ];
  if (oauth) {
    mounts.push(
      { prefix: '/oauth', name: 'oauth', handle: oauth.fetch },
      { prefix: '/.well-known', name: 'oauth', handle: oauth.fetch },
    );
  }

  const webhooks =
    options.webhooks === false
      ? undefined
      : createWebhooks(runtime, {
          ...options.webhooks,
          authenticate,
          onCommit: () => relay.kick(),
          // Their events are the catalogue endpoints subscribe to.
          resources: everyResource,
          ...(rateLimit ? { rateLimit } : {}),
        });

  // The durable event feed: the webhooks' catalogue, each type read with its scope (docs/events.md).
  const feed =
    options.events === false
      ? undefined
      : createEventFeed(runtime, {
          services: Object.values(domain.resources),
          otherTypes: Object.fromEntries(
            (webhooks?.admin.eventTypes() ?? []).map((type) => [type, WEBHOOK_READ_SCOPE]),
          ),
          bus,
          ...(options.events?.pollMs === undefined ? {} : { pollMs: options.events.pollMs }),
        });

  let graphqlWebSocket: GraphQLWebSocketServer | undefined;
  if (options.graphql !== false) {
    // One schema for HTTP and WebSocket: built once, and resolvers wrapped with scope checks once.
    // Webhook management joins it unless the host brings a schema of its own.
    const schema =
      options.graphql?.schema ??
      createSchema([
        resourceSchema(resources),
        webhooks ? webhookAdminSchema(webhooks.admin) : {},
        feed ? eventFeedSchema(feed, { apiVersion: latestApiVersion(everyResource) }) : {},
      ]);
    const graphql = {
      ...options.graphql,
      schema,
      domain,
      bus,
      authenticate,
      ...(rateLimit ? { rateLimit } : {}),
    };
    mounts.push({ prefix: '/graphql', name: 'graphql', handle: createGraphQLHandler(runtime, graphql) });
    graphqlWebSocket = createGraphQLWebSocketServer(runtime, graphql);
  }

  if (webhooks) {
    relay.use(webhooks.fanOut);
    // The public keys of ed25519 signatures: a longer prefix than OAuth's /.well-known, so it wins.
    mounts.push({ prefix: WEBHOOK_KEYS_PATH, name: 'webhooks', handle: webhooks.keys });
  }

  if (options.mcp !== false) {
    const mcp = createMcpHandler(runtime, {
      ...options.mcp,
      domain,
      authenticate,
      bus,
      ...(rateLimit ? { rateLimit } : {}),
      // An OAuth client's tools, as an operator restricted them.
      ...(oauth ? { toolsFor: oauth.toolsFor } : {}),
    });
    mounts.push({ prefix: '/mcp', name: 'mcp', handle: mcp });
  }

  let operatorConsole: ConsoleHandler | undefined;
  if (options.console !== false && (webhooks || oauth)) {
    operatorConsole = createConsole(runtime, {
      ...options.console,
      authenticate,
      bus,
      ...(webhooks ? { webhooks: webhooks.admin } : {}),
      ...(oauth ? { oauth: oauth.admin } : {}),
      // Users sign in to their own page as they do to the authorization server, behind its lockout.
      ...(oauth ? { signIn: oauth.signIn } : {}),
      // A user is a client: the console names them by the client's name and e-mail address.
      people: async (ids) => {
        const found = await Promise.all([...new Set(ids)].map((id) => domain.clients.find(id)));
        return new Map(found.flatMap((c) => (c ? [[c.id, { name: c.name, email: c.email }] as const] : [])));
      },
      ...(rateLimit ? { rateLimit } : {}),
    });
    mounts.push({ prefix: operatorConsole.basePath, name: 'console', handle: operatorConsole });
  }

  if (options.rest !== false) {
    const { versions, ...rest } = options.rest ?? {};
    // Webhook management is part of every REST version: served there with the version's headers
    // (deprecation included) and listed in its OpenAPI document.
    const feedRoutes = feed ? eventFeedRoutes(feed, { ...options.events, authenticate, logger }) : [];
    const routes = [...(webhooks?.fetch.routes ?? []), ...feedRoutes, ...(rest.routes ?? [])];
    const shared = {
      ...rest,
      domain,
      authenticate,
      ...(rateLimit ? { rateLimit } : {}),
      routes,
      // OAuth administration is documented in every version's OpenAPI document, served on /oauth.
      mounted: [
        ...(rest.mounted ?? []),
        ...(oauth ? [oauth.adminRoutes] : []),
        ...(webhooks ? [webhooks.keys] : []),
      ],
    };
    for (const { prefix, handle } of createRestVersions(runtime, shared, versions))
      mounts.push({ prefix, name: 'rest', handle });
  } else if (webhooks) {
    for (const prefix of webhooks.prefixes) mounts.push({ prefix, name: 'webhooks', handle: webhooks.fetch });
  }

  const mountAt = prefixRouter(mounts);
  const stopObserving = observeState(telemetry.meter, {
    storage: hostStorage,
    webhooks: webhooks !== undefined,
    graphqlWebSocket,
    logger,
  });
  // Not async: it hands on the mount's promise rather than wrapping it in one more.
  function route(request: Request, context: RequestContext, pathname: string): Promise<Response> {
    const mount = mountAt(pathname);
    if (!mount) throw new SwitchboardError('not_found', `Nothing is served at ${pathname}.`);
    // Measured under its interface; its route the template its router notes, else the mount's path.
    context.route = mount.prefix;
    context.interface = mount.name;
    // A 401 of an API names its protected resource metadata (RFC 9728 §5.1), so agents find the server.
    if (oauth && RESOURCE_MOUNTS.has(mount.name ?? '')) context.resourceMetadata = oauth.resourceMetadataFor;
    return mount.handle(request, context);
  }

  // The request line is logged inside the request's span, so it carries the trace id.
  const fetch = instrumentFetch(serveRequest, { telemetry, interface: 'other' });
  async function serveRequest(request: Request, info: ConnectionInfo): Promise<Response> {
    const context = requestContext(request, info);
    const started = clock.now();
    const pathname = pathnameOf(request.url);
    let response: Response;
    try {
      response = await route(request, context, pathname);
    } catch (error) {
      if (!(error instanceof SwitchboardError)) {
        logger.log('error', 'unhandled error', { error: String(error), stack: (error as Error)?.stack });
      }
      response = problemResponse(error);
    }
    // A host without a logger pays nothing for the request line.
    if (logger !== silentLogger)
      logger.log('info', 'request', {
        method: request.method,
        path: pathname,
        status: response.status,
        durationMs: clock.now() - started,
      });
    return response;
  }

  let running = false;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  const sweep = (): void => {
    storage.sweep?.({ now: clock.now() }).catch((error) => {
      logger.log('warn', 'storage sweep failed; will try again', { error: String(error) });
    });
  };
  return {
    fetch,
    domain,
    storage: hostStorage,
    bus,
    relay,
    graphqlWebSocket,
    oauth,
    webhooks,
    console: operatorConsole,
    start() {
      if (running) return;
      running = true;
      void prepareStorage();
      relay.start({ intervalMs: options.relayIntervalMs ?? 1_000 });
      webhooks?.dispatcher.start();
      relay.kick();
      if (storage.sweep) sweeper = setInterval(sweep, options.sweepIntervalMs ?? 300_000);
    },
    async close() {
      stopObserving();
      clearInterval(sweeper);
      await relay.stop();
      await relay.flush().catch(() => 0);
      // After the relay: its last flush may have created deliveries, which stay due in storage.
      await webhooks?.dispatcher.stop();
    },
  };
}

/** The page of an error code, or the look's style sheet beside them (`/problems/look-<hash>.css`). */
function problemPage(look: Look, pathname: string): Response {
  const name = pathname.slice('/problems/'.length);
  if (name === look.stylesheet.name) return assetResponse(look.stylesheet);
  const html = renderProblemPage(name, brandingOf(look, '/problems'));
  if (html === undefined) throw new SwitchboardError('not_found', `No error code is named at ${pathname}.`);
  return new Response(html, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'public, max-age=86400',
      'content-security-policy': lookCsp(look),
      'x-content-type-options': 'nosniff',
    },
  });
}

async function readiness(storage: Storage, logger: Logger): Promise<Response> {
  try {
    await storage.ping();
    return jsonResponse(200, { status: 'ready', storage: 'ok' }, { 'cache-control': 'no-store' });
  } catch (error) {
    logger.log('warn', 'storage not ready', { error: String(error) });
    return jsonResponse(
      503,
      { status: 'unavailable', storage: 'unreachable' },
      { 'cache-control': 'no-store' },
    );
  }
}

/**
 * A host-chosen admin key shorter than 32 characters would be refused when it is stored, at the first
 * request, which then fails (even an anonymous one): refused here instead, naming the option.
 */
function checkAdminApiKey(oauth: OAuthConfig | undefined): void {
  const key = oauth?.adminApiKey;
  if (key === undefined || key.length >= 32) return;
  throw new SwitchboardError(
    'bad_request',
    `oauth.adminApiKey must be at least 32 characters (it has ${key.length}); ` +
      `randomSecret('sbk_') from switchboard-kit/oauth makes one.`,
  );
}
