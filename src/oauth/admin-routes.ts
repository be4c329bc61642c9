import { z } from 'zod';
import type { ScopeCatalogue } from '../core/auth.js';
import { readJson } from '../http/body.js';
import { created, json, noContent } from '../http/responses.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import { ProblemSchema } from '../http/schemas.js';
import { apiKeyFields, clientChanges, clientRegistration, clientTools } from './admin-schemas.js';
import type { OAuthAdmin } from './admin-service.js';

/** The scope every admin route needs. */
export const ADMIN_SCOPE = 'admin.oauth.write';

/** The scope of OAuth administration, in words: part of every authorization server's catalogue. */
export const OAUTH_ADMIN_SCOPES: ScopeCatalogue = {
  [ADMIN_SCOPE]: 'Register OAuth clients and manage API keys',
};

/** Secrets and keys are in some answers: no cache keeps any of them. */
const NO_STORE = { 'cache-control': 'no-store' };
const tags = ['OAuth administration'];
const problem = (description: string) => ({ description, schema: ProblemSchema, name: 'Problem' });
const idParams = z.object({ id: z.string().min(1).meta({ description: 'Id', example: 'oac_1' }) });
// An empty parameter (a blank filter field of a form) filters nothing.
const grantQuery = z.object({
  user_id: z.string().optional().meta({ description: 'Only the grants of this user' }),
  client_id: z.string().optional().meta({ description: 'Only the grants to this client' }),
});

/** What the admin routes are checked against: the scopes that exist, and the largest body. */
export interface OAuthAdminRouteOptions {
  readonly knownScopes: ScopeCatalogue;
  readonly maxBodyBytes: number;
  /** The MCP tools a client may be restricted to (else any name of a tool's form). */
  readonly mcpTools?: (() => readonly string[]) | undefined;
}

/**
 * The admin routes of the authorization server, relative to `/oauth`, for holders of
 * `admin.oauth.write` (an admin API key): `GET|POST /clients`, `GET|PATCH|DELETE /clients/{id}`,
 * `POST /clients/{id}/secret` (rotate, with an overlap), `POST /clients/{id}/approve|disable|enable`,
 * `PUT /clients/{id}/mcp-tools`, `GET|POST /api-keys`, `DELETE /api-keys/{id}`,
 * `GET /grants?user_id=&client_id=` (live grants) and `DELETE /grants/{id}`. Served with the REST
 * conventions (budgets, problem+json, ETags) over the {@link OAuthAdmin} service. Secrets and keys
 * appear once, in the answer that creates them.
 */
export function oauthAdminRoutes(admin: OAuthAdmin, options: OAuthAdminRouteOptions): AnyRoute[] {
  const { knownScopes, maxBodyBytes } = options;
  // Approve, disable and enable: a POST without a body, answered with the client as it now is.
  const clientAction = (
    action: 'approve' | 'disable' | 'enable',
    operationId: string,
    summary: string,
    description: string,
    run: (id: string) => Promise<unknown>,
  ): AnyRoute =>
    defineRoute({
      method: 'POST',
      path: `/clients/{id}/${action}`,
      operationId,
      summary,
      description,
      tags,
      scope: ADMIN_SCOPE,
      params: idParams,
      responses: { 200: { description: 'The client as it now is' }, 404: problem('No such client') },
      handle: async ({ params }) => json(await run(params.id), { headers: NO_STORE }),
    });
  return [
    defineRoute({
      method: 'GET',
      path: '/clients',
      operationId: 'listOAuthClients',
      summary: 'List OAuth clients',
      tags,
      scope: ADMIN_SCOPE,
      responses: { 200: { description: 'Every client, oldest first, as `{ items }`' } },
      handle: async () => json({ items: await admin.listClients() }, { headers: NO_STORE }),
    }),
    defineRoute({
      method: 'POST',
      path: '/clients',
      operationId: 'registerOAuthClient',
      summary: 'Register an OAuth client',
      description: 'Answers the secret of a confidential client once; it is stored only hashed.',
      tags,
      scope: ADMIN_SCOPE,
      body: { schema: clientRegistration(knownScopes), name: 'OAuthClientRegistration' },
      responses: { 201: { description: 'The client and its secret, shown this once' } },
      async handle({ body, basePath }) {
        const { client, secret } = await admin.registerClient(body);
        return created({ ...client, secret }, `${basePath}/clients/${client.id}`, { headers: NO_STORE });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/clients/{id}',
      operationId: 'getOAuthClient',
      summary: 'Read an OAuth client',
      tags,
      scope: ADMIN_SCOPE,
      params: idParams,
      responses: { 200: { description: 'The client, never its secret' }, 404: problem('No such client') },
      handle: async ({ params }) => json(await admin.getClient(params.id), { headers: NO_STORE }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/clients/{id}',
      operationId: 'updateOAuthClient',
      summary: 'Change an OAuth client',
      description: 'Any of `name`, `redirectUris`, `scopes`, checked by the rules registration applies.',
      tags,
      scope: ADMIN_SCOPE,
      params: idParams,
      body: { schema: clientChanges(knownScopes), name: 'OAuthClientChanges' },
      responses: { 200: { description: 'The changed client' }, 404: problem('No such client') },
      handle: async ({ params, body }) =>
        json(await admin.updateClient(params.id, body), { headers: NO_STORE }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/clients/{id}',
      operationId: 'deleteOAuthClient',
      summary: 'Remove an OAuth client',
      description: 'Its grants are revoked, so its tokens stop working at once.',
      tags,
      scope: ADMIN_SCOPE,
      params: idParams,
      responses: { 204: { description: 'Removed (or there was none)' } },
      async handle({ params }) {
        await admin.deleteClient(params.id);
        return noContent();
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/clients/{id}/secret',
      operationId: 'rotateOAuthClientSecret',
      summary: "Rotate a client's secret",
      description:
        'A JSON body `{ "overlapSeconds": 3600 }` (default 86,400, at most 604,800), or none: the previous secret works that much longer. The new one is answered once.',
      tags,
      scope: ADMIN_SCOPE,
      params: idParams,
      responses: {
        200: { description: 'The client, its new secret and `previousSecretValidUntil`' },
        404: problem('No such client'),
        409: problem('A public client has no secret'),
      },
      async handle({ params, request }) {
        // Declared without a body: a rotation with the default overlap sends none.
        const input =
          request.headers.get('content-length') === '0' ? {} : await readJson(request, maxBodyBytes);
        const { client, ...rotated } = await admin.rotateClientSecret(params.id, input);
        return json({ ...client, ...rotated }, { headers: NO_STORE });
      },
    }),
    clientAction(
      'approve',
      'approveOAuthClient',
      'Approve an OAuth client',
      'Vouches for a client that registered itself: the consent page no longer calls it an unverified app. Approving twice keeps the first approval.',
      (id) => admin.approveClient(id),
    ),
    clientAction(
      'disable',
      'disableOAuthClient',
      'Disable an OAuth client',
      'It is refused at the authorization and token endpoints, and its grants are revoked, so the tokens it holds stop working at once. Enabling it does not bring them back.',
      (id) => admin.disableClient(id),
    ),
    clientAction(
      'enable',
      'enableOAuthClient',
      'Enable an OAuth client',
      'A disabled client may authorize and get tokens again; its users consent anew.',
      (id) => admin.enableClient(id),
    ),
    defineRoute({
      method: 'PUT',
      path: '/clients/{id}/mcp-tools',
      operationId: 'restrictOAuthClientTools',
      summary: 'Set the MCP tools a client may call',
      description:
        '`{ "tools": ["list_bookings"] }`: its tokens see and call only these tools on /mcp, and still only those their scopes allow; `{ "tools": null }`: every tool their scopes allow. Each name must be a tool /mcp serves.',
      tags,
      scope: ADMIN_SCOPE,
      params: idParams,
      body: { schema: clientTools(options.mcpTools), name: 'OAuthClientTools' },
      responses: { 200: { description: 'The changed client' }, 404: problem('No such client') },
      handle: async ({ params, body }) =>
        json(await admin.restrictClientTools(params.id, body), { headers: NO_STORE }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api-keys',
      operationId: 'listApiKeys',
      summary: 'List API keys',
      tags,
      scope: ADMIN_SCOPE,
      responses: { 200: { description: 'Every key, revoked ones too, oldest first, as `{ items }`' } },
      handle: async () => json({ items: await admin.listApiKeys() }, { headers: NO_STORE }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key',
      tags,
      scope: ADMIN_SCOPE,
      body: { schema: apiKeyFields(knownScopes), name: 'ApiKeyCreate' },
      responses: { 201: { description: 'The key, shown this once' } },
      async handle({ body, basePath }) {
        const { apiKey, key } = await admin.createApiKey(body);
        return created({ ...apiKey, key }, `${basePath}/api-keys/${apiKey.id}`, { headers: NO_STORE });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api-keys/{id}',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      tags,
      scope: ADMIN_SCOPE,
      params: idParams,
      responses: { 204: { description: 'Revoked (or there was none)' } },
      async handle({ params }) {
        await admin.revokeApiKey(params.id);
        return noContent();
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/grants',
      operationId: 'listGrants',
      summary: 'List live grants',
      description: 'Newest first, at most 500, with the name of each client.',
      tags,
      scope: ADMIN_SCOPE,
      query: grantQuery,
      responses: { 200: { description: 'The live grants that match, as `{ items }`' } },
      async handle({ query }) {
        const items = await admin.listGrants({
          ...(query.user_id ? { userId: query.user_id } : {}),
          ...(query.client_id ? { clientId: query.client_id } : {}),
        });
        return json({ items }, { headers: NO_STORE });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/grants/{id}',
      operationId: 'revokeGrant',
      summary: 'Revoke a grant',
      description: 'Its access and refresh tokens stop working at once.',
      tags,
      scope: ADMIN_SCOPE,
      params: idParams,
      responses: { 204: { description: 'Revoked (or there was none)' } },
      async handle({ params }) {
        await admin.revokeGrant(params.id);
        return noContent();
      },
    }),
  ];
}
