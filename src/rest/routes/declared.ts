/**
 * The REST routes of a resource, built-in or declared, with every convention: list with page/limit,
 * filters, searches and sort; 201 + Location; ETag / If-Match; Idempotency-Key; 204; 404; problems;
 * lists and creates under the client that owns the records (`/clients/{id}/orders`, and
 * `/users/{user_id}/orders` with `me`) and under the fields that group them
 * (`/chatbots/{chatbot_id}/messages`). A signed-in user sees only their own client's records.
 */
import { z } from 'zod';
import type { Principal } from '../../core/auth.js';
import { SwitchboardError } from '../../core/errors.js';
import type { Resource } from '../../core/resources/define.js';
import { pascal } from '../../core/resources/names.js';
import { sortOf, whereOf } from '../../core/resources/query.js';
import type { ResourceService } from '../../core/resources/service.js';
import { wireOf } from '../../core/resources/wire.js';
import type { ResourceRecord } from '../../core/storage/index.js';
import { ifMatch } from '../../http/conditional.js';
import { listQueryOf } from '../../http/list-query.js';
import { PAGE_HEADERS, paginated, rangeOf } from '../../http/pagination.js';
import { idParams } from '../../http/request.js';
import { created, json, noContent } from '../../http/responses.js';
import { type AnyRoute, defineRoute, type RouteContext } from '../../http/route.js';
import { ProblemSchema, pageOf } from '../../http/schemas.js';
import type { ResourceRouteOptions } from './context.js';

const problem = (description: string) => ({ description, schema: ProblemSchema, name: 'Problem' });

export function declaredRoutes(service: ResourceService, options: ResourceRouteOptions): AnyRoute[] {
  const resource = service.resource;
  const { name, plural, typeName, owner, changes } = resource;
  const Plural = resource.names.pluralType;
  const tags = [typeName];
  const path = `/${plural}`;
  const one = `${path}/{id}`;
  const byId = idParams({ id: `${typeName} id` });
  const wire = wireOf(resource, options.apiVersion ?? 1);
  const etagged = resource.versioned
    ? { ETag: `The version of the ${name}, for If-None-Match and If-Match` }
    : undefined;
  const record = { schema: wire.recordSchema, name: typeName, ...(etagged ? { headers: etagged } : {}) };
  const listQuery = listQueryOf(resource, options.limits);
  // Every call goes through the service acting for the caller: it alone decides what they may reach.
  const currentVersion = (principal: Principal, id: string) => async () =>
    (await service.for(principal).find(id))?.version ?? null;
  const tagOf = (r: ResourceRecord) => (resource.versioned ? { version: r.version } : {});

  const list = async (principal: Principal, query: z.output<typeof listQuery>, url: URL, fixed = {}) => {
    const page = await service.for(principal).list({
      where: whereOf(resource, query, fixed),
      sort: sortOf(resource, query.sort),
      range: rangeOf(query),
    });
    return paginated(page, query, url, wire.present);
  };
  const create = async (
    body: Record<string, unknown>,
    fixed: Record<string, unknown>,
    context: { principal: Principal; basePath: string; idempotent: IdempotentOf },
  ) => {
    const input = { ...wire.accept(body), ...fixed };
    const respond = (r: ResourceRecord) =>
      created(wire.present(r), `${context.basePath}${path}/${encodeURIComponent(r.id)}`, tagOf(r));
    return respond(await service.for(context.principal).create(input, context.idempotent(respond)));
  };
  const listResponses = {
    200: {
      description: `A page of ${plural}`,
      schema: pageOf(wire.recordSchema),
      name: `${typeName}Page`,
      headers: PAGE_HEADERS,
    },
    400: problem('A query parameter is not valid'),
  };
  const createdResponse = {
    description: 'Created',
    ...record,
    headers: { Location: `URL of the new ${name}`, ...etagged },
  };
  const idempotency = 'Send an `Idempotency-Key` header to make a retry return the first result.';

  const routes: AnyRoute[] = [
    defineRoute({
      method: 'GET',
      path,
      operationId: `list${Plural}`,
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
      description: idempotency,
      tags,
      scope: resource.scopes.write,
      body: { schema: wire.createInput, name: `${typeName}Create` },
      responses: {
        201: createdResponse,
        403: problem(`A signed-in user may not create this ${name}`),
        409: problem('A record with the same unique value exists, or a rule refuses it'),
        422: problem('A field is not valid, or a reference names no record'),
      },
      handle: ({ body, principal, basePath, idempotent }) =>
        create(body as Record<string, unknown>, {}, { principal, basePath, idempotent }),
    }),
    defineRoute({
      method: 'GET',
      path: one,
      operationId: `get${typeName}`,
      summary: `Get a ${name}`,
      tags,
      scope: resource.scopes.read,
      params: byId,
      responses: {
        200: { description: `The ${name}`, ...record },
        304: { description: 'Not modified since the ETag sent in If-None-Match' },
        404: problem(`No such ${name}`),
      },
      async handle({ params, principal }) {
        const found = await service.for(principal).get(params.id);
        return json(wire.present(found), tagOf(found));
      },
    }),
  ];
  if (changes.replace)
    routes.push(
      defineRoute({
        method: 'PUT',
        path: one,
        operationId: `replace${typeName}`,
        summary: `Replace a ${name}`,
        description:
          'Full replacement of the writable fields: send each one (`null` clears a nullable one); an optional field left out is cleared.',
        tags,
        scope: resource.scopes.write,
        params: byId,
        body: { schema: resource.replaceInput, name: `${typeName}Replace` },
        responses: {
          200: { description: `The updated ${name}`, ...record },
          404: problem(`No such ${name}`),
          409: problem('A record with the same unique value exists, or a rule refuses it'),
          412: problem('If-Match names a version that is no longer current'),
          422: problem('A field is missing or not valid'),
        },
        async handle({ params, principal, body, request }) {
          const write = await ifMatch(request, currentVersion(principal, params.id));
          const updated = await service.for(principal).replace(params.id, body, write);
          return json(wire.present(updated), tagOf(updated));
        },
      }),
    );
  if (changes.update)
    routes.push(
      defineRoute({
        method: 'PATCH',
        path: one,
        operationId: `update${typeName}`,
        summary: resource.writable.length
          ? `Update some fields of a ${name}`
          : `Move a ${name} along its life cycle`,
        description: patchDescription(resource),
        tags,
        scope: resource.scopes.write,
        params: byId,
        body: {
          schema: resource.patchInput,
          name: `${typeName}Patch`,
          contentTypes: ['application/merge-patch+json', 'application/json'],
        },
        responses: {
          200: { description: `The updated ${name}`, ...record },
          404: problem(`No such ${name}`),
          409: problem('The life-cycle move is not allowed, or a unique value or rule refuses the change'),
          412: problem('If-Match names a version that is no longer current'),
          415: problem('The body is not JSON Merge Patch or JSON'),
          422: problem('A field is not valid'),
        },
        async handle({ params, principal, body, request }) {
          const write = await ifMatch(request, currentVersion(principal, params.id));
          const updated = await service.for(principal).update(params.id, body, write);
          return json(wire.present(updated), tagOf(updated));
        },
      }),
    );
  if (changes.delete)
    routes.push(
      defineRoute({
        method: 'DELETE',
        path: one,
        operationId: `delete${typeName}`,
        summary: `Delete a ${name}`,
        description: `Deletes the records it owns with it.`,
        tags,
        scope: resource.scopes.write,
        params: byId,
        responses: {
          204: { description: 'Deleted' },
          404: problem(`No such ${name} (or already deleted)`),
          412: problem('If-Match names a version that is no longer current'),
        },
        async handle({ params, principal, request }) {
          const write = await ifMatch(request, currentVersion(principal, params.id));
          await service.for(principal).delete(params.id, write);
          return noContent();
        },
      }),
    );

  // Under the client that owns the records: /clients/{id}/orders, and /users/{user_id}/orders.
  if (owner && owner !== 'id' && resource.relations[owner] === 'client') {
    const clientParams = idParams({ id: 'Client id' });
    const owners = options.domain.resources[resource.relations[owner]!]!;
    // The client must exist and be the caller's to reach: else the same 404 either way.
    const clientExists = async (principal: Principal, id: string, kind = 'client') => {
      if (!(await owners.for(principal).exists(id)))
        throw new SwitchboardError('not_found', `No ${kind} with id "${id}".`);
    };
    routes.push(
      defineRoute({
        method: 'GET',
        path: `/clients/{id}/${plural}`,
        operationId: `listClient${Plural}`,
        summary: `List the ${plural} of a client`,
        tags,
        scope: resource.scopes.read,
        params: clientParams,
        query: listQuery,
        responses: { ...listResponses, 404: problem('No such client') },
        async handle({ params, query, principal, url }) {
          await clientExists(principal, params.id);
          return list(principal, query, url, { [owner]: params.id });
        },
      }),
      defineRoute({
        method: 'POST',
        path: `/clients/{id}/${plural}`,
        operationId: `createClient${typeName}`,
        summary: `Create a ${name} for a client`,
        description: idempotency,
        tags,
        scope: resource.scopes.write,
        params: clientParams,
        body: {
          schema: without(wire.createInput, owner),
          name: `Client${typeName}Create`,
        },
        responses: {
          201: createdResponse,
          404: problem('No such client'),
          409: problem('A record with the same unique value exists, or a rule refuses it'),
          422: problem('A field is not valid, or a reference names no record'),
        },
        async handle({ params, body, principal, basePath, idempotent }) {
          await clientExists(principal, params.id);
          return create(
            body as Record<string, unknown>,
            { [owner]: params.id },
            { principal, basePath, idempotent },
          );
        },
      }),
      defineRoute({
        method: 'GET',
        path: `/users/{user_id}/${plural}`,
        operationId: `listUser${Plural}`,
        summary: `List the ${plural} of a user`,
        description: 'A user is a client who can sign in; `me` names the signed-in user.',
        tags,
        scope: resource.scopes.read,
        params: idParams({ user_id: 'A client id, or `me`' }),
        query: listQuery,
        responses: { ...listResponses, 404: problem('No such user') },
        async handle({ params, query, principal, url }) {
          const userId = params.user_id === 'me' ? principal.userId : params.user_id;
          if (userId === undefined)
            throw new SwitchboardError(
              'not_found',
              'The caller is not a signed-in user, so "me" names nobody.',
            );
          await clientExists(principal, userId, 'user');
          return list(principal, query, url, { [owner]: userId });
        },
      }),
    );
  }

  // Under each field that groups the records: /chatbots/{chatbot_id}/messages.
  for (const [field, segment] of Object.entries(resource.groupedBy)) {
    const param = `${segment.replace(/s$/, '').replace(/-/g, '_')}_id`;
    const Group = pascal(segment.replace(/s$/, ''));
    const groupParams = z.object({ [param]: z.string().min(1).max(100) });
    routes.push(
      defineRoute({
        method: 'GET',
        path: `/${segment}/{${param}}/${plural}`,
        operationId: `list${Group}${Plural}`,
        summary: `List the ${plural} of a ${Group.toLowerCase()}`,
        tags,
        scope: resource.scopes.read,
        params: groupParams,
        query: listQuery,
        responses: listResponses,
        handle: ({ params, query, principal, url }) =>
          list(principal, query, url, { [field]: (params as Record<string, string>)[param] }),
      }),
      defineRoute({
        method: 'POST',
        path: `/${segment}/{${param}}/${plural}`,
        operationId: `create${Group}${typeName}`,
        summary: `Create a ${name} of a ${Group.toLowerCase()}`,
        description: `Publishes \`${resource.events.created}\`. ${idempotency}`,
        tags,
        scope: resource.scopes.write,
        params: groupParams,
        body: {
          schema: without(wire.createInput, field),
          name: `${Group}${typeName}Create`,
        },
        responses: {
          201: createdResponse,
          409: problem('A record with the same unique value exists, or a rule refuses it'),
          422: problem('A field is not valid, or a reference names no record'),
        },
        handle: ({ params, body, principal, basePath, idempotent }) =>
          create(
            body as Record<string, unknown>,
            { [field]: (params as Record<string, string>)[param] },
            { principal, basePath, idempotent },
          ),
      }),
    );
  }
  return routes;
}

type IdempotentOf = RouteContext['idempotent'];

/** A create body less the field the path gives. */
function without(schema: z.ZodType, field: string): z.ZodType {
  return (schema as z.ZodObject).omit({ [field]: true } as Record<string, true>);
}

function patchDescription(resource: Resource): string {
  const { lifecycle, name } = resource;
  if (!lifecycle) return 'JSON Merge Patch (RFC 7396): only the fields sent change.';
  const moves = Object.entries(lifecycle.states)
    .filter(([, s]) => s.to.length)
    .map(([state, s]) => `${state} → ${s.to.join(' | ')}`)
    .join('; ');
  return `JSON Merge Patch (RFC 7396). Sending \`${lifecycle.field}\` moves the ${name} along its life cycle (${moves}); any other move is a 409.`;
}
