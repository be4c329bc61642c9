/**
 * Records as MCP resources: `switchboard://<plural>/<id>`, one URI template per resource the caller may
 * read, and `resources/read` of a record through the service acting for the caller (its scopes and
 * tenant, as `get_<name>`). A host lets a person attach a record to a conversation with the agent by
 * its URI; the change notifications of the event stream name records by the same URIs.
 */
import type { Principal } from '../core/auth.js';
import { isSwitchboardError } from '../core/errors.js';
import type { Resource } from '../core/resources/define.js';
import type { ResourceService } from '../core/resources/service.js';
import type { ResourceRecord } from '../core/storage/index.js';
import { JSON_RPC, JsonRpcError } from './json-rpc.js';
import { agentPresenter } from './tools.js';

const SCHEME = 'switchboard://';
/** MCP's error code for a resource that does not exist (or that the caller may not see). */
const RESOURCE_NOT_FOUND = -32002;

/** The URI of a record of the resource whose plural is `plural`. */
export const recordUri = (plural: string, id: string): string =>
  `${SCHEME}${plural}/${encodeURIComponent(id)}`;

/** What `resources/templates/list` and `resources/read` answer, for the resources MCP serves. */
export interface RecordResources {
  templates(mayRead: MayRead): Record<string, unknown>[];
  read(principal: Principal, mayRead: MayRead, uri: unknown): Promise<Record<string, unknown>>;
}

/** Whether the caller may read a resource's records here: its scope, and its client's tools. */
export type MayRead = (resource: Resource) => boolean;

export function recordResources(services: readonly ResourceService[], apiVersion: number): RecordResources {
  const served = services
    .filter((s) => s.resource.mcp.served)
    .map((service) => ({ service, present: agentPresenter(service.resource, apiVersion) }));
  const byPlural = new Map(served.map((s) => [s.service.resource.plural, s]));
  const notFound = (uri: string) =>
    new JsonRpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });

  return {
    templates: (mayRead) =>
      served
        .filter((s) => mayRead(s.service.resource))
        .map(({ service: { resource } }) => ({
          uriTemplate: `${SCHEME}${resource.plural}/{id}`,
          name: resource.plural,
          title: `A ${resource.name.replaceAll('-', ' ')}`,
          description: resource.description,
          mimeType: 'application/json',
        })),
    async read(principal, mayRead, uri) {
      if (typeof uri !== 'string')
        throw new JsonRpcError(JSON_RPC.invalidParams, 'resources/read takes a uri (text).');
      const match = /^switchboard:\/\/([a-z0-9-]+)\/([^/]+)$/.exec(uri);
      const entry = match && byPlural.get(match[1]!);
      // Unknown, unreadable with these scopes, or another tenant's: all the same to the caller.
      if (!entry || !mayRead(entry.service.resource)) throw notFound(uri);
      let record: ResourceRecord;
      try {
        record = await entry.service.for(principal).get(decodeURIComponent(match![2]!));
      } catch (error) {
        if (isSwitchboardError(error) && (error.status === 404 || error.status === 400)) throw notFound(uri);
        throw error;
      }
      return {
        contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(entry.present(record)) }],
      };
    },
  };
}
