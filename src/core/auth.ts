/**
 * Who is calling, and what they may do. Every interface (REST, GraphQL, WebSocket) turns its
 * credentials into a {@link Principal} through an {@link Authenticate} function (the OAuth module's
 * guard: bearer tokens and API keys) and checks scopes with {@link requireScope}.
 */
import { SwitchboardError } from './errors.js';
import { BUILT_IN_SCOPES } from './resources/scopes.js';

/**
 * A scope name, `<area>.<object>.<read|write>` (`write` does not imply `read`): a resource's, one of
 * webhook or OAuth administration, or any other a host defines for its own routes.
 */
export type Scope = string;

/**
 * Scopes in words, by name: what API keys and OAuth clients may be given, and what the consent page
 * and the console show. `createSwitchboard` computes its catalogue from the resources it serves and
 * the modules it mounts (`scopeCatalogue`, `WEBHOOK_ADMIN_SCOPES`, `OAUTH_ADMIN_SCOPES`).
 */
export type ScopeCatalogue = Readonly<Record<Scope, string>>;

/** The authenticated caller of a request: who it is and which scopes it holds. */
export interface Principal {
  /**
   * `user`: a signed-in client acting through an OAuth app; `service`: an API key or machine client;
   * `anonymous`: no credentials were sent (it holds no scope).
   */
  readonly kind: 'user' | 'service' | 'anonymous';
  /** Stable id of the caller: the user's client id, the API key id, or the OAuth client id. */
  readonly subject: string;
  readonly scopes: ReadonlySet<string>;
  /**
   * Set when acting for a user: the caller sees only that user's own records (a user is a client who
   * can sign in, so this is a client id). Absent for organisation-wide service access.
   */
  readonly userId?: string;
  /** The OAuth client the token was issued to, when there is one. */
  readonly clientId?: string;
  /**
   * The interface the caller acts through, when it says (`mcp` for an agent's tool call): the events
   * of its changes carry it, so operators see which changes agents made.
   */
  readonly via?: string;
}

/** Turns a request's credentials into a principal; throws `unauthorized` when they are missing or bad. */
export type Authenticate = (request: Request) => Promise<Principal>;

/**
 * Throws unless the principal holds `scope`: `unauthorized` for an anonymous caller (send credentials),
 * `forbidden` (OAuth `insufficient_scope`) for one whose credentials lack it.
 */
export function requireScope(principal: Principal, scope: Scope): void {
  if (principal.scopes.has(scope)) return;
  if (principal.kind === 'anonymous') {
    throw new SwitchboardError(
      'unauthorized',
      `This needs credentials with the scope ${scope}: send Authorization: Bearer <access token or API key>.`,
      { scope },
    );
  }
  throw new SwitchboardError('forbidden', `This needs the scope ${scope}.`, {
    details: [{ field: 'scope', code: 'insufficient_scope', message: `Missing scope: ${scope}` }],
    scope,
  });
}

/** The caller who sent no credentials: it may reach only what needs no scope (e.g. GraphQL `__typename`). */
export const anonymousPrincipal: Principal = { kind: 'anonymous', subject: 'anonymous', scopes: new Set() };

/**
 * An {@link Authenticate} that lets every request through as a service holding every scope of
 * `scopes`, for hosts that authenticate upstream (a gateway, mTLS) and for tests. Never use it on an
 * interface exposed to the internet.
 */
export function trusting(scopes: Iterable<Scope>): Authenticate {
  const principal: Principal = { kind: 'service', subject: 'trusted', scopes: new Set(scopes) };
  return async () => principal;
}

/**
 * Lets every request through holding every scope of the switchboard it serves: `createSwitchboard`
 * gives it its whole catalogue (every resource's scopes, the host's included, and administration's).
 * A building block used on its own holds the built-in resources' scopes here, and those it serves
 * where it resolves it ({@link resolveTrust}). Never use it on an interface exposed to the internet.
 */
export const trustEveryone: Authenticate = trusting(Object.keys(BUILT_IN_SCOPES));

/**
 * `authenticate`, or, when it is {@link trustEveryone}, one trusting every scope of `scopes`: those of
 * what it guards, which a constant cannot know (a host's resources).
 */
export function resolveTrust(authenticate: Authenticate, scopes: Iterable<Scope>): Authenticate {
  return authenticate === trustEveryone ? trusting(scopes) : authenticate;
}
