import type { ServerResponse } from 'node:http';
import { writeWebResponse } from './convert.js';
import { type RawResponse, rawOf } from './light-response.js';

/**
 * Writes a handler's answer: a light response's status, fields and text straight to node:http in one
 * `end()` with `content-length`; any other `Response` streamed ({@link writeWebResponse}).
 */
export function writeResponse(response: Response, res: ServerResponse): Promise<void> | undefined {
  const raw = rawOf(response);
  if (!raw) return writeWebResponse(response, res);
  writeRaw(raw, res);
  return undefined;
}

// Flat name, value pairs: node:http takes them without building a header object of its own, and copies
// them into the head before writeHead returns, so one array serves every response.
const fields: string[] = [];

function writeRaw(raw: RawResponse, res: ServerResponse): void {
  fields.length = 0;
  let typed = false;
  let sized = false;
  const headers = raw.headers;
  if (headers)
    for (const name in headers) {
      const value = headers[name]!;
      if (name.length === 12 && name.toLowerCase() === 'content-type') typed = true;
      else if (name.length === 14 && name.toLowerCase() === 'content-length') sized = true;
      fields.push(name, value);
    }
  const { body } = raw;
  // What undici's Response would have said of a text body.
  if (typeof body === 'string' && !typed) fields.push('content-type', 'text/plain;charset=UTF-8');
  if (body !== null && !sized)
    fields.push(
      'content-length',
      String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength),
    );
  if (raw.statusText) res.writeHead(raw.status, raw.statusText, fields);
  else res.writeHead(raw.status, fields);
  if (body === null) res.end();
  else res.end(body);
}
