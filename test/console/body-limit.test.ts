/**
 * Every console form, the sign-in that needs no session included, is read within a small limit: a
 * larger body is answered 413 as soon as the limit is passed, and the rest is never read.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  ADMIN_KEY,
  type ConsoleInstance,
  closeConsoles,
  type Session,
  signIn,
  startConsoles,
} from './support.js';

const CHUNK = 64 * 1024;
const ATTACK = 400 * 1024 * 1024;
/** The limit (64 KiB) and the few chunks a stream reads ahead. */
const READ_AT_MOST = 256 * 1024;

/** A form body of up to 400 MB, made as it is read, counting what was read. */
function endlessForm(): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const chunk = new TextEncoder().encode('a'.repeat(CHUNK));
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= ATTACK) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled };
}

describe('console forms have a small body limit', () => {
  let consoles: ConsoleInstance[];
  let base: string;
  beforeAll(async () => {
    const storage = createMemoryStorage();
    consoles = await startConsoles(() => storage, 1);
    base = consoles[0]!.base;
  });
  afterAll(() => closeConsoles(consoles));

  const send = (path: string, form: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
    consoles[0]!.switchboard.fetch(
      new Request(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: form,
        duplex: 'half',
      } as RequestInit),
    );

  it('answers a sign-in of 400 MB with 413 after reading little more than the limit', async () => {
    const { body, pulled } = endlessForm();
    const response = await send('/sign-in', body);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain('larger than the limit of 65536 bytes');
    expect(pulled()).toBeLessThanOrEqual(READ_AT_MOST);
  });

  it('answers a signed-in form of 400 MB with 413 after reading little more than the limit', async () => {
    const session: Session = await signIn(base, { api_key: ADMIN_KEY });
    const { body, pulled } = endlessForm();
    const response = await send('/webhooks', body, { cookie: session.cookie, origin: new URL(base).origin });
    expect(response.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(READ_AT_MOST);
  });

  it('answers a declared length over the limit with 413 before reading any of it', async () => {
    const { body, pulled } = endlessForm();
    const response = await send('/sign-in', body, { 'content-length': String(ATTACK) });
    expect(response.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(CHUNK);
  });

  it('over loopback, a chunked sign-in of 400 MB gets its 413 while the client is still sending', async () => {
    const url = new URL(`${base}/sign-in`);
    const chunk = Buffer.alloc(CHUNK, 'a');
    const { status, sent } = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = httpRequest(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        answered = true;
        res.resume();
        resolve({ status: res.statusCode ?? 0, sent });
        req.destroy();
      });
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      const write = (): void => {
        while (!answered && sent < ATTACK) {
          sent += chunk.byteLength;
          if (!req.write(chunk)) return void req.once('drain', write);
        }
        if (!answered) req.end();
      };
      write();
    });
    expect(status).toBe(413);
    expect(sent).toBeLessThan(ATTACK / 10);
  });
});
