/**
 * Whose record it is: the path from a resource's records to the client that owns them, derived once
 * from the declarations' `owner` and followed through other resources (a message belongs to its
 * conversation's client). The service decides a signed-in user's access from it (service.ts); no
 * interface re-derives it.
 */
import type { ResourceMatch, ResourceRecord } from '../storage/index.js';
import type { Resource } from './define.js';

/** One step on the way to the owner: the field of a record that names a record of `resource`. */
export interface OwnerStep {
  readonly field: string;
  readonly resource: string;
}

/**
 * The steps from a record to the client that owns it: empty for the tenant resource itself (the one
 * declared `owner: 'id'`), one step for a direct owner (`clientId`), more through relations.
 */
export type OwnerPath = readonly OwnerStep[];

/**
 * Every resource's owner path, by name; `undefined` for a resource no client owns (any caller holding
 * its scope sees all of it). Throws at start-up on an owner that is not a relation, or that leads to
 * no owned record, or in a circle.
 */
export function ownerPaths(resources: readonly Resource[]): ReadonlyMap<string, OwnerPath | undefined> {
  const byName = new Map(resources.map((r) => [r.name, r]));
  const tenants = resources.filter((r) => r.owner === 'id');
  if (tenants.length > 1)
    throw new Error(
      `Only one resource can be the owner of the others: ${tenants.map((r) => r.name).join(', ')}.`,
    );
  const paths = new Map<string, OwnerPath | undefined>();
  const pathOf = (resource: Resource, seen: readonly string[]): OwnerPath | undefined => {
    if (paths.has(resource.name)) return paths.get(resource.name);
    if (seen.includes(resource.name))
      throw new Error(`Owners go round in a circle: ${[...seen, resource.name].join(' → ')}.`);
    const field = resource.owner;
    if (field === undefined) return undefined;
    if (field === 'id') return [];
    const target = byName.get(resource.relations[field] ?? '');
    if (!target)
      throw new Error(`${resource.name}: the owner "${field}" must be a relation to a declared resource.`);
    const rest = pathOf(target, [...seen, resource.name]);
    if (rest === undefined)
      throw new Error(`${resource.name}: its owner "${field}" names a ${target.name}, which no client owns.`);
    return [{ field, resource: target.name }, ...rest];
  };
  for (const resource of resources) paths.set(resource.name, pathOf(resource, []));
  return paths;
}

type Get = (resource: string, id: string) => Promise<ResourceRecord | null>;

/** The id of the client that owns `record`, following its path; null when it has none. */
export async function ownerOf(path: OwnerPath, record: Readonly<Record<string, unknown>>, get: Get) {
  if (path.length === 0) return typeof record.id === 'string' ? record.id : null;
  let value = record[path[0]!.field];
  for (let i = 1; i < path.length; i++) {
    if (typeof value !== 'string') return null;
    const next = await get(path[i - 1]!.resource, value);
    if (!next) return null;
    value = next[path[i]!.field];
  }
  return typeof value === 'string' ? value : null;
}

type Ids = (resource: string, where: Readonly<Record<string, ResourceMatch>>) => Promise<string[]>;

/**
 * The condition that keeps a list to one client's records: `clientId = <it>` for a direct owner, the
 * ids of its conversations for messages, and so on down the path.
 */
export async function ownedWhere(
  path: OwnerPath,
  clientId: string,
  ids: Ids,
): Promise<[string, ResourceMatch]> {
  if (path.length === 0) return ['id', clientId];
  const [first, ...rest] = path;
  if (rest.length === 0) return [first!.field, clientId];
  const [field, match] = await ownedWhere(rest, clientId, ids);
  return [first!.field, await ids(first!.resource, { [field]: match })];
}

/**
 * Both conditions on one field at once: null when no value meets both (the list is then empty).
 * Only equality and lists of values meet an owner condition.
 */
export function bothOf(given: ResourceMatch | undefined, owned: ResourceMatch): ResourceMatch | null {
  if (given === undefined) return owned;
  const values = (m: ResourceMatch): readonly unknown[] | undefined =>
    Array.isArray(m) ? m : typeof m === 'object' && m !== null ? undefined : [m];
  const a = values(given);
  const b = values(owned);
  if (!a || !b) return owned;
  const common = a.filter((v) => b.includes(v)) as string[];
  return common.length ? common : null;
}
