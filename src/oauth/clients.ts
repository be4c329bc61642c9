import type { ScopeCatalogue } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import type { Clock, IdGenerator } from '../core/runtime.js';
import type { OAuthClientRecord, OAuthGrantType, Stores } from '../core/storage/index.js';
import { validate } from '../core/validation.js';
import {
  clientChanges,
  clientRegistration,
  DEFAULT_GRANT_TYPES,
  hostClientRegistration,
} from './admin-schemas.js';
import { hashSecret, randomSecret } from './secrets.js';

/** What a new OAuth client is: its name, type, redirect URIs, scopes and grant types. */
export interface RegisterClientInput {
  readonly name: string;
  /** `confidential` clients get a secret (server-side apps); `public` ones (SPAs, native) use PKCE. */
  readonly type: 'confidential' | 'public';
  readonly redirectUris: readonly string[];
  /** The most this client may be granted. */
  readonly scopes: readonly string[];
  /** Default: code + refresh; add `client_credentials` for machine clients (confidential only). */
  readonly grantTypes?: readonly OAuthGrantType[];
  /** A fixed id, e.g. a demo client configured by environment; generated when omitted. */
  readonly id?: string;
  /** A fixed secret (at least 32 characters); generated when omitted. */
  readonly secret?: string;
}

/** A newly registered (or re-keyed) OAuth client: its record, and its plain secret, shown only this once. */
export interface RegisteredClient {
  readonly client: OAuthClientRecord;
  /** The plain secret: shown once, stored only hashed. `null` for public clients. */
  readonly secret: string | null;
}

/** The clock, id generator and known scopes used to register an OAuth client. */
export interface RegisterClientOptions {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Scopes that exist; a client may not ask for others. */
  readonly knownScopes: ScopeCatalogue;
}

/**
 * Registers an OAuth client through the storage interface.
 *
 * @example
 * const { client, secret } = await registerOAuthClient(storage, {
 *   name: 'Support bot', type: 'confidential', redirectUris: ['https://bot.example.com/callback'],
 *   scopes: ['crm.clients.read'],
 * }, { clock: systemClock, ids: sortableIds, knownScopes: scopeCatalogue([clients]) });
 */
export async function registerOAuthClient(
  stores: Pick<Stores, 'oauth'>,
  input: RegisterClientInput,
  options: RegisterClientOptions,
): Promise<RegisteredClient> {
  const fields = validate(hostClientRegistration(options.knownScopes), input);
  const secret = fields.type === 'confidential' ? (fields.secret ?? randomSecret('sbcs_')) : null;
  const client: OAuthClientRecord = {
    id: fields.id ?? options.ids('oac'),
    name: fields.name,
    secretHash: secret === null ? null : hashSecret(secret),
    redirectUris: [...fields.redirectUris],
    scopes: [...new Set(fields.scopes)],
    grantTypes: [...new Set(fields.grantTypes ?? DEFAULT_GRANT_TYPES)],
    createdAt: options.clock.now(),
  };
  await stores.oauth.clients.insert(client);
  return { client, secret };
}

/** What an admin may change on a registered client; the rest (id, type, grant types) stays. */
export interface UpdateClientInput {
  readonly name?: string;
  readonly redirectUris?: readonly string[];
  /** Narrowing does not shrink tokens already issued; new ones get at most these. */
  readonly scopes?: readonly string[];
}

/**
 * Changes a client's name, redirect URIs or scopes, checked by the rules registration applies.
 *
 * @example
 * await updateOAuthClient(storage, 'oac_1', { redirectUris: ['https://bot.example.com/cb'] }, { knownScopes: scopeCatalogue([clients]) });
 */
export async function updateOAuthClient(
  stores: Pick<Stores, 'oauth'>,
  id: string,
  input: UpdateClientInput,
  options: Pick<RegisterClientOptions, 'knownScopes'>,
): Promise<OAuthClientRecord> {
  const changes = validate(clientChanges(options.knownScopes), input);
  const current = await stores.oauth.clients.get(id);
  if (!current) throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
  // The client as it would be, checked whole: a change must leave it a client registration accepts.
  const next = validate(clientRegistration(options.knownScopes), {
    name: changes.name ?? current.name,
    type: current.secretHash === null ? 'public' : 'confidential',
    redirectUris: changes.redirectUris ?? current.redirectUris,
    scopes: changes.scopes ?? current.scopes,
    grantTypes: current.grantTypes,
  });
  const client: OAuthClientRecord = {
    ...current,
    name: next.name,
    redirectUris: [...next.redirectUris],
    scopes: [...new Set(next.scopes)],
  };
  if (!(await stores.oauth.clients.update(client)))
    throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
  return client;
}

/** Longest a replaced client secret may stay valid. */
export const MAX_SECRET_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Gives a confidential client a new secret (returned once, stored hashed). The old one keeps working
 * for `overlapMs` (default 24 h, at most 7 days; 0 ends it at once), so the app can switch without
 * downtime, like a webhook secret rotation.
 */
export async function rotateOAuthClientSecret(
  stores: Pick<Stores, 'oauth'>,
  id: string,
  options: { readonly clock: Clock; readonly overlapMs?: number },
): Promise<RegisteredClient> {
  const overlapMs = options.overlapMs ?? 24 * 60 * 60 * 1000;
  if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_SECRET_OVERLAP_MS)
    throw new SwitchboardError(
      'validation_failed',
      'The input is not valid: overlapSeconds must be between 0 and 604800.',
      {
        details: [
          {
            field: 'overlapSeconds',
            code: 'out_of_range',
            message: 'overlapSeconds must be between 0 and 604800.',
          },
        ],
      },
    );
  const current = await stores.oauth.clients.get(id);
  if (!current) throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
  if (current.secretHash === null)
    throw new SwitchboardError('conflict', 'A public client has no secret to rotate.');
  const secret = randomSecret('sbcs_');
  const client: OAuthClientRecord = {
    ...current,
    secretHash: hashSecret(secret),
    previousSecret:
      overlapMs > 0 ? { hash: current.secretHash, until: options.clock.now() + overlapMs } : null,
  };
  if (!(await stores.oauth.clients.update(client)))
    throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
  return { client, secret };
}
