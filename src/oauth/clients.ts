import { SwitchboardError } from '../core/errors.js';
import type { Clock, IdGenerator } from '../core/runtime.js';
import { isoAt } from '../core/runtime.js';
import type { OAuthClientRecord, OAuthGrantType, Stores } from '../core/storage/index.js';
import { redirectUriProblem } from './redirect-uri.js';
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
  readonly knownScopes: Readonly<Record<string, string>>;
}

/**
 * Registers an OAuth client through the storage interface.
 *
 * @example
 * const { client, secret } = await registerOAuthClient(storage, {
 *   name: 'Support bot', type: 'confidential', redirectUris: ['https://bot.example.com/callback'],
 *   scopes: ['crm.clients.read'],
 * }, { clock: systemClock, ids: sortableIds, knownScopes: SCOPES });
 */
export async function registerOAuthClient(
  stores: Pick<Stores, 'oauth'>,
  input: RegisterClientInput,
  options: RegisterClientOptions,
): Promise<RegisteredClient> {
  const problems = clientProblems(input, options.knownScopes);
  if (problems.length) {
    throw new SwitchboardError('validation_failed', 'The OAuth client is not valid.', { details: problems });
  }
  const secret = input.type === 'confidential' ? (input.secret ?? randomSecret('sbcs_')) : null;
  const grantTypes = input.grantTypes ?? ['authorization_code', 'refresh_token'];
  const client: OAuthClientRecord = {
    id: input.id ?? options.ids('oac'),
    name: input.name.trim(),
    secretHash: secret === null ? null : hashSecret(secret),
    redirectUris: [...input.redirectUris],
    scopes: [...new Set(input.scopes)],
    grantTypes: [...new Set(grantTypes)],
    createdAt: isoAt(options.clock.now()),
  };
  await stores.oauth.clients.insert(client);
  return { client, secret };
}

function clientProblems(
  input: RegisterClientInput,
  knownScopes: Readonly<Record<string, string>>,
): { field: string; code: string; message: string }[] {
  const problems: { field: string; code: string; message: string }[] = [];
  const add = (field: string, code: string, message: string): void => {
    problems.push({ field, code, message });
  };
  if (typeof input.name !== 'string' || !input.name.trim() || input.name.length > 200)
    add('name', 'invalid', 'Give a name of 1 to 200 characters.');
  if (input.type !== 'confidential' && input.type !== 'public')
    add('type', 'invalid', 'Use "confidential" or "public".');
  if (!Array.isArray(input.redirectUris)) add('redirectUris', 'invalid', 'Give a list of redirect URIs.');
  else
    input.redirectUris.forEach((uri, i) => {
      const problem = typeof uri === 'string' ? redirectUriProblem(uri) : 'Not a string.';
      if (problem) add(`redirectUris.${i}`, 'invalid_redirect_uri', problem);
    });
  if (!Array.isArray(input.scopes) || !input.scopes.length)
    add('scopes', 'required', 'Give at least one scope.');
  else
    input.scopes.forEach((scope, i) => {
      if (!(scope in knownScopes)) add(`scopes.${i}`, 'unknown_scope', `Unknown scope "${scope}".`);
    });
  if (input.grantTypes !== undefined && !Array.isArray(input.grantTypes))
    add('grantTypes', 'invalid', 'Give a list of grant types.');
  const grants = Array.isArray(input.grantTypes) ? input.grantTypes : [];
  for (const [i, grant] of grants.entries()) {
    if (!['authorization_code', 'refresh_token', 'client_credentials'].includes(grant))
      add(`grantTypes.${i}`, 'invalid', `Unsupported grant type "${grant}".`);
  }
  if (grants.includes('client_credentials') && input.type === 'public')
    add('grantTypes', 'invalid', 'Only confidential clients may use client_credentials.');
  if (grants.includes('authorization_code') || !input.grantTypes) {
    if (Array.isArray(input.redirectUris) && !input.redirectUris.length)
      add('redirectUris', 'required', 'The authorization code flow needs at least one redirect URI.');
  }
  if (input.secret !== undefined && (typeof input.secret !== 'string' || input.secret.length < 32))
    add('secret', 'too_short', 'A client secret must be at least 32 characters.');
  return problems;
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
 * await updateOAuthClient(storage, 'oac_1', { redirectUris: ['https://bot.example.com/cb'] }, { knownScopes: SCOPES });
 */
export async function updateOAuthClient(
  stores: Pick<Stores, 'oauth'>,
  id: string,
  input: UpdateClientInput,
  options: Pick<RegisterClientOptions, 'knownScopes'>,
): Promise<OAuthClientRecord> {
  const current = await stores.oauth.clients.get(id);
  if (!current) throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
  const next = {
    name: input.name ?? current.name,
    type: current.secretHash === null ? ('public' as const) : ('confidential' as const),
    redirectUris: input.redirectUris ?? current.redirectUris,
    scopes: input.scopes ?? current.scopes,
    grantTypes: current.grantTypes,
  };
  const problems = clientProblems(next, options.knownScopes);
  if (problems.length)
    throw new SwitchboardError('validation_failed', 'The OAuth client is not valid.', { details: problems });
  const client: OAuthClientRecord = {
    ...current,
    name: next.name.trim(),
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
      overlapMs > 0 ? { hash: current.secretHash, until: isoAt(options.clock.now() + overlapMs) } : null,
  };
  if (!(await stores.oauth.clients.update(client)))
    throw new SwitchboardError('not_found', `No OAuth client with id "${id}".`);
  return { client, secret };
}
