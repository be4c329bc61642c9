import { SwitchboardError } from '../core/errors.js';

/** What a body is read from: a request, or a response the server fetched. */
export type BodySource = Pick<Request, 'headers' | 'body' | 'arrayBuffer'>;

/**
 * Reads a request body as bytes, refusing more than `maxBytes` — counted while streaming, so a client
 * that lies in `Content-Length` (or sends none) cannot make the server buffer more than the limit.
 */
export async function readBody(request: BodySource, maxBytes: number): Promise<Uint8Array> {
  const length = request.headers.get('content-length');
  const declared = Number(length ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (length !== null && Number.isSafeInteger(declared)) {
    // The HTTP framing stops at Content-Length, which is within the limit: read it in one go (on Node the
    // adapter then reads the socket directly, without building a body stream). Checked again regardless.
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

// Stateless when not streaming, so one serves every request (making one costs more than decoding a small body).
const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Reads a body as UTF-8 text within the size limit (malformed sequences become U+FFFD). */
export async function readText(request: BodySource, maxBytes: number): Promise<string> {
  return utf8.decode(await readBody(request, maxBytes));
}

/** Reads and parses a JSON body within the size limit; malformed JSON is a `bad_request`. */
export async function readJson(request: BodySource, maxBytes: number): Promise<unknown> {
  const text = await readText(request, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new SwitchboardError('bad_request', 'The body is not valid JSON.', {
      details: [{ field: 'body', code: 'malformed_json', message: 'Send a JSON document.' }],
    });
  }
}

function tooLarge(maxBytes: number): SwitchboardError {
  return new SwitchboardError('payload_too_large', `The body is larger than the limit of ${maxBytes} bytes.`);
}
