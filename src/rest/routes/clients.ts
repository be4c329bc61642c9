import { z } from 'zod';
import { SwitchboardError } from '../../core/errors.js';
import type { Client } from '../../core/records.js';
import { ClientCreateInput, ClientPatchInput, ClientReplaceInput } from '../../core/validation.js';
import { ifMatch } from '../../http/conditional.js';
import { PAGE_HEADERS, pageQuery, paginated, rangeOf } from '../../http/pagination.js';
import { created, json, noContent } from '../../http/responses.js';
import { type AnyRoute, defineRoute } from '../../http/route.js';
import { ProblemSchema, pageOf } from '../../http/schemas.js';
import { ClientSchema } from '../schemas.js';
import { assertVisible, type ResourceRouteOptions } from './context.js';

const idParams = z.object({ id: z.string().min(1).meta({ description: 'Client id', example: 'cli_1' }) });
const problem = (description: string) => ({ description, schema: ProblemSchema, name: 'Problem' });
const etagged = { ETag: 'The version of the client, for If-None-Match and If-Match' };

/** `/clients` and `/clients/{id}`: list, create, read, replace, patch, delete. */
export function clientRoutes(options: ResourceRouteOptions): AnyRoute[] {
  const { domain } = options;
  const tags = ['Clients'];
  const currentVersion = (id: string) => async () => (await domain.clients.find(id))?.version ?? null;
  const listQuery = pageQuery(options.limits).extend({
    city: z.string().optional().meta({ description: 'Exact city' }),
    email: z.string().optional().meta({ description: 'Exact e-mail (case-insensitive)' }),
    name: z.string().optional().meta({ description: 'Part of the name (case-insensitive)' }),
  });

  return [
    defineRoute({
      method: 'GET',
      path: '/clients',
      operationId: 'listClients',
      summary: 'List clients',
      description: 'Filters combine with AND. A signed-in user sees only their own client record.',
      tags,
      scope: 'crm.clients.read',
      query: listQuery,
      responses: {
        200: {
          description: 'A page of clients',
          schema: pageOf(ClientSchema),
          name: 'ClientPage',
          headers: PAGE_HEADERS,
        },
        400: problem('A query parameter is not valid'),
      },
      async handle({ query, principal, url }) {
        const filter = {
          city: query.city,
          email: query.email?.trim().toLowerCase(),
          nameContains: query.name,
        };
        if (principal.userId === undefined) {
          return paginated(await domain.clients.list(filter, rangeOf(query)), query, url);
        }
        const own = await domain.clients.find(principal.userId);
        const matches = own && matchesFilter(own, filter) ? [own] : [];
        const start = (query.page - 1) * query.limit;
        return paginated(
          { items: matches.slice(start, start + query.limit), total: matches.length },
          query,
          url,
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/clients',
      operationId: 'createClient',
      summary: 'Create a client',
      description:
        'Not idempotent: two identical POSTs create two clients (or the second fails with 409 when the ' +
        'e-mail is taken). Send an `Idempotency-Key` header to make a retry return the first result.',
      tags,
      scope: 'crm.clients.write',
      body: { schema: ClientCreateInput, name: 'ClientCreate' },
      responses: {
        201: {
          description: 'Created',
          schema: ClientSchema,
          name: 'Client',
          headers: { Location: 'URL of the new client', ...etagged },
        },
        409: problem('The e-mail is already used by another client'),
        422: problem('A field is not valid'),
      },
      async handle({ body, principal, basePath, idempotent }) {
        if (principal.userId !== undefined) {
          throw new SwitchboardError('forbidden', 'A signed-in user cannot create other clients.');
        }
        const respond = (client: Client) =>
          created(client, `${basePath}/clients/${encodeURIComponent(client.id)}`, {
            version: client.version,
          });
        return respond(await domain.clients.create(body, idempotent(respond)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/clients/{id}',
      operationId: 'getClient',
      summary: 'Get a client',
      tags,
      scope: 'crm.clients.read',
      params: idParams,
      responses: {
        200: { description: 'The client', schema: ClientSchema, name: 'Client', headers: etagged },
        304: { description: 'Not modified since the ETag sent in If-None-Match' },
        404: problem('No such client'),
      },
      async handle({ params, principal }) {
        assertVisible(principal, params.id);
        const client = await domain.clients.get(params.id);
        return json(client, { version: client.version });
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/clients/{id}',
      operationId: 'replaceClient',
      summary: 'Replace a client',
      description: 'Full replacement: every field is required; send `null` to clear `phone` or `city`.',
      tags,
      scope: 'crm.clients.write',
      params: idParams,
      body: { schema: ClientReplaceInput, name: 'ClientReplace' },
      responses: {
        200: { description: 'The updated client', schema: ClientSchema, name: 'Client', headers: etagged },
        404: problem('No such client'),
        409: problem('The e-mail is already used by another client'),
        412: problem('If-Match names a version that is no longer current'),
        422: problem('A field is missing or not valid'),
      },
      async handle({ params, principal, body, request }) {
        assertVisible(principal, params.id);
        const write = await ifMatch(request, currentVersion(params.id));
        const client = await domain.clients.replace(params.id, body, write);
        return json(client, { version: client.version });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/clients/{id}',
      operationId: 'updateClient',
      summary: 'Update some fields of a client',
      description:
        'JSON Merge Patch (RFC 7396): only the fields sent change; `null` clears `phone` or `city`.',
      tags,
      scope: 'crm.clients.write',
      params: idParams,
      body: {
        schema: ClientPatchInput,
        name: 'ClientPatch',
        contentTypes: ['application/merge-patch+json', 'application/json'],
      },
      responses: {
        200: { description: 'The updated client', schema: ClientSchema, name: 'Client', headers: etagged },
        404: problem('No such client'),
        409: problem('The e-mail is already used by another client'),
        412: problem('If-Match names a version that is no longer current'),
        415: problem('The body is not JSON Merge Patch or JSON'),
        422: problem('A field is not valid'),
      },
      async handle({ params, principal, body, request }) {
        assertVisible(principal, params.id);
        const write = await ifMatch(request, currentVersion(params.id));
        const client = await domain.clients.update(params.id, body, write);
        return json(client, { version: client.version });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/clients/{id}',
      operationId: 'deleteClient',
      summary: 'Delete a client and its orders',
      description: 'Idempotent in effect: deleting again answers 404 and changes nothing.',
      tags,
      scope: 'crm.clients.write',
      params: idParams,
      responses: {
        204: { description: 'Deleted' },
        404: problem('No such client (or already deleted)'),
        412: problem('If-Match names a version that is no longer current'),
      },
      async handle({ params, principal, request }) {
        assertVisible(principal, params.id);
        await domain.clients.delete(params.id, await ifMatch(request, currentVersion(params.id)));
        return noContent();
      },
    }),
  ];
}

function matchesFilter(
  client: Client,
  filter: { city?: string; email?: string; nameContains?: string },
): boolean {
  return (
    (filter.city === undefined || client.city === filter.city) &&
    (filter.email === undefined || client.email === filter.email) &&
    (filter.nameContains === undefined ||
      client.name.toLowerCase().includes(filter.nameContains.toLowerCase()))
  );
}
