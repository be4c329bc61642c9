/**
 * Who may read which events of the feed: the decision the live subscriptions make, taken once here.
 * A resource's events need its read scope, and a signed-in user sees only their own client's (the
 * resource service's `sees`); any other kind in the catalogue (the webhook module's own) needs the
 * scope the host names for it.
 */
import { type Principal, requireScope, type Scope } from '../auth.js';
import { SwitchboardError } from '../errors.js';
import type { DomainEvent } from '../events.js';
import { matchesEventType } from '../events.js';
import type { Resource } from '../resources/define.js';
import type { ResourceService } from '../resources/service.js';

/** What one caller may read: the exact types, and whether a given event of them is theirs to see. */
export interface FeedAccess {
  readonly types: readonly string[];
  sees(event: DomainEvent): boolean;
  /** The resource of a resource's event (its data is shown in the API version's shape). */
  resourceOf(type: string): Resource | undefined;
}

/** The feed's catalogue: every event type with the scope that reads it and the service that decides. */
export interface FeedCatalogue {
  readonly types: readonly string[];
  /**
   * The types matching `patterns` (all when absent) that `principal` may read; throws 400 for a pattern
   * that matches no type, 401/403 (as `requireScope`) when the caller may read none of them.
   */
  accessFor(principal: Principal, patterns?: readonly string[]): FeedAccess;
}

interface Kind {
  readonly scope: Scope;
  readonly service?: ResourceService;
}

export function feedCatalogue(
  services: readonly ResourceService[],
  otherTypes: Readonly<Record<string, Scope>> = {},
): FeedCatalogue {
  const kinds = new Map<string, Kind>();
  for (const service of services)
    for (const type of service.resource.eventTypes)
      kinds.set(type, { scope: service.resource.scopes.read, service });
  for (const [type, scope] of Object.entries(otherTypes)) if (!kinds.has(type)) kinds.set(type, { scope });
  const types = Object.freeze([...kinds.keys()]);

  const matching = (patterns: readonly string[]): string[] => {
    for (const pattern of patterns) {
      if (types.some((type) => matchesEventType(pattern, type))) continue;
      throw new SwitchboardError(
        'bad_request',
        `No event type matches "${pattern}": name a type (order.created), a resource's (order.*) or all (*).`,
        { details: [{ field: 'types', code: 'unknown_event_type', message: `Unknown: ${pattern}` }] },
      );
    }
    return types.filter((type) => patterns.some((pattern) => matchesEventType(pattern, type)));
  };

  return {
    types,
    accessFor(principal, patterns = ['*']) {
      const asked = matching(patterns);
      const readable = asked.filter((type) => principal.scopes.has(kinds.get(type)!.scope));
      // None: refused as the scope check of the first type asked for refuses (401 anonymous, 403 else).
      if (readable.length === 0) requireScope(principal, kinds.get(asked[0]!)!.scope);
      const acting = new Map<ResourceService, ResourceService>();
      const actingFor = (service: ResourceService): ResourceService => {
        const found = acting.get(service) ?? service.for(principal);
        acting.set(service, found);
        return found;
      };
      return {
        types: readable,
        sees(event) {
          const service = kinds.get(event.type)?.service;
          return !service || actingFor(service).sees(event);
        },
        resourceOf: (type) => kinds.get(type)?.service?.resource,
      };
    },
  };
}
