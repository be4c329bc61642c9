/**
 * Live activity: every event as the bus delivers it, pushed to the page over Server-Sent Events (the
 * page's script adds each at the top; without script the page says so). A stream ends when its session
 * does, and when its reader falls too far behind (the page's EventSource then connects again).
 */
import type { EventBus } from '../../core/event-bus.js';
import { eventStream } from '../../core/event-stream.js';
import type { DomainEvent } from '../../core/events.js';
import { eventStreamResponse } from '../../http/event-stream-response.js';
import { html } from '../../internal/html.js';
import { WEBHOOK_READ_SCOPE } from '../../webhooks/scopes.js';
import type { ConsoleRoute } from '../route.js';

const KEEP_ALIVE_MS = 15_000;
/** Events held for a reader that is not reading; one more and its stream ends. */
const MAX_UNREAD = 1_000;

export function activityRoutes(bus: EventBus): ConsoleRoute[] {
  return [
    {
      method: 'GET',
      path: '/activity',
      scope: WEBHOOK_READ_SCOPE,
      section: 'activity',
      async handle(ctx) {
        return ctx.render(
          'Live activity',
          html`<p>Events appear here as they happen, newest first (this page needs script).</p>
<ol id="events" aria-live="polite" data-stream="${ctx.base}/activity/stream"></ol>`,
        );
      },
    },
    {
      method: 'GET',
      path: '/activity/stream',
      scope: WEBHOOK_READ_SCOPE,
      section: 'activity',
      answers: 'event-stream',
      async handle(ctx) {
        const events = eventStream(bus, { types: ['*'], pick: view, maxQueue: MAX_UNREAD });
        // Ends the stream, whatever ended it (the session, the client, a reader too far behind): a read
        // waiting for an event ends with it.
        const finish = (): void => {
          unwatch();
          void events.return?.();
        };
        const unwatch = ctx.watchSession(finish);
        ctx.request.signal.addEventListener('abort', finish);
        return eventStreamResponse(events, {
          frame: (value) => `event: event\ndata: ${JSON.stringify(value)}\n\n`,
          end: finish,
          keepAliveMs: KEEP_ALIVE_MS,
        });
      },
    },
  ];
}

/** What the feed shows of an event: its kind, time, the record it is about, and the interface it came through. */
interface EventView {
  readonly type: string;
  readonly id: string;
  readonly occurredAt: string;
  readonly summary: string;
  /** `mcp` for an agent's change (when its caller said). */
  readonly via?: string;
}

function view(event: DomainEvent): EventView {
  const data = event.data as Record<string, unknown>;
  const subject = ['id', 'name', 'status', 'url'].map((k) => data[k]).filter((v) => typeof v === 'string');
  // An agent's change says so: operators see what agents did among everything else.
  if (event.via === 'mcp') subject.push('by an AI agent (MCP)');
  return {
    type: event.type,
    id: event.id,
    occurredAt: event.occurredAt,
    summary: subject.join(' · '),
    ...(event.via ? { via: event.via } : {}),
  };
}
