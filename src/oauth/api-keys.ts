import type { Clock, IdGenerator } from '../core/runtime.js';
import type { ApiKeyRecord, Stores } from '../core/storage/index.js';
import { validate } from '../core/validation.js';
import { HostApiKeyFields } from './admin-schemas.js';
import { hashSecret, randomSecret } from './secrets.js';

/** Every API key starts with this, so secret scanners and people can recognise one. */
export const API_KEY_PREFIX = 'sbk_';

/** What a new API key is called, which scopes it carries, and optionally the key itself. */
export interface CreateApiKeyInput {
  readonly name: string;
  readonly scopes: readonly string[];
  /** A key chosen by the host (e.g. from `SWITCHBOARD_API_KEY`), at least 32 characters; random when omitted. */
  readonly key?: string;
}

/** A new API key: its stored record, and the key itself, which is shown only this once. */
export interface CreatedApiKey {
  readonly record: ApiKeyRecord;
  /** The key itself: shown once, stored only hashed. */
  readonly key: string;
}

/** The clock and id generator used to create API keys. */
export interface ApiKeyOptions {
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/**
 * Creates a static API key. Send it as `Authorization: Bearer sbk_…`.
 *
 * @example
 * const { key } = await createApiKey(storage, { name: 'CRM sync', scopes: ['crm.clients.read'] },
 *   { clock: systemClock, ids: sortableIds });
 */
export async function createApiKey(
  stores: Pick<Stores, 'apiKeys'>,
  input: CreateApiKeyInput,
  options: ApiKeyOptions,
): Promise<CreatedApiKey> {
  const fields = validate(HostApiKeyFields, input);
  const key = fields.key ?? randomSecret(API_KEY_PREFIX);
  const record: ApiKeyRecord = {
    id: options.ids('key'),
    prefix: key.slice(0, key.startsWith(API_KEY_PREFIX) ? API_KEY_PREFIX.length + 6 : 6),
    hash: hashSecret(key),
    name: fields.name,
    scopes: [...new Set(fields.scopes)],
    createdAt: options.clock.now(),
    revokedAt: null,
    lastUsedAt: null,
  };
  await stores.apiKeys.insert(record);
  return { record, key };
}

/**
 * Makes sure a host-chosen key exists (e.g. the admin key from `SWITCHBOARD_API_KEY`): creates it on
 * first start, finds it on every later start and gives it the scopes it is started with (a resource
 * declared since then brings new ones). Idempotent across restarts and instances.
 */
export async function ensureApiKey(
  stores: Pick<Stores, 'apiKeys'>,
  input: CreateApiKeyInput & { readonly key: string },
  options: ApiKeyOptions,
): Promise<ApiKeyRecord> {
  const existing = await stores.apiKeys.findByHash(hashSecret(input.key));
  if (existing) {
    const scopes = [...new Set(input.scopes)];
    const same = scopes.length === existing.scopes.length && scopes.every((s) => existing.scopes.includes(s));
    if (same || !(await stores.apiKeys.setScopes(existing.id, scopes))) return existing;
    return { ...existing, scopes };
  }
  try {
    return (await createApiKey(stores, input, options)).record;
  } catch (error) {
    // Another instance created it between our lookup and insert.
    const raced = await stores.apiKeys.findByHash(hashSecret(input.key));
    if (raced) return raced;
    throw error;
  }
}
