import type { ScopeCatalogue } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import type { EventBus } from '../core/event-bus.js';
import { BUILT_IN_SCOPES } from '../core/resources/scopes.js';
import type { Clock, IdGenerator, Logger, Runtime } from '../core/runtime.js';
import type { Storage } from '../core/storage/index.js';
import type { OutboundPolicy } from '../http/outbound.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { type Look, resolveLook } from '../internal/look/index.js';
import { OAUTH_ADMIN_SCOPES } from './admin-routes.js';
import { createMetadataDocuments, type MetadataDocuments } from './client-metadata-document.js';
import type { ConsentView } from './consent-page.js';
import type { SignIn } from './sign-in.js';
import { lockoutRule, lockSignIn, type SignInLockoutOptions } from './sign-in-lockout.js';
import { createKeyRing, type KeyRing } from './signing-keys.js';

export type { SignIn } from './sign-in.js';

/** How OpenID Connect ID tokens are signed and how long they live, when the `idTokens` option is set. */
export interface IdTokenOptions {
  /** Signing keys; a fresh ES256 key is generated (and lost at restart) when omitted. */
  readonly keys?: KeyRing;
  /** Lifetime of an ID token (default 5 minutes). */
  readonly ttlMs?: number;
}

/**
 * What the authorization server reads from the runtime: the storage its clients, grants, tokens and
 * keys are kept in, the clock, ids and logger, and the outbound `fetch` of client metadata documents
 * (the platform's when absent).
 */
export type OAuthRuntime = Pick<Runtime, 'storage' | 'clock' | 'ids' | 'logger'> &
  Partial<Pick<Runtime, 'fetch' | 'look'>>;

/**
 * Settings of the authorization server, what `createSwitchboard`'s `oauth` takes; none is required.
 * The host's own functions (`signIn`, `renderConsent`) are settings: they say how this server behaves.
 */
export interface OAuthConfig {
  /**
   * The issuer identifier (RFC 8414 §2), e.g. `https://auth.example.com`. When omitted, the origin of
   * each request is used: fine for development, but set it in production so a forged `Host` cannot
   * change what the server calls itself.
   */
  readonly issuer?: string;
  /**
   * An API key the host chooses (e.g. from `SWITCHBOARD_API_KEY`, at least 32 characters), stored
   * hashed with every scope on first start: the key for the admin routes.
   */
  readonly adminApiKey?: string;
  /** How users sign in; without it, the authorization endpoint refuses every request. */
  readonly signIn?: SignIn;
  /**
   * The lockout of `signIn.verifyPassword` (whoever made it), per username, in the storage's rate-limit
   * store so every instance on the storage shares it: `maxFailures` wrong passwords in a row (default
   * 5), then one more each `windowMs / maxFailures` (default window 15 minutes). A locked-out username
   * is refused without its password being checked, and the sign-in page says in how many minutes to
   * try again. On even when request rate limits are off; `false` turns it off.
   */
  readonly signInLockout?: SignInLockoutOptions | false;
  /** Your own consent page: return the HTML for the view (it must post the form fields back). */
  readonly renderConsent?: (view: ConsentView) => string;
  /** Authorization code lifetime, 60 000–300 000 ms (default 60 s). */
  readonly codeTtlMs?: number;
  /** Access token lifetime (default 1 hour). */
  readonly accessTokenTtlMs?: number;
  /** Lifetime of each refresh token (default 30 days); rotation issues a new one each time. */
  readonly refreshTokenTtlMs?: number;
  /** Absolute lifetime of a grant: no refresh beyond it (default 90 days). */
  readonly grantTtlMs?: number;
  /**
   * How long after a refresh token is used a second use still counts as a concurrent legitimate
   * refresh rather than theft (default 10 s; 0 disables the grace window).
   */
  readonly refreshGraceMs?: number;
  /** Issue OpenID Connect ID tokens when `openid` is requested (default off). */
  readonly idTokens?: IdTokenOptions | false;
  /** Secret for the consent form's CSRF tokens; random per process when omitted (set it when running many instances). */
  readonly csrfSecret?: string;
  /**
   * Every scope that may be requested or given to a key, in words for the consent page. Default: the
   * built-in resources' and `admin.oauth.write`; `createSwitchboard` passes its whole catalogue.
   */
  readonly scopes?: ScopeCatalogue;
  /** Largest accepted form body (default 16 KiB). */
  readonly maxBodyBytes?: number;
  /**
   * Dynamic client registration (RFC 7591) at `/oauth/register`, for MCP agents nobody sets up: public
   * clients with PKCE only, no administration scope, shown as unverified on the consent page, within
   * the `register` budget per address (10 an hour by default). On by default; `false` turns it off.
   */
  readonly dynamicRegistration?: boolean;
  /**
   * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, as the MCP spec
   * recommends): a client whose `client_id` is an https URL is the public client the JSON document at
   * that URL describes, fetched under `outbound`, limited and shown unverified like a self-registered
   * one, and never stored. On by default; `false` turns it off (such a `client_id` is then unknown).
   */
  readonly clientIdMetadataDocuments?: boolean;
  /**
   * Where client metadata documents may be fetched from, the webhooks' policy: https only, no private
   * or reserved address. Give `resolveHost` (from `switchboard-kit/node` on Node) so host names can be
   * checked; without it only URLs with a public IP literal can be fetched. `allowHttp` and
   * `allowPrivateAddresses` are for tests and local development. `createSwitchboard` uses the webhooks'
   * `outbound` when this is not given.
   */
  readonly outbound?: OutboundPolicy;
}

/** The settings of the authorization server and what other blocks give it: budgets. */
export interface OAuthOptions extends OAuthConfig {
  /**
   * Budgets: failed client authentications at the token, introspection and revocation endpoints, per
   * address (class `failed-auth`); token requests per client once it has authenticated (a public
   * client's per address too); over either, 429 with `error: "temporarily_unavailable"` and
   * `Retry-After`. Password sign-ins on the authorization page, per address (class `sign-in`). The
   * admin routes' reads and writes (classes `read`, `write`). Off when omitted.
   */
  readonly rateLimit?: RateLimiter;
  /**
   * Where credential changes (revoked keys and grants, disabled clients) are announced to every
   * instance's guard, which then keeps valid credentials in memory rather than read them on each
   * request (`createSwitchboard` passes its bus). Without one, the guard reads the storage each time.
   */
  readonly bus?: EventBus;
}

/** Options with every default filled in. */
export interface ServerContext {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** Where credential changes are announced, once committed (`announceCredentialChange`). */
  readonly bus: EventBus | undefined;
  /** The host's sign-in, its `verifyPassword` behind the lockout (unless turned off). */
  readonly signIn: SignIn;
  readonly renderConsent: ((view: ConsentView) => string) | undefined;
  /** The pages' look (the runtime's branding), its style sheet served at `/oauth/look-<hash>.css`. */
  readonly look: Look;
  readonly codeTtlMs: number;
  readonly accessTokenTtlMs: number;
  readonly refreshTokenTtlMs: number;
  readonly grantTtlMs: number;
  readonly refreshGraceMs: number;
  readonly idTokens: { readonly keys: KeyRing; readonly ttlMs: number } | null;
  readonly csrfSecret: string | undefined;
  readonly scopes: ScopeCatalogue;
  readonly maxBodyBytes: number;
  readonly rateLimit: RateLimiter | undefined;
  readonly dynamicRegistration: boolean;
  /** The cache of client metadata documents, null when they are turned off. */
  readonly clientMetadataDocuments: MetadataDocuments | null;
  issuerFor(request: Request): string;
}

export const OPENID_SCOPE = 'openid';

export function resolveOptions(runtime: OAuthRuntime, options: OAuthOptions = {}): ServerContext {
  const codeTtlMs = options.codeTtlMs ?? 60_000;
  if (codeTtlMs < 60_000 || codeTtlMs > 300_000) {
    throw new SwitchboardError(
      'bad_request',
      'codeTtlMs must be from 60 000 to 300 000 ms (1 to 5 minutes).',
    );
  }
  const issuer = options.issuer?.replace(/\/$/, '');
  if (issuer !== undefined && !URL.canParse(issuer)) {
    throw new SwitchboardError('bad_request', `issuer must be an absolute URL (got "${options.issuer}").`);
  }
  const { storage, clock } = runtime;
  const signIn =
    options.signInLockout === false
      ? (options.signIn ?? {})
      : lockSignIn(options.signIn ?? {}, {
          store: storage.rateLimits,
          rule: lockoutRule(options.signInLockout),
          clock,
        });
  const idTokens = options.idTokens
    ? { keys: options.idTokens.keys ?? createKeyRing(), ttlMs: options.idTokens.ttlMs ?? 300_000 }
    : null;
  return {
    storage,
    clock,
    ids: runtime.ids,
    logger: runtime.logger,
    bus: options.bus,
    signIn,
    renderConsent: options.renderConsent,
    look: resolveLook(runtime.look),
    codeTtlMs,
    accessTokenTtlMs: options.accessTokenTtlMs ?? 3_600_000,
    refreshTokenTtlMs: options.refreshTokenTtlMs ?? 30 * 86_400_000,
    grantTtlMs: options.grantTtlMs ?? 90 * 86_400_000,
    refreshGraceMs: options.refreshGraceMs ?? 10_000,
    idTokens,
    csrfSecret: options.csrfSecret,
    scopes: options.scopes ?? { ...BUILT_IN_SCOPES, ...OAUTH_ADMIN_SCOPES },
    maxBodyBytes: options.maxBodyBytes ?? 16_384,
    rateLimit: options.rateLimit,
    dynamicRegistration: options.dynamicRegistration ?? true,
    clientMetadataDocuments:
      options.clientIdMetadataDocuments === false
        ? null
        : createMetadataDocuments(options.outbound ?? {}, runtime.fetch),
    issuerFor: (request) => issuer ?? new URL(request.url).origin,
  };
}
