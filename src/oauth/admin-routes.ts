import { type Authenticate, requireScope } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import { readJson } from '../http/body.js';
import { jsonResponse } from '../http/json.js';
import type { OAuthAdmin } from './admin-service.js';

/** The scope every admin route needs. */
export const ADMIN_SCOPE = 'admin.oauth.write';

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Admin REST routes over the {@link OAuthAdmin} service, for holders of `admin.oauth.write` (an admin
 * API key): `GET|POST /oauth/clients`, `GET|PATCH|DELETE /oauth/clients/{id}`,
 * `POST /oauth/clients/{id}/secret` (rotate, with an overlap), `GET|POST /oauth/api-keys`,
 * `DELETE /oauth/api-keys/{id}`, `GET /oauth/grants?user_id=&client_id=` (live grants) and
 * `DELETE /oauth/grants/{id}`. Secrets and keys appear once, in the response that creates them.
 */
export function adminRoutes(
  admin: OAuthAdmin,
  authenticate: Authenticate,
  options: { readonly maxBodyBytes: number },
): (request: Request, path: string) => Promise<Response | null> {
  const body = (request: Request): Promise<unknown> => readJson(request, options.maxBodyBytes);

  return async (request, path) => {
    const match = /^\/oauth\/(clients|api-keys|grants)(?:\/([^/]+)(\/secret)?)?$/.exec(path);
    if (!match) return null;
    const [, kind, id, secretPath] = match;
    if (secretPath && kind !== 'clients') return null;
    requireScope(await authenticate(request), ADMIN_SCOPE);
    const { method } = request;

    if (kind === 'clients' && secretPath) {
      if (method !== 'POST')
        throw new SwitchboardError('method_not_allowed', `${method} is not allowed on ${path}.`);
      const input = request.headers.get('content-length') === '0' ? {} : await body(request);
      const { client, ...rotated } = await admin.rotateClientSecret(id!, input);
      return jsonResponse(200, { ...client, ...rotated }, NO_STORE);
    }
    if (kind === 'clients') {
      if (id === undefined && method === 'GET')
        return jsonResponse(200, { items: await admin.listClients() }, NO_STORE);
      if (id === undefined && method === 'POST') {
        const { client, secret } = await admin.registerClient(await body(request));
        return jsonResponse(201, { ...client, secret }, { ...NO_STORE, location: `${path}/${client.id}` });
      }
      if (id !== undefined && method === 'GET') return jsonResponse(200, await admin.getClient(id), NO_STORE);
      if (id !== undefined && method === 'PATCH')
        return jsonResponse(200, await admin.updateClient(id, await body(request)), NO_STORE);
      if (id !== undefined && method === 'DELETE') {
        await admin.deleteClient(id);
        return new Response(null, { status: 204 });
      }
    } else if (kind === 'api-keys') {
      if (id === undefined && method === 'GET')
        return jsonResponse(200, { items: await admin.listApiKeys() }, NO_STORE);
      if (id === undefined && method === 'POST') {
        const { apiKey, key } = await admin.createApiKey(await body(request));
        return jsonResponse(201, { ...apiKey, key }, { ...NO_STORE, location: `${path}/${apiKey.id}` });
      }
      if (id !== undefined && method === 'DELETE') {
        await admin.revokeApiKey(id);
        return new Response(null, { status: 204 });
      }
    } else {
      if (id === undefined && method === 'GET') {
        const query = new URL(request.url).searchParams;
        // An empty parameter (a blank filter field of a form) filters nothing.
        const userId = query.get('user_id') || undefined;
        const clientId = query.get('client_id') || undefined;
        const items = await admin.listGrants({
          ...(userId === undefined ? {} : { userId }),
          ...(clientId === undefined ? {} : { clientId }),
        });
        return jsonResponse(200, { items }, NO_STORE);
      }
      if (id !== undefined && method === 'DELETE') {
        await admin.revokeGrant(id);
        return new Response(null, { status: 204 });
      }
    }
    throw new SwitchboardError('method_not_allowed', `${method} is not allowed on ${path}.`);
  };
}
