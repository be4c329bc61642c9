import { expect, it } from 'vitest';
import { isSwitchboardError } from '../../core/errors.js';
import type { ResourceRecord, Storage } from '../../core/storage/index.js';
import { anApiKey } from './api-keys.js';
import { at } from './fixtures.js';
import { anOAuthClient } from './oauth.js';
import { anEndpoint } from './webhook-fixtures.js';

/**
 * Text that every adapter keeps exactly as given: emoji with modifiers and joiners, letters beyond the
 * Basic Multilingual Plane (surrogate pairs in JavaScript), combining marks that are not composed, both
 * directions of writing with their marks, and the control characters a message may hold.
 */
export const WELL_FORMED_TEXTS: readonly string[] = [
  'Ada 👩🏽‍💻 loves 🇫🇷 and 🏳️‍🌈',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𠜎𠜱 𓂀',
  'Cafe\u0301 Zoe\u0308 n\u0303', // not normalised: stored decomposed, returned decomposed
  'שלום, עולם \u200f(RTL)\u200e مرحبا بالعالم',
  'tab\there\nnew line\r\n \u200b zero width \ufeff bom \ufffd replacement \uffff',
];

/** Text no adapter can keep as it was: NUL, and halves of a surrogate pair on their own. */
export const UNSTORABLE_TEXTS: readonly string[] = ['a\u0000b', '\ud800x', 'x\udc00', 'end\ud83d'];

let counter = 0;

function aNote(text: string): ResourceRecord {
  const n = ++counter;
  return {
    id: `note_text_${n}`,
    createdAt: at(n),
    updatedAt: at(n),
    version: 1,
    title: text,
    tags: [text],
    meta: { text },
  };
}

const everything = { offset: 0, limit: 100 };
const byCreation = { field: 'createdAt', descending: false } as const;

/** The storage port's rule for text (docs/storage.md, "Text"). */
export function textContract(storage: () => Storage): void {
  it('stores and returns well-formed text exactly: emoji, astral characters, combining marks, RTL', async () => {
    const s = storage();
    for (const text of WELL_FORMED_TEXTS) {
      const note = aNote(text);
      await s.resources.insert('note', note);
      expect(await s.resources.get('note', note.id)).toEqual(note);
      const found = await s.resources.list('note', {
        where: { title: text },
        sort: byCreation,
        range: everything,
      });
      expect(found.items.map((r) => r.id)).toEqual([note.id]);
      const part = [...text].slice(1, 4).join('');
      const containing = await s.resources.list('note', {
        where: { id: note.id, title: { contains: part } },
        sort: byCreation,
        range: everything,
      });
      expect(containing.total).toBe(1);

      const key = anApiKey({ name: text });
      await s.apiKeys.insert(key);
      expect((await s.apiKeys.get(key.id))?.name).toBe(text);
      const client = anOAuthClient({ name: text });
      await s.oauth.clients.insert(client);
      expect((await s.oauth.clients.get(client.id))?.name).toBe(text);
      const endpoint = anEndpoint({ description: text });
      await s.webhooks.endpoints.insert(endpoint);
      expect((await s.webhooks.endpoints.get(endpoint.id))?.description).toBe(text);
    }
  });

  it('refuses NUL and unpaired surrogates with validation_failed (invalid_text), reading and writing nothing', async () => {
    const s = storage();
    for (const text of UNSTORABLE_TEXTS) {
      const note = aNote(text);
      await refused(s.resources.insert('note', note), 'title');
      expect(await s.resources.get('note', note.id)).toBeNull();
      await refused(s.resources.insert('note', { ...aNote('fine'), meta: { [text]: 1 } }), `meta.${text}`);
      await refused(s.resources.get('note', text));
      await refused(
        s.resources.list('note', { where: { title: text }, sort: byCreation, range: everything }),
      );
      const stored = aNote('fine');
      await s.resources.insert('note', stored);
      await refused(s.resources.update('note', { ...stored, title: text, version: 2 }, 1), 'title');
      expect(await s.resources.get('note', stored.id)).toEqual(stored);

      const key = anApiKey({ name: text });
      await refused(s.apiKeys.insert(key), 'name');
      expect(await s.apiKeys.get(key.id)).toBeNull();
      const client = anOAuthClient({ name: text });
      await refused(s.oauth.clients.insert(client), 'name');
      expect(await s.oauth.clients.get(client.id)).toBeNull();
      await refused(s.oauth.clients.get(text));
      const endpoint = anEndpoint({ description: text });
      await refused(s.webhooks.endpoints.insert(endpoint), 'description');
      expect(await s.webhooks.endpoints.get(endpoint.id)).toBeNull();
      await refused(s.idempotency.claim(`key:${text}`, { now: 0, lockMs: 1000 }));
      await refused(s.rateLimits.take(`ip:${text}`, { limit: 10, windowMs: 1000 }, 1, 0));
    }
  });

  it('refuses unstorable text inside a transaction without breaking it', async () => {
    const s = storage();
    const kept = aNote('kept');
    await s.transaction(async (tx) => {
      await refused(tx.resources.insert('note', aNote('bad\u0000')), 'title');
      await tx.resources.insert('note', kept);
    });
    expect(await s.resources.get('note', kept.id)).toEqual(kept);
  });
}

async function refused(work: Promise<unknown>, field?: string): Promise<void> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isSwitchboardError(error), `expected a SwitchboardError, got ${String(error)}`).toBe(true);
  if (!isSwitchboardError(error)) return;
  expect(error.code).toBe('validation_failed');
  expect(error.status).toBe(422);
  expect(error.details[0]?.code).toBe('invalid_text');
  if (field !== undefined) expect(error.details.map((d) => d.field)).toContain(field);
}
