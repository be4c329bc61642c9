/**
 * The live activity stream holds a bounded number of events for a reader that stops reading, then ends
 * its stream, while a reader that keeps up gets every event.
 */
import { get as httpGet, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { until } from '../support/until.js';
import { ADMIN_KEY, type ConsoleInstance, closeConsoles, signIn, startConsoles } from './support.js';

const PUBLISHED = 10_000;
/** Large events, so the socket buffers between server and reader fill after a few thousand. */
const NAME = 'x'.repeat(4_000);
const MARK = 'event: event\n';

/** A stream opened over loopback, counting the events that reach the reader as it reads. */
interface Reader {
  readonly response: IncomingMessage;
  events: number;
  ended: boolean;
}

function open(url: string, cookie: string): Promise<Reader> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers: { cookie, accept: 'text/event-stream' } }, (response) => {
      const reader: Reader = { response, events: 0, ended: false };
      response.once('end', () => (reader.ended = true));
      resolve(reader);
    }).on('error', reject);
  });
}

/** Reads on, counting events (a mark may be cut between two chunks). */
function read(reader: Reader): void {
  let tail = '';
  reader.response.setEncoding('utf8');
  reader.response.on('data', (chunk: string) => {
    const text = tail + chunk;
    reader.events += text.split(MARK).length - 1;
    tail = text.slice(-(MARK.length - 1));
  });
}

describe('the live activity stream of a reader that stops reading', () => {
  let consoles: ConsoleInstance[];
  beforeAll(async () => {
    const storage = createMemoryStorage();
    consoles = await startConsoles(() => storage, 1);
  });
  afterAll(() => closeConsoles(consoles));

  it('ends once it is 1,000 events behind, while a reader that keeps up gets every event', async () => {
    const [{ base, switchboard }] = consoles as [ConsoleInstance];
    const { cookie } = await signIn(base, { api_key: ADMIN_KEY });
    const paused = await open(`${base}/activity/stream`, cookie);
    const reading = await open(`${base}/activity/stream`, cookie);
    read(reading);
    try {
      for (let n = 0; n < PUBLISHED; n++) {
        await switchboard.bus.publish({
          id: `evt_flood_${n}`,
          type: 'client.updated',
          occurredAt: new Date().toISOString(),
          data: { id: `cli_${n}`, name: NAME },
        });
        // In batches, with time for a reader that reads to keep up.
        if (n % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await until(() => reading.events === PUBLISHED, 'the reader that reads to get every event');
      expect(reading.ended).toBe(false);
      // The paused reader reads at last: what the buffers held, then the end of the stream.
      read(paused);
      await until(() => paused.ended, 'the paused stream to end');
      expect(paused.events).toBeGreaterThan(0);
      expect(paused.events).toBeLessThan(PUBLISHED);
    } finally {
      paused.response.destroy();
      reading.response.destroy();
    }
  });
});
