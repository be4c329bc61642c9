/**
 * The world the isolation suite attacks: a switchboard serving every interface (REST v1 and v2,
 * GraphQL over HTTP, WebSocket and SSE), two signed-in users (Ada and Grace, each a client) holding
 * every resource scope through real OAuth tokens, and for each user one record of every resource a
 * client owns, made from the declarations alone.
 */
import { z } from 'zod';
import type { ResourceRecord, Storage } from '../../src/core/storage/index.js';
import { createSwitchboard, defineResource, type ResourceService } from '../../src/index.js';
import { appTokenFor, type Demo, startDemo } from '../oauth/support.js';
import { returns } from '../resources/returns.js';
import { type JsonSchema, sampleOf } from './samples.js';

/** A host resource owned through a relation (a note on a return is its return's client's). */
export const returnNotes = defineResource({
  name: 'return-note',
  idPrefix: 'rnt',
  description: 'A note on a return.',
  fields: {
    returnId: z.string(),
    text: z.string().trim().min(1).max(500),
  },
  relations: { returnId: 'return' },
  owner: 'returnId',
  scopes: { read: 'shop.returns.read', write: 'shop.returns.write' },
});

export const HOST_RESOURCES = [returns, returnNotes];

const switchboardOptions = (storage?: Storage) => ({
  resources: HOST_RESOURCES,
  ...(storage ? { storage } : {}),
  rest: {
    versions: [
      { basePath: '/api/v1', apiVersion: 1 as const },
      { basePath: '/api/v2', apiVersion: 2 as const },
    ],
  },
  graphql: {},
});

/**
 * The resources a client owns, as the switchboard's model has them (built-ins and the host's): what
 * the suite makes its cases of, at collection time.
 */
export function ownedResources(): ResourceService[] {
  const { domain } = createSwitchboard({ ...switchboardOptions(), oauth: false });
  return Object.values(domain.resources).filter((s) => s.ownerPath !== undefined);
}

export interface Tenant {
  readonly tag: 'ada' | 'grace';
  readonly clientId: string;
  readonly token: string;
  /** One record of every owned resource, by resource name. */
  readonly records: Map<string, ResourceRecord>;
}

export interface World {
  readonly demo: Demo;
  readonly ada: Tenant;
  readonly grace: Tenant;
  readonly services: Readonly<Record<string, ResourceService>>;
  /** A valid create input of the resource for a tenant, its references naming that tenant's records. */
  sample(resource: string, tenant: Tenant): Record<string, unknown>;
  close(): Promise<void>;
}

export async function startWorld(storage?: Storage): Promise<World> {
  const demo = await startDemo(switchboardOptions(storage));
  const services = demo.switchboard.domain.resources;
  const scopes = [
    ...new Set(Object.values(services).flatMap((s) => [s.resource.scopes.read, s.resource.scopes.write])),
  ];
  const tokenOf = (user: { email: string; password: string }) => appTokenFor(demo, user, scopes);

  const sample = (name: string, tenant: Tenant): Record<string, unknown> => {
    const { resource } = services[name]!;
    const schema = z.toJSONSchema(resource.createInput, { io: 'input' }) as JsonSchema;
    const input = sampleOf(schema, tenant.tag, () => ({})) as Record<string, unknown>;
    // Every reference names a record of the same tenant, optional ones too (a conversation's client).
    for (const [field, target] of Object.entries(resource.relations)) {
      const related = tenant.records.get(target);
      if (related) input[field] = related.id;
    }
    return input;
  };

  const tenant = async (tag: 'ada' | 'grace'): Promise<Tenant> => {
    const user = demo[tag];
    return { tag, clientId: user.id, token: await tokenOf(user), records: new Map() };
  };
  const ada = await tenant('ada');
  const grace = await tenant('grace');
  for (const service of ownedInOrder(services)) {
    for (const t of [ada, grace]) {
      const record =
        service.ownerPath!.length === 0
          ? await service.get(t.clientId)
          : await service.create(sample(service.resource.name, t));
      t.records.set(service.resource.name, record);
    }
  }
  return { demo, ada, grace, services, sample, close: () => demo.close() };
}

/** Owned resources, each after those its references name. */
function ownedInOrder(services: Readonly<Record<string, ResourceService>>): ResourceService[] {
  const ordered: ResourceService[] = [];
  const visit = (service: ResourceService) => {
    if (ordered.includes(service) || service.ownerPath === undefined) return;
    for (const target of Object.values(service.resource.relations)) visit(services[target]!);
    ordered.push(service);
  };
  for (const service of Object.values(services)) visit(service);
  return ordered;
}
