import { SwitchboardError } from '../../core/errors.js';
import type { GraphQLLimits } from '../limits.js';
import { limitedBody, PendingUpload } from '../upload.js';
import { boundaryOf, type MultipartPart, readParts } from './multipart-parts.js';
import { badRequest, isMap } from './params.js';

/**
 * Headers that prove a multipart request was not sent by a plain HTML form: a browser only adds them
 * after a CORS preflight, so a cross-site form cannot forge an upload (CSRF).
 */
export const PREFLIGHT_HEADERS: readonly string[] = [
  'graphql-require-preflight',
  'apollo-require-preflight',
  'x-apollo-operation-name',
];

/** The operation of a multipart request, with an `Upload` in place of each file, and its clean-up. */
export interface MultipartOperation {
  readonly operations: Record<string, unknown>;
  /** Stops reading the body (files nobody read are dropped). Call once the operation has run. */
  close(): Promise<void>;
}

/**
 * Reads a GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec):
 * `operations` and `map` first, then the files. It returns as soon as `map` is read; the files keep
 * streaming in while the operation runs. The last file is handed to its resolver live, byte by byte;
 * files before it are held (within `maxFileBytes`) only so a resolver that reads them out of order
 * cannot stall the request.
 */
export async function readMultipart(request: Request, limits: GraphQLLimits): Promise<MultipartOperation> {
  if (!PREFLIGHT_HEADERS.some((name) => request.headers.has(name)))
    throw new SwitchboardError(
      'bad_request',
      `A multipart request must carry one of the headers ${PREFLIGHT_HEADERS.join(', ')} (CSRF protection).`,
      {
        details: [
          { field: 'headers', code: 'csrf_header_required', message: 'Add graphql-require-preflight: 1.' },
        ],
      },
    );
  const maxBytes = 2 * limits.maxBodyBytes + limits.maxFiles * limits.maxFileBytes;
  if (Number(request.headers.get('content-length') ?? '0') > maxBytes)
    throw new SwitchboardError(
      'payload_too_large',
      `The request is larger than the limit of ${maxBytes} bytes.`,
    );
  const boundary = boundaryOf(request.headers.get('content-type') ?? '');
  if (!request.body) throw badRequest('The multipart body is empty.');
  const reader = request.body.pipeThrough(byteLimit(maxBytes)).getReader();
  const parts = readParts(reader, boundary);

  try {
    const operations = await jsonField(parts, 'operations', limits.maxBodyBytes);
    if (!isMap(operations))
      throw badRequest('"operations" must be one operation object; batches are not supported.');
    const map = await jsonField(parts, 'map', limits.maxBodyBytes);
    if (!isMap(map)) throw badRequest('"map" must be an object of file keys to variable paths.');
    const keys = Object.keys(map);
    if (keys.length > limits.maxFiles)
      throw new SwitchboardError('payload_too_large', `At most ${limits.maxFiles} file(s) per request.`);
    const uploads = new Map(keys.map((key) => [key, new PendingUpload()]));
    for (const [key, paths] of Object.entries(map)) {
      if (!Array.isArray(paths) || paths.length === 0)
        throw badRequest(`"map.${key}" must be a list of paths.`);
      for (const path of paths) place(operations, String(path), uploads.get(key)!);
    }
    const stop = stopper();
    const pumping = pump(parts, uploads, limits.maxFileBytes, stop);
    return {
      operations,
      async close() {
        stop.now();
        await pumping;
      },
    };
  } catch (error) {
    await drain(reader);
    throw error;
  }
}

/** Hands each file part to its upload, in body order, and fails the uploads that never arrive. */
async function pump(
  parts: AsyncGenerator<MultipartPart>,
  uploads: Map<string, PendingUpload>,
  maxFileBytes: number,
  stop: Stopper,
): Promise<void> {
  const waiting = new Map(uploads);
  try {
    for await (const part of parts) {
      // The operation is over: skip the rest of the body (bounded by the size limit).
      if (stop.stopped) continue;
      const upload = waiting.get(part.name);
      if (!upload) throw badRequest(`The part "${part.name}" is not named in "map", or comes twice.`);
      waiting.delete(part.name);
      const meta = { filename: part.filename ?? part.name, contentType: part.contentType };
      const { body, finished } = limitedBody(part.body, maxFileBytes);
      if (waiting.size === 0) {
        upload.arrive({ ...meta, body });
        // The operation may finish without reading the file; then the request is over.
        await Promise.race([finished, stop.promise]);
      } else {
        const bytes = await new Response(body).arrayBuffer();
        upload.arrive({ ...meta, body: new Blob([bytes]).stream() });
      }
    }
    if (waiting.size)
      throw badRequest(`The file(s) ${[...waiting.keys()].join(', ')} named in "map" are missing.`);
  } catch (error) {
    for (const upload of waiting.values()) upload.fail(error);
  }
}

async function jsonField(
  parts: AsyncGenerator<MultipartPart>,
  name: string,
  maxBytes: number,
): Promise<unknown> {
  const { value: part } = await parts.next();
  if (!part || part.name !== name || part.filename !== undefined)
    throw badRequest(`The multipart field "${name}" must come ${name === 'map' ? 'second' : 'first'}.`);
  const { body } = limitedBody(part.body, maxBytes);
  let text: string;
  try {
    text = await new Response(body).text();
  } catch (error) {
    throw error instanceof SwitchboardError ? error : badRequest('The multipart body could not be read.');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`The multipart field "${name}" is not valid JSON.`);
  }
}

interface Stopper {
  readonly stopped: boolean;
  readonly promise: Promise<void>;
  now(): void;
}

function stopper(): Stopper {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  const state = {
    stopped: false,
    promise,
    now() {
      state.stopped = true;
      resolve();
    },
  };
  return state;
}

/**
 * Reads what is left of a refused request so the client receives the error response instead of a
 * reset connection; the byte limit in front of the reader bounds the work.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done) {
      // discard
    }
  } catch {
    await reader.cancel().catch(() => {});
  }
}

/** Errors the body with `payload_too_large` once more than `maxBytes` have streamed through. */
function byteLimit(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes)
        controller.error(
          new SwitchboardError(
            'payload_too_large',
            `The request is larger than the limit of ${maxBytes} bytes.`,
          ),
        );
      else controller.enqueue(chunk);
    },
  });
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Puts the upload at a dotted path such as `variables.files.0`, refusing paths that would pollute prototypes. */
function place(operations: Record<string, unknown>, path: string, upload: PendingUpload): void {
  const keys = path.split('.');
  if (keys[0] !== 'variables' || keys.some((key) => FORBIDDEN_KEYS.has(key) || key === ''))
    throw badRequest(`The path "${path}" in "map" must point into "variables".`);
  let target: unknown = operations;
  for (const key of keys.slice(0, -1)) {
    target = (target as Record<string, unknown>)[key];
    if (typeof target !== 'object' || target === null)
      throw badRequest(`The path "${path}" in "map" does not exist.`);
  }
  const last = keys.at(-1) as string;
  if ((target as Record<string, unknown>)[last] !== null)
    throw badRequest(`The path "${path}" in "map" must point at a null placeholder.`);
  (target as Record<string, unknown>)[last] = upload;
}
