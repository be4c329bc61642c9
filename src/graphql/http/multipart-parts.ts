import { SwitchboardError } from '../../core/errors.js';

/** One part of a `multipart/form-data` body (RFC 7578). */
export interface MultipartPart {
  /** The form field name from `Content-Disposition`. */
  readonly name: string;
  /** Set for file parts. */
  readonly filename: string | undefined;
  readonly contentType: string;
  /**
   * The part's bytes as they arrive. Read it to the end or cancel it before asking for the next part;
   * whatever is left unread is skipped.
   */
  readonly body: ReadableStream<Uint8Array>;
}

const CRLF = new Uint8Array([13, 10]);
const MAX_HEADER_BYTES = 8_192;

/**
 * Splits a multipart body into parts while it streams in: nothing is buffered beyond the current
 * chunk, so a file part can be consumed (and limited) before the rest of the body has arrived. The
 * caller keeps the reader so it can cancel the body at any time; the parts then end.
 */
export async function* readParts(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  boundary: string,
): AsyncGenerator<MultipartPart> {
  const delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
  // A leading CRLF lets the first delimiter match like every later one.
  let buffer: Uint8Array = CRLF;
  let ended = false;

  const fill = async (): Promise<boolean> => {
    if (ended) return false;
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return false;
    }
    const next = new Uint8Array(buffer.byteLength + value.byteLength);
    next.set(buffer);
    next.set(value, buffer.byteLength);
    buffer = next;
    return true;
  };
  const need = async (bytes: number): Promise<void> => {
    while (buffer.byteLength < bytes) if (!(await fill())) throw malformed();
  };

  /** The next bytes of the current part, or null at its end (the delimiter stays in the buffer). */
  const bodyChunk = async (): Promise<Uint8Array | null> => {
    for (;;) {
      const at = indexOf(buffer, delimiter);
      if (at === 0) return null;
      // Bytes that cannot be the start of a delimiter are safe to hand out.
      const safe = at > 0 ? at : partialDelimiterAt(buffer, delimiter);
      if (safe > 0) {
        const chunk = buffer.slice(0, safe);
        buffer = buffer.subarray(safe);
        return chunk;
      }
      if (!(await fill())) throw malformed();
    }
  };

  try {
    while (indexOf(buffer, delimiter) < 0) if (!(await fill())) throw malformed();
    buffer = buffer.subarray(indexOf(buffer, delimiter));
    for (;;) {
      await need(delimiter.byteLength + 2);
      const after = buffer.subarray(delimiter.byteLength, delimiter.byteLength + 2);
      if (after[0] === 45 && after[1] === 45) return; // "--": the closing delimiter
      if (after[0] !== 13 || after[1] !== 10) throw malformed();
      buffer = buffer.subarray(delimiter.byteLength + 2);

      let end = indexOf(buffer, HEADER_END);
      while (end < 0) {
        if (buffer.byteLength > MAX_HEADER_BYTES || !(await fill())) throw malformed();
        end = indexOf(buffer, HEADER_END);
      }
      const headers = parseHeaders(new TextDecoder().decode(buffer.subarray(0, end)));
      buffer = buffer.subarray(end + HEADER_END.byteLength);

      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = await bodyChunk();
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
      });
      yield { ...headers, body };
      await body.cancel().catch(() => {});
      while ((await bodyChunk()) !== null) {
        // Skips what the consumer left unread.
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

const HEADER_END = new Uint8Array([13, 10, 13, 10]);

function parseHeaders(text: string): Omit<MultipartPart, 'body'> {
  let name: string | undefined;
  let filename: string | undefined;
  let contentType = 'text/plain';
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-type') contentType = value;
    if (key !== 'content-disposition') continue;
    name = /;\s*name="([^"]*)"/i.exec(value)?.[1];
    filename = /;\s*filename="([^"]*)"/i.exec(value)?.[1];
  }
  if (name === undefined) throw malformed();
  return { name, filename, contentType };
}

/** The boundary parameter of a `multipart/form-data` content type. */
export function boundaryOf(contentType: string): string {
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType);
  const value = boundary?.[1] ?? boundary?.[2];
  if (!value) throw malformed();
  return value;
}

/** Where a tail of `buffer` that could be the start of `delimiter` begins (its length if none). */
function partialDelimiterAt(buffer: Uint8Array, delimiter: Uint8Array): number {
  tails: for (let i = Math.max(0, buffer.byteLength - delimiter.byteLength + 1); i < buffer.byteLength; i++) {
    for (let j = 0; i + j < buffer.byteLength; j++) if (buffer[i + j] !== delimiter[j]) continue tails;
    return i;
  }
  return buffer.byteLength;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0];
  const last = haystack.byteLength - needle.byteLength;
  outer: for (
    let i = haystack.indexOf(first as number);
    i >= 0 && i <= last;
    i = haystack.indexOf(first as number, i + 1)
  ) {
    for (let j = 1; j < needle.byteLength; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function malformed(): SwitchboardError {
  return new SwitchboardError('bad_request', 'The multipart body is malformed.');
}
