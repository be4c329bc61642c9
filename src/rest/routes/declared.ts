/**
 * The REST routes of a declared resource, with every convention the built-in ones keep: list with
 * page/limit, filters and sort; 201 + Location; ETag / If-Match; Idempotency-Key; 204; 404; problems;
 * a nested list under each client it relates to. A signed-in user sees only their own client's records.
 */
import { z } from 'zod';
import type { Principal } from '../../core/auth.js';
import { SwitchboardError } from '../../core/errors.js';
import { assertMayCreate, canSee, sortOf, sortSchemaOf, whereOf } from '../../core/resources/access.js';
import type { Resource } from '../../core/resources/define.js';
import type { ResourceService } from '../../core/resources/service.js';
import type { ResourceRecord } from '../../core/storage/index.js';
import { ifMatch } from '../../http/conditional.js';
import { PAGE_HEADERS, pageQuery, paginated, rangeOf } from '../../http/pagination.js';
import { created, json, noContent } from '../../http/responses.js';
import { type AnyRoute, defineRoute } from '../../http/route.js';
import { ProblemSchema, pageOf } from '../../http/schemas.js';
import { assertVisible, type ResourceRouteOptions } from './context.js';

const problem = (description: string) => ({ description, schema: ProblemSchema, name: 'Problem' });

export function declaredRoutes(service: ResourceService, options: ResourceRouteOptions): AnyRoute[] {
  const resource = service.resource;
  const { name, plural, typeName, owner } = resource;
  const tags = [typeName];
  const path = `/${plural}`;
  const one = `${path}/{id}`;
  const idParams = z.object({
    id: z
      .string()
      .min(1)
      .meta({ description: `${typeName} id` }),
  });
  const etagged = { ETag: `The version of the ${name}, for If-None-Match and If-Match` };
  const record = { schema: resource.recordSchema, name: typeName, headers: etagged };
  const listQuery = listQueryOf(resource, options);
  const currentVersion = (id: string) => async () => (await service.find(id))?.version ?? null;

  /** The record, unless it belongs to another user's client: then the same 404 as an absent one. */
  const visible = async (principal: Principal, id: string): Promise<ResourceRecord> => {
    const found = await service.get(id);
    if (!canSee(resource, principal, found))
      throw new SwitchboardError('not_found', `No ${name} with id "${id}".`);
    return found;
  };
  const list = async (principal: Principal, query: z.output<typeof listQuery>, url: URL, fixed = {}) => {
    const page = await service.list({
      where: whereOf(resource, principal, query, fixed),
      sort: sortOf(resource, query.sort),
      range: rangeOf(query),
    });
    return paginated(page, query, url);
  };
  const listResponses = {
    200: {
      description: `A page of ${plural}`,
      schema: pageOf(resource.recordSchema),
      name: `${typeName}Page`,
      headers: PAGE_HEADERS,
    },
    400: problem('A query parameter is not valid'),
  };

  const routes: AnyRoute[] = [
    defineRoute({
      method: 'GET',
      path,
      operationId: `list${typeName}s`,
      summary: `List ${plural}`,
      description: `Filters combine with AND; \`sort\` takes a field, \`-\` before it for descending.${owner ? ` A signed-in user sees only their own ${plural}.` : ''}`,
      tags,
      scope: resource.scopes.read,
      query: listQuery,
      responses: listResponses,
      handle: ({ query, principal, url }) => list(principal, query, url),
    }),
    defineRoute({
      method: 'POST',
      path,
      operationId: `create${typeName}`,
      summary: `Create a ${name}`,
      description: 'Send an `Idempotency-Key` header to make a retry return the first result.',
      tags,
      scope: resource.scopes.write,
      body: { schema: resource.createInput, name: `${typeName}Create` },
      responses: {
        201: {
          description: 'Created',
          ...record,
          headers: { Location: `URL of the new ${name}`, ...etagged },
        },
        403: problem(`A signed-in user may create ${plural} for their own client only`),
        422: problem('A field is not valid, or a reference names no record'),
      },
      async handle({ body, principal, basePath, idempotent }) {
        assertMayCreate(resource, principal, body);
        const respond = (r: ResourceRecord) =>
          created(r, `${basePath}${path}/${encodeURIComponent(r.id)}`, { version: r.version });
        return respond(await service.create(body, idempotent(respond)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: one,
      operationId: `get${typeName}`,
      summary: `Get a ${name}`,
      tags,
      scope: resource.scopes.read,
      params: idParams,
      responses: {
        200: { description: `The ${name}`, ...record },
        304: { description: 'Not modified since the ETag sent in If-None-Match' },
        404: problem(`No such ${name}`),
      },
      async handle({ params, principal }) {
        const found = await visible(principal, params.id);
        return json(found, { version: found.version });
      },
    }),
    defineRoute({
      method: 'PUT',
      path: one,
      operationId: `replace${typeName}`,
      summary: `Replace a ${name}`,
      description: 'Full replacement of the writable fields: an optional field left out is cleared.',
      tags,
      scope: resource.scopes.write,
      params: idParams,
      body: { schema: resource.replaceInput, name: `${typeName}Replace` },
      responses: {
        200: { description: `The updated ${name}`, ...record },
        404: problem(`No such ${name}`),
        412: problem('If-Match names a version that is no longer current'),
        422: problem('A field is missing or not valid'),
      },
      async handle({ params, principal, body, request }) {
        await visible(principal, params.id);
        const updated = await service.replace(
          params.id,
          body,
          await ifMatch(request, currentVersion(params.id)),
        );
        return json(updated, { version: updated.version });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: one,
      operationId: `update${typeName}`,
      summary: `Update some fields of a ${name}`,
      description: resource.lifecycle
        ? `JSON Merge Patch (RFC 7396). Sending \`${resource.lifecycle.field}\` moves the ${name} along its life cycle (409 when the move is not allowed).`
        : 'JSON Merge Patch (RFC 7396): only the fields sent change.',
      tags,
      scope: resource.scopes.write,
      params: idParams,
      body: {
        schema: resource.patchInput,
        name: `${typeName}Patch`,
        contentTypes: ['application/merge-patch+json', 'application/json'],
      },
      responses: {
        200: { description: `The updated ${name}`, ...record },
        404: problem(`No such ${name}`),
        409: problem('The life-cycle move is not allowed'),
        412: problem('If-Match names a version that is no longer current'),
        415: problem('The body is not JSON Merge Patch or JSON'),
        422: problem('A field is not valid'),
      },
      async handle({ params, principal, body, request }) {
        await visible(principal, params.id);
        const updated = await service.update(
          params.id,
          body,
          await ifMatch(request, currentVersion(params.id)),
        );
        return json(updated, { version: updated.version });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: one,
      operationId: `delete${typeName}`,
      summary: `Delete a ${name}`,
      tags,
      scope: resource.scopes.write,
      params: idParams,
      responses: {
        204: { description: 'Deleted' },
        404: problem(`No such ${name} (or already deleted)`),
        412: problem('If-Match names a version that is no longer current'),
      },
      async handle({ params, principal, request }) {
        await visible(principal, params.id);
        await service.delete(params.id, await ifMatch(request, currentVersion(params.id)));
        return noContent();
      },
    }),
  ];

  // A list under each client the resource relates to: /clients/{id}/returns.
  for (const [field, target] of Object.entries(resource.relations)) {
    if (target !== 'client') continue;
    routes.push(
      defineRoute({
        method: 'GET',
        path: `/clients/{id}/${plural}`,
        operationId: `list${typeName}sOfClient`,
        summary: `List a client's ${plural}`,
        tags,
        scope: resource.scopes.read,
        params: z.object({ id: z.string().min(1).meta({ description: 'Client id' }) }),
        query: listQuery,
        responses: { ...listResponses, 404: problem('No such client') },
        async handle({ params, query, principal, url }) {
          assertVisible(principal, params.id);
          if (!(await options.domain.clients.find(params.id)))
            throw new SwitchboardError('not_found', `No client with id "${params.id}".`);
          return list(principal, query, url, { [field]: params.id });
        },
      }),
    );
  }
  return routes;
}

function listQueryOf(resource: Resource, options: ResourceRouteOptions) {
  const filters = Object.fromEntries(
    resource.filters.map((f) => [
      f,
      z
        .string()
        .optional()
        .meta({ description: `Exact ${f}` }),
    ]),
  );
  return pageQuery(options.limits).extend({
    ...filters,
    sort: sortSchemaOf(resource)
      .optional()
      .meta({ description: 'Sort key; `-` before it for descending (default createdAt)' }),
  });
}
