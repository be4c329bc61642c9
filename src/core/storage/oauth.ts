/**
 * OAuth 2.0 authorization-server records: registered clients, authorization codes, grants with their
 * refresh-token families, and access tokens. Secrets and tokens are stored only as SHA-256 hex hashes
 * (they are high-entropy random strings, so a fast hash is enough); a database leak reveals nothing usable.
 *
 * Shaped for SQL: each record is one flat row, lookups go by primary key or hash, and every state change
 * that must be atomic is a single compare-and-set (`UPDATE … WHERE consumed_at IS NULL RETURNING …`).
 * Instants are epoch milliseconds, like every time in the storage port but a business record's.
 */

/** How a client proves who it is at the token endpoint (RFC 7591 §2 names). */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** The grant types a client may be allowed to use at the token endpoint (RFC 6749). */
export type OAuthGrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

/** A registered OAuth client (a chatbot app). Public clients have no secret and must use PKCE. */
export interface OAuthClientRecord {
  readonly id: string;
  readonly name: string;
  /** SHA-256 hex of the client secret; `null` for a public client. */
  readonly secretHash: string | null;
  /** The secret replaced by a rotation, still accepted until `until` (epoch ms); absent otherwise. */
  readonly previousSecret?: { readonly hash: string; readonly until: number } | null;
  /** Exact-match list; https, or http on a loopback address (RFC 8252 §7.3). */
  readonly redirectUris: readonly string[];
  /** The most this client may ever be granted. */
  readonly scopes: readonly string[];
  readonly grantTypes: readonly OAuthGrantType[];
  readonly createdAt: number;
  /**
   * `true` when the client registered itself (RFC 7591 dynamic registration) rather than being set up by
   * an admin or the host: nobody vouched for its name, so the consent page calls it unverified. Absent
   * (or `false`) otherwise.
   */
  readonly selfRegistered?: boolean;
  /**
   * When an operator vouched for a self-registered client (epoch ms): the consent page no longer calls
   * it unverified. Absent or `null` when nobody approved it.
   */
  readonly approvedAt?: number | null;
  /**
   * When an operator disabled the client (epoch ms): it is then as unknown to the authorize and token
   * endpoints, and its grants were revoked when it was disabled. Absent or `null` for a usable client.
   */
  readonly disabledAt?: number | null;
  /**
   * The MCP tools (by name, e.g. `list_bookings`) its tokens may call, within what their scopes allow;
   * absent or `null` for every tool its scopes allow, empty for none.
   */
  readonly mcpTools?: readonly string[] | null;
}

/** Registered OAuth clients, by id. */
export interface OAuthClientStore {
  get(id: string): Promise<OAuthClientRecord | null>;
  /** Ordered by `createdAt`, then `id`. */
  list(): Promise<OAuthClientRecord[]>;
  /** Throws a `conflict` SwitchboardError when the id is taken. */
  insert(client: OAuthClientRecord): Promise<void>;
  /**
   * Replaces the record with the same id (name, redirect URIs, scopes, secrets, approval, disabling,
   * MCP tools); false when absent.
   */
  update(client: OAuthClientRecord): Promise<boolean>;
  /** False when absent. Does not revoke its grants: callers do that first. */
  delete(id: string): Promise<boolean>;
}

/** An authorization code, bound to everything the token request must repeat (RFC 6749 §4.1.3). */
export interface AuthorizationCodeRecord {
  readonly codeHash: string;
  readonly clientId: string;
  /** The signed-in user: a client id (a user is a client who can sign in). */
  readonly userId: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  /** S256 PKCE challenge (RFC 7636 §4.2); `null` when the client sent none. */
  readonly codeChallenge: string | null;
  /** OpenID Connect `nonce`, echoed into the ID token. */
  readonly nonce: string | null;
  /** The grant (token family) that tokens issued from this code belong to. */
  readonly grantId: string;
  /**
   * The resources (RFC 8707) this authorization asked for (empty: none named), the audience of the
   * code's tokens; the grant may name more, from the user's other consents to the client. Absent on
   * codes stored before it was kept: the grant's resources then.
   */
  readonly resources?: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Set once, by the one `consume` that wins. */
  readonly consumedAt: number | null;
}

/**
 * `consumed`: this call won and the code was unused. `reused`: someone consumed it before (a replay:
 * revoke the grant). `missing`: unknown code (never issued, or already cleaned up).
 */
export type CodeConsumption =
  | { readonly state: 'consumed'; readonly code: AuthorizationCodeRecord }
  | { readonly state: 'reused'; readonly code: AuthorizationCodeRecord }
  | { readonly state: 'missing' };

/** Authorization codes, by hash; each can be consumed once. */
export interface AuthorizationCodeStore {
  insert(code: AuthorizationCodeRecord): Promise<void>;
  /** Atomic: of many concurrent callers with the same hash exactly one gets `consumed`. */
  consume(codeHash: string, now: number): Promise<CodeConsumption>;
}

/** One user's consent to one client: every token issued from one code (or one client-credentials call). */
export interface GrantRecord {
  readonly id: string;
  readonly clientId: string;
  /** `null` for client-credentials grants (no user). */
  readonly userId: string | null;
  /** The ceiling: a refresh may narrow the scopes of an access token, never go beyond these. */
  readonly scopes: readonly string[];
  /**
   * The resources (RFC 8707) the client asked for, the ceiling of its tokens' audience; absent or
   * empty when it named none (its tokens then go to every resource).
   */
  readonly resources?: readonly string[];
  readonly createdAt: number;
  /** Absolute end of the session; refresh tokens cannot outlive it. */
  readonly expiresAt: number;
  readonly revokedAt: number | null;
}

/** Which grants {@link GrantStore.list} returns; every field given must match. */
export interface GrantFilter {
  readonly userId?: string;
  readonly clientId?: string;
  /** Only grants neither revoked nor expired at `now` (epoch ms). */
  readonly live?: { readonly now: number };
}

/** The most grants one {@link GrantStore.list} call returns. */
export const GRANT_LIST_LIMIT = 500;

/** Grants (token families), by id; revoking a grant ends every token issued under it. */
export interface GrantStore {
  insert(grant: GrantRecord): Promise<void>;
  get(id: string): Promise<GrantRecord | null>;
  /** Newest first (`createdAt` desc, then `id` desc), at most 500 ({@link GRANT_LIST_LIMIT}). */
  list(filter: GrantFilter): Promise<GrantRecord[]>;
  /** Marks the grant revoked (first revocation wins; later calls keep the first time). False when absent. */
  revoke(id: string, now: number): Promise<boolean>;
  /** Revokes every live grant of a client (when the client is removed); returns how many. */
  revokeByClient(clientId: string, now: number): Promise<number>;
  /**
   * Sets a live grant's scopes, resources and end, when the user consents to the same client again
   * (one grant per user and client): the grant as it now is, or `null` when it is absent, revoked or
   * expired at `now` (then nothing changes; the caller makes a new grant).
   */
  widen(id: string, change: GrantWidening, now: number): Promise<GrantRecord | null>;
}

/** What {@link GrantStore.widen} sets; the caller computes the union of before and now. */
export interface GrantWidening {
  readonly scopes: readonly string[];
  /** Empty: the grant's tokens go to every resource. */
  readonly resources: readonly string[];
  readonly expiresAt: number;
}

/** A refresh token: one link of a grant's rotation chain. */
export interface RefreshTokenRecord {
  readonly tokenHash: string;
  readonly grantId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Set once, by the one `use` that wins; a later use of the same token is a replay. */
  readonly usedAt: number | null;
}

/**
 * `fresh`: this call won and the token was unused. `used`: it was used before, at `token.usedAt`
 * (a replay, or a concurrent refresh within the grace window). `missing`: unknown token.
 */
export type RefreshTokenUse =
  | { readonly state: 'fresh'; readonly token: RefreshTokenRecord }
  | { readonly state: 'used'; readonly token: RefreshTokenRecord }
  | { readonly state: 'missing' };

/** Refresh tokens, by hash; each is used once, when it is rotated, and a later use is a replay. */
export interface RefreshTokenStore {
  insert(token: RefreshTokenRecord): Promise<void>;
  get(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Atomic: of many concurrent callers with the same hash exactly one gets `fresh`. */
  use(tokenHash: string, now: number): Promise<RefreshTokenUse>;
}

/** An opaque access token (RFC 6749 §1.4), looked up by hash on every API call. */
export interface AccessTokenRecord {
  readonly tokenHash: string;
  readonly grantId: string;
  readonly clientId: string;
  readonly userId: string | null;
  /** May be narrower than the grant's scopes. */
  readonly scopes: readonly string[];
  /**
   * The resources (RFC 8707) the token may be used on, its audience; absent or empty for a token
   * usable on every resource. May be narrower than the grant's resources.
   */
  readonly audience?: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** Access tokens, by hash; the guard reads one on every API call. */
export interface AccessTokenStore {
  insert(token: AccessTokenRecord): Promise<void>;
  get(tokenHash: string): Promise<AccessTokenRecord | null>;
  /** False when absent. */
  delete(tokenHash: string): Promise<boolean>;
}

/** Every OAuth store, plus cleanup of what has expired. */
export interface OAuthStores {
  readonly clients: OAuthClientStore;
  readonly codes: AuthorizationCodeStore;
  readonly grants: GrantStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly accessTokens: AccessTokenStore;
  /**
   * Deletes codes, access tokens, refresh tokens and grants whose `expiresAt` is before `before`
   * (epoch ms), and the tokens of deleted grants. Returns how many rows went.
   */
  deleteExpired(before: number): Promise<number>;
}
