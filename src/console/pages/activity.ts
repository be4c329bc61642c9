/**
 * Live activity: every event as the bus delivers it, pushed to the page over Server-Sent Events (the
 * page's script adds each at the top; without script the page says so).
 */
import type { EventBus } from '../../core/event-bus.js';
import type { DomainEvent } from '../../core/events.js';
import { esc } from '../html.js';
import type { ConsoleRoute } from '../route.js';

const KEEP_ALIVE_MS = 15_000;

export function activityRoutes(bus: EventBus): ConsoleRoute[] {
  return [
    {
      method: 'GET',
      pattern: /^\/activity$/,
      scope: 'admin.webhooks.read',
      section: 'activity',
      async handle(ctx) {
        return ctx.render(
          'Live activity',
          `<p>Events appear here as they happen, newest first (this page needs script).</p>
<ol id="events" aria-live="polite" data-stream="${esc(ctx.base)}/activity/stream"></ol>`,
        );
      },
    },
    {
      method: 'GET',
      pattern: /^\/activity\/stream$/,
      scope: 'admin.webhooks.read',
      section: 'activity',
      async handle(ctx) {
        const encoder = new TextEncoder();
        let stop = () => {};
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            const send = (text: string) => {
              try {
                controller.enqueue(encoder.encode(text));
              } catch {
                stop();
              }
            };
            send(': connected\n\n');
            const unsubscribe = bus.subscribe((event) =>
              send(`event: event\ndata: ${JSON.stringify(view(event))}\n\n`),
            );
            const timer = setInterval(() => send(': keep-alive\n\n'), KEEP_ALIVE_MS);
            stop = () => {
              clearInterval(timer);
              unsubscribe();
            };
            ctx.request.signal.addEventListener('abort', () => {
              stop();
              try {
                controller.close();
              } catch {}
            });
          },
          cancel() {
            stop();
          },
        });
        return new Response(body, {
          headers: {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
          },
        });
      },
    },
  ];
}

/** What the feed shows of an event: its kind, time, and the record it is about. */
function view(event: DomainEvent): { type: string; id: string; occurredAt: string; summary: string } {
  const data = event.data as Record<string, unknown>;
  const subject = ['id', 'name', 'status', 'url'].map((k) => data[k]).filter((v) => typeof v === 'string');
  return { type: event.type, id: event.id, occurredAt: event.occurredAt, summary: subject.join(' · ') };
}
