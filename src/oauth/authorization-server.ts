import { type Authenticate, resolveTrust } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import type { ApiKeyRecord, OAuthClientRecord } from '../core/storage/index.js';
import { authErrorResponse } from '../http/challenge.js';
import { jsonResponse } from '../http/json.js';
import { type ConnectionInfo, type RequestContext, requestContext } from '../http/request-context.js';
import { createRouteHandler, type RestHandler } from '../http/route-handler.js';
import { assetResponse } from '../internal/look/index.js';
import { oauthAdminRoutes } from './admin-routes.js';
import { createOAuthAdmin, type OAuthAdmin } from './admin-service.js';
import { type CreateApiKeyInput, type CreatedApiKey, createApiKey, ensureApiKey } from './api-keys.js';
import { authorizeEndpoint } from './authorize-endpoint.js';
import { clientToolsLookup, type ToolsFor } from './client-tools.js';
import {
  type RegisterClientInput,
  type RegisteredClient,
  registerOAuthClient,
  rotateOAuthClientSecret,
  type UpdateClientInput,
  updateOAuthClient,
} from './clients.js';
import { OAUTH_ASSETS } from './consent-page.js';
import { announceCredentialChange } from './credential-changes.js';
import { createCsrf } from './csrf.js';
import { registrationEndpoint } from './dynamic-registration.js';
import { createGuard } from './guard.js';
import { introspectEndpoint } from './introspect-endpoint.js';
import { metadataResponse, OAUTH_PATHS, serverMetadata } from './metadata.js';
import {
  PROTECTED_RESOURCE_PATH,
  PROTECTED_RESOURCE_PATHS,
  protectedResourceResponse,
  resourceMetadataUrl,
  resourcePathOf,
} from './protected-resource.js';
import { revokeEndpoint } from './revoke-endpoint.js';
import { type OAuthOptions, type OAuthRuntime, resolveOptions, type SignIn } from './server-options.js';
import type { KeyRing } from './signing-keys.js';
import { tokenEndpoint } from './token-endpoint.js';

const CORS_PATHS = new Set<string>([
  OAUTH_PATHS.token,
  OAUTH_PATHS.revoke,
  OAUTH_PATHS.metadata,
  OAUTH_PATHS.openidConfiguration,
  OAUTH_PATHS.jwks,
  OAUTH_PATHS.register,
  ...PROTECTED_RESOURCE_PATHS.map((path) => `${PROTECTED_RESOURCE_PATH}${path}`),
]);

const CORS_PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '600',
};

/**
 * Options of {@link createAuthorizationServer}: the {@link OAuthOptions}, plus who may call the admin
 * routes.
 */
export interface AuthorizationServerOptions extends OAuthOptions {
  /**
   * Who may call the admin routes. When omitted, this server's own guard: its access tokens and API
   * keys, the admin key among them (the authorization server is the authenticator; never anyone).
   */
  readonly authenticate?: Authenticate;
  /**
   * The names of the MCP tools served beside it (`createSwitchboard` passes its `/mcp`'s): a client's
   * tool restriction may name only these. Without it, any name of a tool's form is accepted.
   */
  readonly mcpTools?: () => readonly string[];
}

/**
 * The authorization server: one fetch handler for `/oauth/*` and `/.well-known/*` (the protected
 * resource metadata of RFC 9728 among them), plus the guard.
 */
export interface AuthorizationServer {
  /** Serves a request; `info` gives the peer's address, for the budgets of failed client authentications. */
  readonly fetch: (request: Request, info?: ConnectionInfo) => Promise<Response>;
  /** The guard over the same storage (bearer access tokens and API keys). */
  readonly authenticate: Authenticate;
  /**
   * Resolves once start-up work (storing the admin key) is done; reading it starts that work, which
   * otherwise waits for the first request.
   */
  readonly ready: Promise<void>;
  /** ID-token signing keys (for rotation), when ID tokens are on. */
  readonly keys: KeyRing | null;
  /** Clients, API keys and grants as plain functions: what the admin routes and the console call. */
  readonly admin: OAuthAdmin;
  /**
   * The admin routes (`/oauth/clients`, `/oauth/api-keys`, `/oauth/grants`), served by `fetch`: their
   * definitions and OpenAPI document, which each REST version's document lists as well.
   */
  readonly adminRoutes: RestHandler;
  /**
   * The host's `signIn`, its `verifyPassword` behind the server's lockout (`signInLockout`): give it to
   * anything else that checks passwords (the console does) so one lockout covers every sign-in.
   */
  readonly signIn: SignIn;
  /**
   * The MCP tools the caller's OAuth client restricts it to (`null`: no restriction), what
   * `createMcpHandler`'s `toolsFor` takes. Kept a few seconds per client: a restriction changed on
   * another instance applies within 5 s, one changed through this server's `admin` at once.
   */
  readonly toolsFor: ToolsFor;
  /** Registers a client; its secret is returned once. */
  registerClient(input: RegisterClientInput): Promise<RegisteredClient>;
  /** Changes a client's name, redirect URIs or scopes. */
  updateClient(id: string, input: UpdateClientInput): Promise<OAuthClientRecord>;
  /** A new secret for a confidential client (returned once); the old one works `overlapMs` longer (default 24 h). */
  rotateClientSecret(id: string, options?: { overlapMs?: number }): Promise<RegisteredClient>;
  /** Creates an API key; the key is returned once. */
  createApiKey(input: CreateApiKeyInput): Promise<CreatedApiKey>;
  /** RFC 8414 metadata for an issuer. */
  metadata(issuer: string): Record<string, unknown>;
  /**
   * The URL of the protected resource metadata (RFC 9728) of the resource a request is for, by its
   * path (`/mcp`, `/graphql`, `/api/…`, else the origin): what its 401 names as `resource_metadata`.
   */
  resourceMetadataFor(request: Request): string;
}

/**
 * Builds the OAuth 2.0 authorization server (RFC 6749 with PKCE, RFC 7636; metadata, RFC 8414;
 * revocation, RFC 7009; introspection, RFC 7662; `iss` in responses, RFC 9207; dynamic client
 * registration, RFC 7591; protected resource metadata, RFC 9728) over any storage adapter.
 *
 * @example
 * const oauth = createAuthorizationServer(runtime, { issuer: 'https://api.example.com', signIn });
 * const { client, secret } = await oauth.registerClient({
 *   name: 'Support bot', type: 'confidential', redirectUris: ['https://bot.example.com/cb'],
 *   scopes: ['crm.clients.read'],
 * });
 * Deno.serve(oauth.fetch);
 */
export function createAuthorizationServer(
  runtime: OAuthRuntime,
  options: AuthorizationServerOptions = {},
): AuthorizationServer {
  const ctx = resolveOptions(runtime, options);
  // The admin key is stored at the first request, not here: a Worker's global scope, where a switchboard
  // is often made, refuses the storage I/O and the random id that takes. A failure is tried again.
  const { adminApiKey } = options;
  let storing: Promise<void> | undefined;
  const ready = (): Promise<void> =>
    (storing ??= adminApiKey
      ? ensureApiKey(
          ctx.storage,
          { name: 'admin (host)', scopes: Object.keys(ctx.scopes), key: adminApiKey },
          { clock: ctx.clock, ids: ctx.ids },
        ).then(
          async (record: ApiKeyRecord) => {
            if (record.revokedAt !== null) ctx.logger.log('warn', 'the configured admin API key is revoked');
            // Its scopes may have just changed: other instances' guards read it again.
            await announceCredentialChange(ctx.bus, ctx.logger, { apiKey: record.id });
          },
          (error: unknown) => {
            storing = undefined;
            ctx.logger.log('error', 'could not store the admin API key', { error: String(error) });
            throw error;
          },
        )
      : Promise.resolve());

  const checkCredentials = createGuard(ctx, ctx.bus ? { bus: ctx.bus } : {});
  let stored = !adminApiKey;
  // Once stored, the check's own promise is handed on: no async wrapper adding one more per request.
  const guard: Authenticate = (request) =>
    stored
      ? checkCredentials(request)
      : ready().then(() => {
          stored = true;
          return checkCredentials(request);
        });
  // A trusted caller (trustEveryone) holds every scope of this server's catalogue.
  const authenticate = options.authenticate
    ? resolveTrust(options.authenticate, Object.keys(ctx.scopes))
    : guard;
  const csrf = createCsrf(ctx.csrfSecret);
  const routes: Record<string, (request: Request, context: RequestContext) => Promise<Response>> = {
    [OAUTH_PATHS.authorize]: authorizeEndpoint(ctx, csrf),
    [OAUTH_PATHS.token]: tokenEndpoint(ctx),
    [OAUTH_PATHS.revoke]: revokeEndpoint(ctx),
    [OAUTH_PATHS.introspect]: introspectEndpoint(ctx),
    [OAUTH_PATHS.metadata]: async (request) => metadataResponse(ctx, request),
    // The pages' style sheet, by its content-hashed name.
    [`${OAUTH_ASSETS}/${ctx.look.stylesheet.name}`]: async () => assetResponse(ctx.look.stylesheet),
  };
  for (const path of PROTECTED_RESOURCE_PATHS) {
    routes[`${PROTECTED_RESOURCE_PATH}${path}`] = async (request) =>
      protectedResourceResponse(ctx, request, path);
  }
  if (ctx.dynamicRegistration) routes[OAUTH_PATHS.register] = registrationEndpoint(ctx);
  if (ctx.idTokens) {
    const keys = ctx.idTokens.keys;
    routes[OAUTH_PATHS.openidConfiguration] = async (request) => metadataResponse(ctx, request);
    routes[OAUTH_PATHS.jwks] = async () =>
      jsonResponse(200, await keys.jwks(), { 'cache-control': 'public, max-age=300' });
  }
  const tools = clientToolsLookup(ctx);
  const { mcpTools } = options;
  const admin = createOAuthAdmin(ctx, { changed: tools.forget, ...(mcpTools ? { mcpTools } : {}) });
  // On the route table every REST route is served from: budgets, problem+json, ETags, and 404 or 405
  // for whatever else is asked of /oauth and /.well-known.
  const adminRoutes = createRouteHandler(ctx, {
    routes: oauthAdminRoutes(admin, {
      knownScopes: ctx.scopes,
      maxBodyBytes: ctx.maxBodyBytes,
      mcpTools,
    }),
    authenticate,
    basePath: '/oauth',
    limits: { maxBodyBytes: ctx.maxBodyBytes },
    info: {
      title: 'Switchboard OAuth administration',
      version: '1',
      description: 'Clients, API keys and grants.',
    },
    ...(ctx.rateLimit ? { rateLimit: ctx.rateLimit } : {}),
  });

  async function fetch(request: Request, info?: ConnectionInfo): Promise<Response> {
    const context = requestContext(request, info);
    const path = new URL(request.url).pathname;
    const route = routes[path];
    if (route) context.route = path;
    try {
      if (route && CORS_PATHS.has(path)) {
        // Browser apps (public clients) call these cross-origin; no cookies are involved, so `*` is safe.
        if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS_PREFLIGHT });
        const response = await route(request, context);
        response.headers.set('access-control-allow-origin', '*');
        return response;
      }
      if (route) return await route(request, context);
      return await adminRoutes(request, context);
    } catch (error) {
      if (!(error instanceof SwitchboardError)) {
        ctx.logger.log('error', 'oauth endpoint failed', { error: String(error) });
      }
      return authErrorResponse(error);
    }
  }

  return {
    fetch,
    authenticate,
    get ready() {
      return ready();
    },
    keys: ctx.idTokens?.keys ?? null,
    admin,
    adminRoutes,
    signIn: ctx.signIn,
    toolsFor: tools.toolsFor,
    registerClient: (input) =>
      registerOAuthClient(ctx.storage, input, { clock: ctx.clock, ids: ctx.ids, knownScopes: ctx.scopes }),
    updateClient: (id, input) => updateOAuthClient(ctx.storage, id, input, { knownScopes: ctx.scopes }),
    rotateClientSecret: (id, options = {}) =>
      rotateOAuthClientSecret(ctx.storage, id, { clock: ctx.clock, ...options }),
    createApiKey: (input) => createApiKey(ctx.storage, input, { clock: ctx.clock, ids: ctx.ids }),
    metadata: (issuer) => serverMetadata(ctx, issuer.replace(/\/$/, '')),
    resourceMetadataFor: (request) =>
      resourceMetadataUrl(ctx.issuerFor(request), resourcePathOf(new URL(request.url).pathname)),
  };
}
