import { SwitchboardError } from '../core/errors.js';

/**
 * A file of a GraphQL multipart request, as resolvers of `Upload` arguments receive it. Its bytes are
 * streamed from the request while the resolver reads them, never held whole by the server.
 *
 * @example
 * const text = await new Response(args.file.stream()).text(); // or read it chunk by chunk
 */
export interface Upload {
  /** The file name and media type the client sent, once the file's part has arrived. */
  readonly meta: Promise<{ readonly filename: string; readonly contentType: string }>;
  /** The file's bytes. Errors with `payload_too_large` past the `maxFileBytes` limit. */
  stream(): ReadableStream<Uint8Array>;
}

interface Source {
  readonly filename: string;
  readonly contentType: string;
  readonly body: ReadableStream<Uint8Array>;
}

/** An upload whose part has not necessarily arrived yet; the multipart reader settles it. */
export class PendingUpload implements Upload {
  readonly meta: Promise<{ readonly filename: string; readonly contentType: string }>;
  readonly #source: Promise<Source>;
  #settle!: (source: Source) => void;
  #fail!: (error: unknown) => void;

  constructor() {
    this.#source = new Promise<Source>((resolve, reject) => {
      this.#settle = resolve;
      this.#fail = reject;
    });
    this.meta = this.#source.then(({ filename, contentType }) => ({ filename, contentType }));
    // Nobody may ever ask; a failed upload must not become an unhandled rejection.
    this.meta.catch(() => {});
  }

  arrive(source: Source): void {
    this.#settle(source);
  }

  fail(error: unknown): void {
    this.#fail(error);
  }

  stream(): ReadableStream<Uint8Array> {
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        reader ??= (await this.#source).body.getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: async (reason) => {
        if (reader) return reader.cancel(reason);
        const source = await this.#source.catch(() => null);
        await source?.body.cancel(reason);
      },
    });
  }
}

/**
 * `body` limited to `maxBytes`, counted as it is read; `finished` resolves once it is read to the end,
 * cancelled or failed, which tells the multipart reader it may move on.
 */
export function limitedBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): { body: ReadableStream<Uint8Array>; finished: Promise<void> } {
  const reader = body.getReader();
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let seen = 0;
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return finish();
        }
        seen += value.byteLength;
        if (seen > maxBytes) {
          await reader.cancel();
          controller.error(
            new SwitchboardError('payload_too_large', `A file may have at most ${maxBytes} bytes.`),
          );
          return finish();
        }
        controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
      finish();
    },
  });
  return { body: limited, finished };
}
