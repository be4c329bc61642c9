/**
 * What an operator decides about a registered client beyond its registration: vouching for a client
 * that registered itself (approve), stopping it (disable, which also ends its tokens) and letting it
 * back (enable), and which MCP tools its tokens may call. The admin service and the console call these
 * through {@link OAuthAdmin}; the authorize and token endpoints and the consent page read the rules.
 */
import { SwitchboardError } from '../core/errors.js';
import type { Clock } from '../core/runtime.js';
import type { OAuthClientRecord, Storage, Stores } from '../core/storage/index.js';

/** It registered itself and no operator approved it: the consent page calls it an unverified app. */
export function isUnverified(client: OAuthClientRecord): boolean {
  return client.selfRegistered === true && (client.approvedAt ?? null) === null;
}

/** An operator disabled it: the authorize and token endpoints treat it as unknown. */
export function isDisabled(client: OAuthClientRecord): boolean {
  return (client.disabledAt ?? null) !== null;
}

type ClientStores = Pick<Storage, 'oauth' | 'transaction'>;

/** Marks the client approved (the first approval's time stays); `not_found` when there is none. */
export async function approveOAuthClient(
  stores: ClientStores,
  id: string,
  options: { readonly clock: Clock },
): Promise<OAuthClientRecord> {
  return change(stores, id, (client) => ({
    ...client,
    approvedAt: client.approvedAt ?? options.clock.now(),
  }));
}

/**
 * Disables the client and revokes every live grant of it in the same transaction, so its access and
 * refresh tokens are refused at once on every instance (each check of a token reads its grant), and
 * the endpoints refuse it new ones. Enabling it later does not bring those grants back.
 */
export async function disableOAuthClient(
  stores: ClientStores,
  id: string,
  options: { readonly clock: Clock },
): Promise<OAuthClientRecord> {
  const now = options.clock.now();
  return stores.transaction(async (tx) => {
    const client = await change(tx, id, (current) => ({ ...current, disabledAt: current.disabledAt ?? now }));
    await tx.oauth.grants.revokeByClient(id, now);
    return client;
  });
}

/** Lets a disabled client authorize and get tokens again; `not_found` when there is none. */
export async function enableOAuthClient(stores: ClientStores, id: string): Promise<OAuthClientRecord> {
  return change(stores, id, (client) => ({ ...client, disabledAt: null }));
}

/**
 * Restricts the MCP tools the client's tokens may call to `tools` (checked names), or lifts the
 * restriction with `null`: every tool its tokens' scopes allow.
 */
export async function restrictOAuthClientTools(
  stores: ClientStores,
  id: string,
  tools: readonly string[] | null,
): Promise<OAuthClientRecord> {
  return change(stores, id, (client) => ({
    ...client,
    mcpTools: tools === null ? null : [...new Set(tools)],
  }));
}

async function change(
  stores: Pick<Stores, 'oauth'>,
  id: string,
  next: (client: OAuthClientRecord) => OAuthClientRecord,
): Promise<OAuthClientRecord> {
  const current = await stores.oauth.clients.get(id);
  if (!current) throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
  const client = next(current);
  if (!(await stores.oauth.clients.update(client)))
    throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
  return client;
}
