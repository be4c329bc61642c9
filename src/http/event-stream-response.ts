/**
 * A bounded event iterator (core/event-stream.ts) as a `text/event-stream` response. Values are taken
 * from the iterator only as the client reads, so a reader that stops leaves them in the iterator's
 * bounded queue, which ends the stream when it overflows: nothing else piles up. A comment line keeps
 * a quiet stream open through proxies.
 */

export interface EventStreamResponseOptions<T> {
  /** The SSE frame of a value (`event: …\ndata: …\n\n`). */
  readonly frame: (value: T) => string;
  /** Called once when the stream ends, whatever ended it (the client, the iterator, an overflow). */
  readonly end: () => void;
  readonly keepAliveMs: number;
}

const encoder = new TextEncoder();

export function eventStreamResponse<T>(
  events: AsyncIterableIterator<T>,
  options: EventStreamResponseOptions<T>,
): Response {
  let next: Promise<IteratorResult<T>> | undefined;
  let ended = false;
  const finish = (): void => {
    if (ended) return;
    ended = true;
    options.end();
    void events.return?.();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(': connected\n\n'));
      },
      async pull(controller) {
        next ??= events.next();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const quiet = new Promise<'quiet'>((resolve) => {
          timer = setTimeout(resolve, options.keepAliveMs, 'quiet');
        });
        try {
          const step = await Promise.race([next, quiet]);
          if (step === 'quiet') return controller.enqueue(encoder.encode(': keep-alive\n\n'));
          next = undefined;
          if (step.done) {
            finish();
            return controller.close();
          }
          controller.enqueue(encoder.encode(options.frame(step.value)));
        } catch {
          // The reader fell too far behind: the iterator ended with an error.
          finish();
          controller.close();
        } finally {
          clearTimeout(timer);
        }
      },
      cancel: finish,
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}
