/**
 * A resource's wire form in each API version, derived from its declaration (`versions`): what REST
 * answers under `/api/v{n}`, what a webhook endpoint pinned to version n is sent, and what GraphQL adds
 * for the current version. One derivation, so the three cannot drift apart.
 */
import type { z } from 'zod';
import type { DomainEvent } from '../events.js';
import type { ResourceRecord } from '../storage/index.js';
import type { Resource } from './define.js';

/** How one API version writes and reads a resource. */
export interface ResourceWire {
  /** The version whose declaration applies (1: the declared fields). */
  readonly version: number;
  readonly recordSchema: z.ZodObject;
  readonly createInput: z.ZodType<Record<string, unknown>>;
  readonly present: (record: ResourceRecord) => Record<string, unknown>;
  readonly accept: (body: Record<string, unknown>) => Record<string, unknown>;
}

/** Where a change's event carries the record as it was before (see the resource service). */
export const PREVIOUS_RECORD_FIELD = 'previous';

/** The wire form of `resource` in `apiVersion`: the latest declared version not after it, else the fields. */
export function wireOf(resource: Resource, apiVersion: number): ResourceWire {
  const version = Object.keys(resource.versions)
    .map(Number)
    .filter((v) => v <= apiVersion)
    .sort((a, b) => b - a)[0];
  const changed = version === undefined ? undefined : resource.versions[version];
  if (version === undefined || !changed)
    return {
      version: 1,
      recordSchema: resource.recordSchema,
      createInput: resource.createInput,
      present: (r) => r,
      accept: (body) => body,
    };
  return {
    version,
    recordSchema: changed.recordSchema,
    createInput: changed.createInput,
    present: (r) => changed.present(r),
    accept: changed.accept,
  };
}

/** The newest API version any of the resources declares (1 when none declares one): the current one. */
export function latestApiVersion(resources: readonly Resource[]): number {
  return Math.max(1, ...resources.flatMap((r) => Object.keys(r.versions).map(Number)));
}

/** Each event type to the resource that publishes it, from the resources' `eventTypes`. */
export function resourcesByEventType(resources: readonly Resource[]): ReadonlyMap<string, Resource> {
  const byType = new Map<string, Resource>();
  for (const resource of resources) for (const type of resource.eventTypes) byType.set(type, resource);
  return byType;
}

/**
 * The `data` an event carries in an API version: shaped by {@link eventDataIn} when a resource
 * published it; a tombstone's ids, or another kind's data, as they are (there is no record to shape).
 */
export function versionedEventData(
  resource: Resource | undefined,
  event: DomainEvent,
  apiVersion: number,
): Readonly<Record<string, unknown>> {
  return resource && !event.redacted ? eventDataIn(resource, event.data, apiVersion) : event.data;
}

/**
 * An event's `data` in an API version: its record, and the record before a change (`previous`), as
 * that version's GET shows them; what the event adds besides (`previousStatus`, `customerEmail`) as is.
 */
export function eventDataIn(
  resource: Resource,
  data: Readonly<Record<string, unknown>>,
  apiVersion: number,
): Record<string, unknown> {
  const wire = wireOf(resource, apiVersion);
  if (wire.version === 1) return { ...data };
  const recordFields = new Set(Object.keys(resource.recordSchema.shape));
  const record: Record<string, unknown> = {};
  const extras: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) (recordFields.has(key) ? record : extras)[key] = value;
  const previous = extras[PREVIOUS_RECORD_FIELD];
  if (previous && typeof previous === 'object')
    extras[PREVIOUS_RECORD_FIELD] = wire.present(previous as ResourceRecord);
  return { ...wire.present(record as ResourceRecord), ...extras };
}
