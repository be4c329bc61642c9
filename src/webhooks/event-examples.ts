/**
 * Example `data` of resource events, built from each resource's declaration the way the resource
 * service builds the real ones: the record (its fields, its state, `createdAt`/`updatedAt`/`version`
 * or `timestamp`), `previous` and `previous<State>` on changes, and what the `eventData` hook adds.
 */
import { z } from 'zod';
import type { Resource } from '../core/resources/define.js';
import type { Related } from '../core/resources/input.js';
import { PREVIOUS_RECORD_FIELD } from '../core/resources/wire.js';
import type { ResourceRecord } from '../core/storage/index.js';
import { testEventData, WEBHOOK_TEST_EVENT } from './payload.js';

/** Example `data` per event type of the resources it was made from. */
export interface EventExamples {
  /** The example `data` of an event type; undefined when no resource publishes it. */
  of(type: string): Record<string, unknown> | undefined;
}

const ID = '0194d3a5c2e07f1a3c5e7b9d2f4a6c8e';
const CREATED_AT = '2026-01-14T09:30:00.000Z';
const UPDATED_AT = '2026-01-14T10:05:00.000Z';

/** Typical values by field name; each is used only where the field's schema allows it. */
const BY_NAME: readonly (readonly [RegExp, unknown])[] = [
  [/email/i, 'ada@example.com'],
  [/phone/i, '+33 6 12 34 56 78'],
  [/^(name|fullName|customerName)$/i, 'Ada Lovelace'],
  [/city/i, 'Paris'],
  [/currency/i, 'EUR'],
  [/total|amount|price/i, '129.90'],
  [/content|text|body|message/i, 'Hello, where is my order?'],
  [/subject|title/i, 'Delivery question'],
  [/service/i, 'Haircut'],
  [/agent/i, 'Grace Hopper'],
  [/notes|description|comment|reason/i, 'Please ring twice.'],
  [/chatbot/i, 'support-bot'],
  [/visitor/i, 'visitor-42'],
  [/url|link/i, 'https://example.com/'],
];
const STRINGS = ['129.90', 'EUR', '+33 6 12 34 56 78', 'example', 'x'];
const BY_FORMAT: Readonly<Record<string, string>> = {
  'date-time': '2026-01-15T14:30:00.000Z',
  date: '2026-01-15',
  time: '14:30:00',
  email: 'ada@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '0194d3a5-c2e0-7f1a-8c5e-7b9d2f4a6c8e',
};

/** Example `data` of the webhook module's own events; undefined for other kinds. */
export function webhookEventExample(type: string): Record<string, unknown> | undefined {
  if (type === WEBHOOK_TEST_EVENT) return testEventData(`whe_${ID}`);
  const endpoint = { id: `whe_${ID}`, url: 'https://bot.example.com/hooks' };
  if (type === 'webhook_endpoint.disabled') return { ...endpoint, reason: 'gone', failingSince: CREATED_AT };
  if (type === 'webhook_endpoint.enabled') return { ...endpoint, disabledReason: 'failing' };
  if (type === 'webhook_endpoint.secret_rotated')
    return { ...endpoint, rotatedAt: UPDATED_AT, previousSecretsExpireAt: '2026-01-15T10:05:00.000Z' };
  if (type === 'webhook_subject.held')
    return {
      endpointId: endpoint.id,
      url: endpoint.url,
      subject: `ord_${ID}`,
      waiting: 3,
      since: CREATED_AT,
      blocking: {
        id: `whd_${ID}`,
        eventId: `evt_${ID}`,
        eventType: 'order.paid',
        sequence: 2,
        attempts: 4,
        nextAttemptAt: UPDATED_AT,
        lastStatusCode: 503,
        lastError: 'HTTP 503',
      },
    };
  if (type === 'webhook_delivery.exhausted')
    return {
      id: `whd_${ID}`,
      endpointId: endpoint.id,
      url: endpoint.url,
      eventId: `evt_${ID}`,
      eventType: 'order.created',
      attempts: 8,
      lastStatusCode: 503,
      lastError: 'HTTP 503',
    };
  return undefined;
}

/**
 * Builds the examples of every event the resources publish. The `eventData` hooks run once, at once,
 * against example records (they read related records from the examples, never from storage); their
 * fields join the examples when they have run.
 */
export function createEventExamples(resources: readonly Resource[]): EventExamples {
  const byName = new Map(resources.map((r) => [r.name, r]));
  const records = new Map<string, ResourceRecord>();
  const added = new Map<string, Record<string, unknown>>();
  const recordOf = (resource: Resource): ResourceRecord => {
    let record = records.get(resource.name);
    if (!record) {
      record = exampleRecord(resource, byName);
      records.set(resource.name, record);
    }
    return record;
  };
  const related: Related = {
    get: async (name, _id) => {
      const resource = byName.get(name);
      return resource ? recordOf(resource) : null;
    },
    find: async () => [],
    create: async () => {
      throw new Error('Examples create no records.');
    },
  };
  for (const resource of resources) {
    const hook = resource.eventData;
    if (!hook) continue;
    Promise.resolve()
      .then(() => hook(recordOf(resource), related))
      .then(
        (data) => added.set(resource.name, data),
        () => {},
      );
  }

  return {
    // As the receiver reads it (JSON), and a copy each time: changing one answer leaves the next alone.
    of: (type) => {
      const example = build(type);
      return example && (JSON.parse(JSON.stringify(example)) as Record<string, unknown>);
    },
  };

  function build(type: string): Record<string, unknown> | undefined {
    const resource = resources.find((r) => r.eventTypes.includes(type));
    if (!resource) return undefined;
    const record = recordOf(resource);
    const extra = added.get(resource.name) ?? {};
    const view = (r: ResourceRecord): Record<string, unknown> => viewOf(resource, r);
    if (type === resource.events.created || type === resource.events.deleted)
      return { ...view(record), ...extra };
    const changed = { ...record, updatedAt: UPDATED_AT, version: 2 };
    const lifecycle = resource.lifecycle;
    const state = Object.entries(resource.moveEvents).find(([, event]) => event === type)?.[0];
    if (!lifecycle || state === undefined || type === resource.events.updated)
      return { ...view(changed), [PREVIOUS_RECORD_FIELD]: record, ...extra };
    const from =
      Object.entries(lifecycle.states).find(([, s]) => s.to.includes(state))?.[0] ?? lifecycle.initial;
    const field = lifecycle.field;
    const before = { ...record, [field]: from };
    const previousField = resource.previousStateField!;
    return {
      ...view({ ...changed, [field]: state }),
      [previousField]: from,
      [PREVIOUS_RECORD_FIELD]: before,
      ...extra,
    };
  }
}

/** A stored record of the resource in its initial state, every field with an example value. */
function exampleRecord(resource: Resource, resources: ReadonlyMap<string, Resource>): ResourceRecord {
  const fields: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(resource.fields)) {
    const target = resources.get(resource.relations[name] ?? '');
    fields[name] = target ? `${target.idPrefix}_${ID}` : exampleValue(name, schema);
  }
  const state = resource.lifecycle ? { [resource.lifecycle.field]: resource.lifecycle.initial } : {};
  return {
    id: `${resource.idPrefix}_${ID}`,
    ...fields,
    ...state,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    version: 1,
  };
}

/** As events show a record: one written once shows only its `timestamp`. */
function viewOf(resource: Resource, record: ResourceRecord): Record<string, unknown> {
  if (resource.versioned) return record;
  const { createdAt, updatedAt: _u, version: _v, ...rest } = record;
  return { ...rest, timestamp: createdAt };
}

/** The JSON Schema keywords the examples read. */
interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly default?: unknown;
  readonly example?: unknown;
  readonly examples?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema;
}

function exampleValue(name: string, schema: z.ZodType): unknown {
  try {
    return sample(name, z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema);
  } catch {
    return null;
  }
}

/** A value the JSON Schema accepts, chosen to read like real data for a field of that name. */
function sample(name: string, schema: JsonSchema): unknown {
  if (schema.examples?.length) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const branch = branches.find((b) => b.type !== 'null');
    return branch ? sample(name, branch) : null;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return stringFor(name, schema);
    case 'integer':
    case 'number': {
      const value = Math.min(Math.max(30, schema.minimum ?? 30), schema.maximum ?? 30);
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    case 'array':
      return schema.items ? [sample(name, schema.items)] : [];
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, property]) => [key, sample(key, property)]),
      );
    default:
      return null;
  }
}

function stringFor(name: string, schema: JsonSchema): string {
  const format = schema.format && BY_FORMAT[schema.format];
  const candidates = [
    ...(format ? [format] : []),
    ...BY_NAME.filter(([pattern]) => pattern.test(name)).map(([, value]) => value),
    ...STRINGS,
  ];
  const fits = (value: unknown): value is string => {
    if (typeof value !== 'string') return false;
    if (value.length < (schema.minLength ?? 0) || value.length > (schema.maxLength ?? Infinity)) return false;
    try {
      return !schema.pattern || new RegExp(schema.pattern).test(value);
    } catch {
      return true;
    }
  };
  return candidates.find(fits) ?? 'x'.repeat(Math.max(1, schema.minLength ?? 1));
}
