/**
 * What the agent is told as it happens: `GET /mcp` opens the Streamable HTTP server-to-client stream,
 * and every change to a record the caller may read (its scopes, its tenant: the service's own rule)
 * arrives on it as `notifications/resources/updated` naming the record's URI, to read with
 * `resources/read` or `get_<name>`. The endpoint keeps no session, so there is nothing to subscribe
 * to: the stream carries the changes of every resource the caller may read. It is bounded (a reader
 * that falls behind is dropped, as on GraphQL's streams) and ends when the credentials it was opened
 * with stop being accepted.
 */
import type { Principal } from '../core/auth.js';
import type { EventBus } from '../core/event-bus.js';
import { eventStream } from '../core/event-stream.js';
import type { ResourceService } from '../core/resources/service.js';
import { resourcesByEventType } from '../core/resources/wire.js';
import type { CredentialWatch, Watched } from '../http/credential-watch.js';
import { eventStreamResponse } from '../http/event-stream-response.js';
import { type MayRead, recordUri } from './records.js';

export interface ChangeStreamOptions {
  readonly bus: EventBus;
  /** Re-checks the credentials of open streams. */
  readonly watch: CredentialWatch;
  /** Notifications held for a reader that is not reading; one more and its stream ends. */
  readonly maxQueue: number;
  readonly keepAliveMs: number;
}

/** Opens the change stream of a caller: a `text/event-stream` of JSON-RPC notifications. */
export type OpenChangeStream = (request: Request, principal: Principal, mayRead: MayRead) => Response;

export function changeStreams(
  services: readonly ResourceService[],
  options: ChangeStreamOptions,
): OpenChangeStream {
  const served = services.filter((s) => s.resource.mcp.served);
  const byEventType = resourcesByEventType(served.map((s) => s.resource));

  return (request, principal, mayRead) => {
    const readable = served.filter((s) => mayRead(s.resource));
    const acting = new Map(readable.map((s) => [s.resource.name, s.for(principal)]));
    const events = eventStream(options.bus, {
      types: readable.flatMap((s) => s.resource.eventTypes),
      maxQueue: options.maxQueue,
      pick: (event) => {
        const resource = byEventType.get(event.type);
        const access = resource && acting.get(resource.name);
        const id = event.data.id;
        if (!access || typeof id !== 'string' || !access.sees(event)) return undefined;
        return { uri: recordUri(resource.plural, id), event: event.type };
      },
    });
    const credential = request.headers.get('authorization');
    const connection: Watched = { request: () => request, revoked: () => void events.return?.() };
    const end = (): void => {
      options.watch.unwatch(credential, connection);
      void events.return?.();
    };
    options.watch.watch(credential, connection);
    request.signal.addEventListener('abort', end);
    return eventStreamResponse(events, {
      // The event type rides along as `_meta`: what changed, for an agent deciding whether to read it.
      frame: ({ uri, event }) =>
        `event: message\ndata: ${JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri, _meta: { 'switchboard-kit/event': event } },
        })}\n\n`,
      end,
      keepAliveMs: options.keepAliveMs,
    });
  };
}
