/**
 * Who is calling, and what they may do. Every interface (REST, GraphQL, WebSocket) turns its
 * credentials into a {@link Principal} through an {@link Authenticate} function (the OAuth module's
 * guard: bearer tokens and API keys) and checks scopes with {@link requireScope}.
 */
import { SwitchboardError } from './errors.js';

/** Scopes are `<area>.<object>.<read|write>`; `write` does not imply `read`. */
export const SCOPES = {
  'crm.clients.read': 'See clients: names, e-mail addresses, phone numbers and cities',
  'crm.clients.write': 'Create, change and delete clients',
  'crm.orders.read': 'See orders and their status',
  'crm.orders.write': 'Create orders and change their status',
  'chat.messages.read': 'Read chat messages and receive new ones as they arrive',
  'chat.messages.write': 'Send chat messages',
  'chat.conversations.read': 'See conversations with the chatbot and who handles them',
  'chat.conversations.write': 'Open conversations, hand them to a person and close them',
  'calendar.bookings.read': 'See bookings',
  'calendar.bookings.write': 'Request, confirm, cancel and complete bookings',
  'admin.webhooks.read': 'See webhook endpoints and their deliveries',
  'admin.webhooks.write': 'Register, change and remove webhook endpoints; re-send deliveries',
  'admin.oauth.write': 'Register OAuth clients and manage API keys',
} as const;

/** A scope name: one of {@link SCOPES}, or any other string a host defines for its own routes. */
export type Scope = keyof typeof SCOPES | (string & {});

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

/**
 * Whether the principal may see the records of a client. A user sees only their own; the interfaces
 * answer `not_found` otherwise, so ids of other users' records cannot be probed.
 */
export function canSeeClient(principal: Principal, clientId: string): boolean {
  return principal.userId === undefined || principal.userId === clientId;
}

/** The caller who sent no credentials: it may reach only what needs no scope (e.g. GraphQL `__typename`). */
export const anonymousPrincipal: Principal = { kind: 'anonymous', subject: 'anonymous', scopes: new Set() };

/**
 * A principal with every scope, for hosts that authenticate upstream (a gateway, mTLS) and for tests.
 * Never use it on an interface exposed to the internet.
 */
export const trustedPrincipal: Principal = {
  kind: 'service',
  subject: 'trusted',
  scopes: new Set(Object.keys(SCOPES)),
};

/** An {@link Authenticate} that lets every request through as {@link trustedPrincipal}. */
export const trustEveryone: Authenticate = async () => trustedPrincipal;
