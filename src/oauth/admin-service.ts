import type { ScopeCatalogue } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import { isoAt, isoOrNull, silentLogger } from '../core/runtime.js';
import type { ApiKeyRecord, GrantRecord, OAuthClientRecord, OAuthGrantType } from '../core/storage/index.js';
import { validate } from '../core/validation.js';
import {
  apiKeyFields,
  clientChanges,
  clientRegistration,
  clientTools,
  GrantFilterFields,
  SecretRotation,
} from './admin-schemas.js';
import { createApiKey } from './api-keys.js';
import {
  approveOAuthClient,
  disableOAuthClient,
  enableOAuthClient,
  isDisabled,
  restrictOAuthClientTools,
} from './client-controls.js';
import { registerOAuthClient, rotateOAuthClientSecret, updateOAuthClient } from './clients.js';
import { announceCredentialChange, type CredentialChange } from './credential-changes.js';
import type { ServerContext } from './server-options.js';

/** An OAuth client as admins see it: never its secret nor the secret's hash. */
export interface OAuthClientView {
  readonly id: string;
  readonly name: string;
  /** `confidential` clients have a secret; `public` ones (SPAs, native apps) rely on PKCE. */
  readonly type: 'confidential' | 'public';
  readonly redirectUris: readonly string[];
  /** The most this client may be granted. */
  readonly scopes: readonly string[];
  readonly grantTypes: readonly OAuthGrantType[];
  /** ISO-8601. */
  readonly createdAt: string;
  /** It registered itself (dynamic registration): nobody vouched for it; the consent page says so. */
  readonly selfRegistered: boolean;
  /** An operator vouched for it: a self-registered client is then no longer called unverified. */
  readonly approved: boolean;
  /** An operator disabled it: it gets no authorization nor token until enabled, and its grants ended. */
  readonly disabled: boolean;
  /** The MCP tools its tokens may call (within their scopes); `null` for every tool its scopes allow. */
  readonly mcpTools: readonly string[] | null;
}

/** A newly registered client, with its secret: shown this once, `null` for a public client. */
export interface OAuthClientWithSecret {
  readonly client: OAuthClientView;
  readonly secret: string | null;
}

/** A client with its new secret (shown this once), and until when the previous secret still works. */
export interface RotatedClientSecret {
  readonly client: OAuthClientView;
  readonly secret: string;
  /** ISO-8601; `null` when the previous secret stopped working at once. */
  readonly previousSecretValidUntil: string | null;
}

/** An API key as admins see it: never the key nor its hash. */
export interface ApiKeyView {
  readonly id: string;
  /** The first characters of the key (e.g. `sbk_7hq2m4`), to tell keys apart; not secret. */
  readonly prefix: string;
  readonly name: string;
  readonly scopes: readonly string[];
  /** ISO-8601, like the other times. */
  readonly createdAt: string;
  readonly revokedAt: string | null;
  /** Written at most once a minute per key. */
  readonly lastUsedAt: string | null;
}

/** A new API key, with the key itself: shown this once, stored only hashed. */
export interface ApiKeyWithKey {
  readonly apiKey: ApiKeyView;
  readonly key: string;
}

/** A live grant: what a user authorized an application to do, until it expires or is revoked. */
export interface OAuthGrantView {
  readonly id: string;
  readonly clientId: string;
  /** The application's name; `null` when the client no longer exists. */
  readonly clientName: string | null;
  /** The user who consented; `null` for a client-credentials grant (no user). */
  readonly userId: string | null;
  /** The most its tokens may carry. */
  readonly scopes: readonly string[];
  /** ISO-8601. */
  readonly createdAt: string;
  /** ISO-8601: the end of the sign-in; no refresh beyond it. */
  readonly expiresAt: string;
}

/** Which live grants {@link OAuthAdmin.listGrants} returns; every field given must match. */
export interface OAuthGrantFilter {
  readonly userId?: string;
  readonly clientId?: string;
}

/**
 * OAuth clients, API keys and grants managed as plain functions, the one place their rules live: the
 * admin REST routes and the console both call it. Inputs are validated; expected failures are
 * `SwitchboardError`s (`not_found`, `validation_failed`, `conflict`).
 *
 * @example
 * const { apiKey, key } = await oauth.admin.createApiKey({ name: 'CRM sync', scopes: ['crm.clients.read'] });
 * for (const grant of await oauth.admin.listGrants({ userId })) await oauth.admin.revokeGrant(grant.id);
 */
export interface OAuthAdmin {
  /** The scopes keys and clients may be given, in words: the authorization server's catalogue. */
  readonly scopes: ScopeCatalogue;
  /** Every client, oldest first. */
  listClients(): Promise<OAuthClientView[]>;
  /** One client; `not_found` when there is none with this id. */
  getClient(id: string): Promise<OAuthClientView>;
  /** `{ name, type, redirectUris, scopes, grantTypes? }`; the secret is returned this once. */
  registerClient(input: unknown): Promise<OAuthClientWithSecret>;
  /** `{ name?, redirectUris?, scopes? }`, checked by the rules registration applies. */
  updateClient(id: string, input: unknown): Promise<OAuthClientView>;
  /** A new secret; the old one works `{ overlapSeconds }` longer (default 24 h, at most 7 days). */
  rotateClientSecret(id: string, input?: unknown): Promise<RotatedClientSecret>;
  /** Removes the client and revokes its grants, so its tokens stop working; nothing when absent. */
  deleteClient(id: string): Promise<void>;
  /** Vouches for a self-registered client: the consent page no longer calls it unverified. */
  approveClient(id: string): Promise<OAuthClientView>;
  /**
   * Refuses the client new authorizations and tokens, and revokes its grants so the tokens it holds
   * stop working at once; enabling it again does not bring them back.
   */
  disableClient(id: string): Promise<OAuthClientView>;
  /** Lets a disabled client authorize and get tokens again (its users consent anew). */
  enableClient(id: string): Promise<OAuthClientView>;
  /**
   * `{ tools: [names] }` restricts the MCP tools its tokens may call, within their scopes; `{ tools: null }`
   * lifts the restriction. Names are checked against {@link OAuthAdmin.mcpTools}.
   */
  restrictClientTools(id: string, input: unknown): Promise<OAuthClientView>;
  /**
   * The MCP tools a client may be restricted to, by name, when the server knows which its `/mcp`
   * serves; `null` when it does not (any name of a tool's form is then accepted).
   */
  mcpTools(): readonly string[] | null;
  /** Every API key, revoked ones too, oldest first. */
  listApiKeys(): Promise<ApiKeyView[]>;
  /** `{ name, scopes }`; the key is returned this once. */
  createApiKey(input: unknown): Promise<ApiKeyWithKey>;
  /** Refuses the key from now on; nothing when absent or already revoked. */
  revokeApiKey(id: string): Promise<void>;
  /** Live grants (not revoked, not expired), newest first, at most 500, with their client's name. */
  listGrants(filter?: OAuthGrantFilter): Promise<OAuthGrantView[]>;
  /** Revokes the grant: its access and refresh tokens stop working at once; nothing when absent. */
  revokeGrant(id: string): Promise<void>;
}

/** Options of {@link createOAuthAdmin}. */
export interface OAuthAdminOptions {
  /** Told the id of each client it changes or deletes: where what is kept of a client is dropped. */
  readonly changed?: (clientId: string) => void;
  /** The MCP tools a client may be restricted to (else any name of a tool's form). */
  readonly mcpTools?: () => readonly string[];
}

/**
 * Creates the {@link OAuthAdmin} service over the authorization server's storage, clock, ids and
 * scopes; hosts reach it as `createAuthorizationServer(…).admin`.
 *
 * @example
 * const admin = createOAuthAdmin(resolveOptions(createRuntime({ storage })));
 * const clients = await admin.listClients();
 */
export function createOAuthAdmin(
  ctx: Pick<ServerContext, 'storage' | 'clock' | 'ids' | 'scopes'> &
    Partial<Pick<ServerContext, 'bus' | 'logger'>>,
  options: OAuthAdminOptions = {},
): OAuthAdmin {
  const { storage, clock, ids, scopes: knownScopes } = ctx;
  // After the change is committed, so a guard that reads the storage on the message sees it.
  const announce = (change: CredentialChange): Promise<void> =>
    announceCredentialChange(ctx.bus, ctx.logger ?? silentLogger, change);
  const { mcpTools } = options;
  const schemas = {
    registration: clientRegistration(knownScopes),
    changes: clientChanges(knownScopes),
    apiKey: apiKeyFields(knownScopes),
    tools: clientTools(mcpTools),
  };
  // What this instance keeps of a client (its MCP tools) is dropped when the client changes here.
  const changed = (client: OAuthClientRecord): OAuthClientView => {
    options.changed?.(client.id);
    return clientView(client);
  };
  const clientOrThrow = async (id: string): Promise<OAuthClientRecord> => {
    const client = await storage.oauth.clients.get(id);
    if (!client) throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
    return client;
  };

  return {
    scopes: knownScopes,
    async listClients() {
      return (await storage.oauth.clients.list()).map(clientView);
    },
    async getClient(id) {
      return clientView(await clientOrThrow(id));
    },
    async registerClient(input) {
      // Parsed here, without `id` and `secret`: only the host may fix those, in code.
      const fields = validate(schemas.registration, input);
      const { client, secret } = await registerOAuthClient(storage, fields, { clock, ids, knownScopes });
      return { client: clientView(client), secret };
    },
    async updateClient(id, input) {
      const changes = validate(schemas.changes, input);
      return clientView(await updateOAuthClient(storage, id, changes, { knownScopes }));
    },
    async rotateClientSecret(id, input) {
      const { overlapSeconds } = validate(SecretRotation, input ?? {});
      const { client, secret } = await rotateOAuthClientSecret(storage, id, {
        clock,
        ...(overlapSeconds === undefined ? {} : { overlapMs: overlapSeconds * 1000 }),
      });
      return {
        client: clientView(client),
        secret: secret!,
        previousSecretValidUntil: isoOrNull(client.previousSecret?.until ?? null),
      };
    },
    async deleteClient(id) {
      await storage.transaction(async (tx) => {
        await tx.oauth.grants.revokeByClient(id, clock.now());
        await tx.oauth.clients.delete(id);
      });
      await announce({ client: id });
      options.changed?.(id);
    },
    async approveClient(id) {
      return changed(await approveOAuthClient(storage, id, { clock }));
    },
    async disableClient(id) {
      const client = await disableOAuthClient(storage, id, { clock });
      await announce({ client: id });
      return changed(client);
    },
    async enableClient(id) {
      return changed(await enableOAuthClient(storage, id));
    },
    async restrictClientTools(id, input) {
      const { tools } = validate(schemas.tools, input);
      return changed(await restrictOAuthClientTools(storage, id, tools));
    },
    mcpTools() {
      return mcpTools ? mcpTools() : null;
    },
    async listApiKeys() {
      return (await storage.apiKeys.list()).map(apiKeyView);
    },
    async createApiKey(input) {
      const fields = validate(schemas.apiKey, input);
      const { record, key } = await createApiKey(storage, fields, { clock, ids });
      return { apiKey: apiKeyView(record), key };
    },
    async revokeApiKey(id) {
      // Idempotent: revoking twice, or a key that is gone, still leaves it revoked.
      await storage.apiKeys.revoke(id, clock.now());
      await announce({ apiKey: id });
    },
    async listGrants(filter = {}) {
      const { userId, clientId } = validate(GrantFilterFields, filter);
      const grants = await storage.oauth.grants.list({
        ...(userId === undefined ? {} : { userId }),
        ...(clientId === undefined ? {} : { clientId }),
        live: { now: clock.now() },
      });
      const clientIds = [...new Set(grants.map((g) => g.clientId))];
      const clients = await Promise.all(clientIds.map((id) => storage.oauth.clients.get(id)));
      const names = new Map(clientIds.map((id, i) => [id, clients[i]?.name ?? null]));
      return grants.map((grant) => grantView(grant, names.get(grant.clientId) ?? null));
    },
    async revokeGrant(id) {
      // Idempotent like revokeApiKey. Every check of a token reads its grant (the guard, refresh,
      // introspection), so the grant's tokens stop working with this one write and the announcement
      // that drops the grant from the guards' memory.
      await storage.oauth.grants.revoke(id, clock.now());
      await announce({ grant: id });
    },
  };
}

function clientView(client: OAuthClientRecord): OAuthClientView {
  return {
    id: client.id,
    name: client.name,
    type: client.secretHash === null ? 'public' : 'confidential',
    redirectUris: client.redirectUris,
    scopes: client.scopes,
    grantTypes: client.grantTypes,
    createdAt: isoAt(client.createdAt),
    selfRegistered: client.selfRegistered === true,
    approved: (client.approvedAt ?? null) !== null,
    disabled: isDisabled(client),
    mcpTools: client.mcpTools ?? null,
  };
}

function apiKeyView(key: ApiKeyRecord): ApiKeyView {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    scopes: key.scopes,
    createdAt: isoAt(key.createdAt),
    revokedAt: isoOrNull(key.revokedAt),
    lastUsedAt: isoOrNull(key.lastUsedAt),
  };
}

function grantView(grant: GrantRecord, clientName: string | null): OAuthGrantView {
  return {
    id: grant.id,
    clientId: grant.clientId,
    clientName,
    userId: grant.userId,
    scopes: grant.scopes,
    createdAt: isoAt(grant.createdAt),
    expiresAt: isoAt(grant.expiresAt),
  };
}
