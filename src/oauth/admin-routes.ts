import { type Authenticate, requireScope } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import { isoAt } from '../core/runtime.js';
import type { ApiKeyRecord, OAuthClientRecord } from '../core/storage/index.js';
import { readJson } from '../http/body.js';
import { jsonResponse } from '../http/json.js';
import { createApiKey } from './api-keys.js';
import {
  type RegisterClientInput,
  registerOAuthClient,
  rotateOAuthClientSecret,
  type UpdateClientInput,
  updateOAuthClient,
} from './clients.js';
import type { ServerContext } from './server-options.js';

/** The scope every admin route needs. */
export const ADMIN_SCOPE = 'admin.oauth.write';

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Admin REST routes for OAuth clients and API keys, for holders of `admin.oauth.write` (an admin API key):
 * `GET|POST /oauth/clients`, `GET|PATCH|DELETE /oauth/clients/{id}`, `POST /oauth/clients/{id}/secret`
 * (rotate, with an overlap), `GET|POST /oauth/api-keys`, `DELETE /oauth/api-keys/{id}`. Secrets and keys
 * appear once, in the response that creates them.
 */
export function adminRoutes(
  ctx: ServerContext,
  authenticate: Authenticate,
): (request: Request, path: string) => Promise<Response | null> {
  return async (request, path) => {
    const match = /^\/oauth\/(clients|api-keys)(?:\/([^/]+)(\/secret)?)?$/.exec(path);
    if (!match) return null;
    const [, kind, id, secretPath] = match;
    if (secretPath && kind !== 'clients') return null;
    requireScope(await authenticate(request), ADMIN_SCOPE);
    const { method } = request;
    const now = (): number => ctx.clock.now();
    const stores = ctx.storage;

    if (kind === 'clients' && secretPath) {
      if (method !== 'POST')
        throw new SwitchboardError('method_not_allowed', `${method} is not allowed on ${path}.`);
      const body =
        request.headers.get('content-length') === '0' ? {} : await readJson(request, ctx.maxBodyBytes);
      const overlap = (body as { overlapSeconds?: unknown } | null)?.overlapSeconds;
      if (overlap !== undefined && typeof overlap !== 'number') throw notObject();
      const { client, secret } = await rotateOAuthClientSecret(stores, id!, {
        clock: ctx.clock,
        ...(overlap === undefined ? {} : { overlapMs: overlap * 1000 }),
      });
      return jsonResponse(
        200,
        { ...clientView(client), secret, previousSecretValidUntil: client.previousSecret?.until ?? null },
        NO_STORE,
      );
    }
    if (kind === 'clients') {
      if (id !== undefined && method === 'PATCH') {
        const body = (await readJson(request, ctx.maxBodyBytes)) as UpdateClientInput | null;
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw notObject();
        const { name, redirectUris, scopes } = body;
        const client = await updateOAuthClient(
          stores,
          id,
          {
            ...(name === undefined ? {} : { name }),
            ...(redirectUris === undefined ? {} : { redirectUris }),
            ...(scopes === undefined ? {} : { scopes }),
          },
          { knownScopes: ctx.scopes },
        );
        return jsonResponse(200, clientView(client), NO_STORE);
      }
      if (id === undefined && method === 'GET') {
        return jsonResponse(200, { items: (await stores.oauth.clients.list()).map(clientView) }, NO_STORE);
      }
      if (id === undefined && method === 'POST') {
        const body = (await readJson(request, ctx.maxBodyBytes)) as Partial<RegisterClientInput> | null;
        if (typeof body !== 'object' || body === null) throw notObject();
        const { client, secret } = await registerOAuthClient(
          stores,
          {
            name: body.name as string,
            type: body.type as RegisterClientInput['type'],
            redirectUris: body.redirectUris ?? [],
            scopes: body.scopes ?? [],
            ...(body.grantTypes === undefined ? {} : { grantTypes: body.grantTypes }),
          },
          { clock: ctx.clock, ids: ctx.ids, knownScopes: ctx.scopes },
        );
        return jsonResponse(
          201,
          { ...clientView(client), secret },
          { ...NO_STORE, location: `${path}/${client.id}` },
        );
      }
      if (id !== undefined && method === 'GET') {
        const client = await stores.oauth.clients.get(id);
        if (!client) throw notFound('OAuth client', id);
        return jsonResponse(200, clientView(client), NO_STORE);
      }
      if (id !== undefined && method === 'DELETE') {
        await stores.transaction(async (tx) => {
          await tx.oauth.grants.revokeByClient(id, now());
          await tx.oauth.clients.delete(id);
        });
        return new Response(null, { status: 204 });
      }
    } else {
      if (id === undefined && method === 'GET') {
        return jsonResponse(200, { items: (await stores.apiKeys.list()).map(keyView) }, NO_STORE);
      }
      if (id === undefined && method === 'POST') {
        const body = (await readJson(request, ctx.maxBodyBytes)) as {
          name?: string;
          scopes?: string[];
        } | null;
        if (typeof body !== 'object' || body === null) throw notObject();
        const scopes: unknown[] = Array.isArray(body.scopes) ? body.scopes : [];
        const unknown = scopes.map(String).filter((s) => !(s in ctx.scopes));
        if (unknown.length) {
          throw new SwitchboardError('validation_failed', `Unknown scopes: ${unknown.join(', ')}.`, {
            details: unknown.map((s) => ({
              field: 'scopes',
              code: 'unknown_scope',
              message: `Unknown scope "${s}".`,
            })),
          });
        }
        const { record, key } = await createApiKey(
          stores,
          { name: body.name as string, scopes: body.scopes as string[] },
          { clock: ctx.clock, ids: ctx.ids },
        );
        return jsonResponse(
          201,
          { ...keyView(record), key },
          { ...NO_STORE, location: `${path}/${record.id}` },
        );
      }
      if (id !== undefined && method === 'DELETE') {
        // Idempotent: revoking twice, or a key that is gone, is still "revoked".
        await stores.apiKeys.revoke(id, isoAt(now()));
        return new Response(null, { status: 204 });
      }
    }
    throw new SwitchboardError('method_not_allowed', `${method} is not allowed on ${path}.`);
  };
}

function clientView(client: OAuthClientRecord): Record<string, unknown> {
  return {
    id: client.id,
    name: client.name,
    type: client.secretHash === null ? 'public' : 'confidential',
    redirectUris: client.redirectUris,
    scopes: client.scopes,
    grantTypes: client.grantTypes,
    createdAt: client.createdAt,
  };
}

function keyView(key: ApiKeyRecord): Record<string, unknown> {
  const { hash: _hash, ...view } = key;
  return view;
}

const notObject = (): SwitchboardError => new SwitchboardError('bad_request', 'Send a JSON object.');
const notFound = (what: string, id: string): SwitchboardError =>
  new SwitchboardError('not_found', `No ${what} with id "${id}".`);
