import type { Authenticate, Principal, Scope } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import type { EventBus } from '../core/event-bus.js';
import type { Runtime } from '../core/runtime.js';
import type { AccessTokenRecord, Stores } from '../core/storage/index.js';
import type { BearerErrorCode } from '../http/challenge.js';
import { hasQueryParam } from '../http/url.js';
import { connectionOf } from '../internal/connection.js';
import { textEquals } from '../internal/text-equals.js';
import { type CredentialCacheOptions, createCredentialCache } from './credential-cache.js';
import { CREDENTIALS_TOPIC, parseCredentialChange } from './credential-changes.js';
import { audienceAllows } from './resource-indicators.js';
import { ACCESS_TOKEN_PREFIX, hashSecret } from './secrets.js';

/** What the guard reads from the runtime: the stores where API keys and access tokens are looked up, the clock. */
export interface GuardRuntime extends Pick<Runtime, 'clock'> {
  readonly storage: Pick<Stores, 'apiKeys' | 'oauth'>;
}

/** Options of {@link createGuard}. */
export interface GuardOptions {
  /** Resolves before the first lookup, e.g. when the host's admin key is being stored (default none). */
  readonly ready?: Promise<unknown>;
  /** `lastUsedAt` of an API key is written at most this often, so each request is not a write (default 60 s). */
  readonly touchEveryMs?: number;
  /**
   * Where credential changes are announced (revocations, disabled clients, replaced scopes): with a bus
   * that carries topic messages, valid credentials are kept in memory instead of read on each request,
   * and dropped when the bus says they changed. Without one, every request reads the storage.
   */
  readonly bus?: EventBus;
  /** The bound and safety TTL of that memory (default 10 000 credentials, 5 s); `false` turns it off. */
  readonly cache?: CredentialCacheOptions | false;
}

/** A credential found valid, as the guard keeps it. */
type Known =
  | {
      readonly kind: 'key';
      readonly id: string;
      /** The key's principal, one object for every request it makes. */
      readonly principal: Principal;
      lastUsedAt: number | null;
    }
  | { readonly kind: 'access'; readonly access: AccessTokenRecord; readonly scopes: ReadonlySet<Scope> };

/**
 * The guard every interface uses: turns `Authorization: Bearer <token>` into a {@link Principal}.
 * The token is an OAuth access token (`sbat_…`, acting for the user who consented) or a static API key
 * (`sbk_…`, or any key the host chose, organisation-wide, with the key's scopes). Missing or bad credentials throw `unauthorized`
 * whose details carry the RFC 6750 error code; render it with `authErrorResponse`. Tokens in the query
 * string are refused (RFC 6750 §2.3 allows them, but they end up in logs and `Referer` headers).
 *
 * Given a `bus`, the credentials found valid are kept (by the token's hash, at most 10 000, each at most
 * 5 s) so a request costs no storage read; a revocation announced on the bus drops them on every
 * instance, and an access token's expiry is checked on each request.
 *
 * @example
 * const authenticate = createGuard(createRuntime({ storage }));
 * const principal = await authenticate(request);
 * requireScope(principal, 'crm.clients.read');
 */
export function createGuard(runtime: GuardRuntime, options: GuardOptions = {}): Authenticate {
  const { storage, clock } = runtime;
  const touchEveryMs = options.touchEveryMs ?? 60_000;
  let ready = options.ready === undefined;
  const { bus } = options;
  const cache =
    bus?.receive && options.cache !== false ? createCredentialCache<Known>(options.cache ?? {}) : undefined;
  // A message this version cannot read drops everything: safe, and rare.
  if (cache)
    bus?.receive?.(CREDENTIALS_TOPIC, (message) =>
      cache.forget(message === null ? null : parseCredentialChange(message)),
    );
  // The last token each connection sent, with its hash; gone with the connection.
  const lastSent = new WeakMap<object, { readonly token: string; readonly hash: string }>();
  // One scope set per stored key record, not one per request (records are immutable snapshots).
  const scopeSets = new WeakMap<object, ReadonlySet<Scope>>();
  const scopesOf = (record: { readonly scopes: readonly Scope[] }): ReadonlySet<Scope> => {
    const known = scopeSets.get(record);
    if (known) return known;
    const scopes = new Set(record.scopes);
    scopeSets.set(record, scopes);
    return scopes;
  };

  return async function authenticate(request: Request): Promise<Principal> {
    if (hasQueryParam(request.url, 'access_token')) {
      throw failure('invalid_request', 'Send the token in the Authorization header, not in the URL.', 400);
    }
    const header = request.headers.get('authorization');
    if (header === null)
      throw new SwitchboardError('unauthorized', 'Sign in: send Authorization: Bearer <token>.');
    const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
    if (!match) throw failure('invalid_request', 'The Authorization header must be "Bearer <token>".', 400);
    const token = match[1]!;
    if (!ready) {
      await options.ready;
      ready = true;
    }
    const now = clock.now();
    const hash = hashOf(request, token);

    const known = cache?.get(hash, now) ?? (await lookUp(token, hash, now));

    if (known.kind === 'key') {
      if (known.lastUsedAt === null || known.lastUsedAt + touchEveryMs <= now) {
        // Set first: requests arriving while the write is on their way do not write again.
        known.lastUsedAt = now;
        await storage.apiKeys.touch(known.id, now);
      }
      return known.principal;
    }

    const { access, scopes } = known;
    // Checked on every request, a kept token's too: expiry needs no message.
    if (access.expiresAt <= now) throw failure('invalid_token', 'The access token has expired.');
    // A token bound to resources (RFC 8707) is refused elsewhere, as any token not meant for here.
    if (!audienceAllows(access.audience, request.url))
      throw failure('invalid_token', 'The access token was not issued for this resource.');
    if (access.userId === null) {
      return { kind: 'service', subject: access.clientId, scopes, clientId: access.clientId };
    }
    return { kind: 'user', subject: access.userId, scopes, userId: access.userId, clientId: access.clientId };
  };

  /**
   * The token's hash, not made again for the token a connection sent last: a keep-alive client sends
   * the same one with every request, and SHA-256 is the largest part of a kept credential's check.
   * Compared in constant time, since a connection may carry several callers' requests (a proxy's).
   */
  function hashOf(request: Request, token: string): string {
    const connection = connectionOf(request);
    if (!connection) return hashSecret(token);
    const last = lastSent.get(connection);
    if (last && textEquals(last.token, token)) return last.hash;
    const hash = hashSecret(token);
    lastSent.set(connection, { token, hash });
    return hash;
  }

  /** Reads a credential from storage; keeps it when valid, unless a change was announced meanwhile. */
  async function lookUp(token: string, hash: string, now: number): Promise<Known> {
    const since = cache?.generation() ?? 0;
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) {
      const key = await storage.apiKeys.findByHash(hash);
      if (!key || key.revokedAt !== null)
        throw failure('invalid_token', 'The API key is unknown or revoked.');
      const principal: Principal = { kind: 'service', subject: key.id, scopes: scopesOf(key) };
      const known: Known = { kind: 'key', id: key.id, principal, lastUsedAt: key.lastUsedAt };
      cache?.set(hash, known, { apiKey: key.id }, since, now);
      return known;
    }
    const access = await storage.oauth.accessTokens.get(hash);
    if (!access) throw failure('invalid_token', 'The access token is unknown or revoked.');
    if (access.expiresAt <= now) throw failure('invalid_token', 'The access token has expired.');
    const grant = await storage.oauth.grants.get(access.grantId);
    if (!grant || grant.revokedAt !== null)
      throw failure('invalid_token', 'The access token has been revoked.');
    const known: Known = { kind: 'access', access, scopes: scopesOf(access) };
    cache?.set(hash, known, { grant: access.grantId, client: access.clientId }, since, now);
    return known;
  }
}

function failure(code: BearerErrorCode, message: string, status = 401): SwitchboardError {
  return new SwitchboardError('unauthorized', message, {
    status,
    details: [{ field: 'authorization', code, message }],
  });
}
