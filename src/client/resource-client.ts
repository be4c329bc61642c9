/** The calls on one resource, under `/<plural>` of the version the client speaks. */
import type { Call, Send } from './transport.js';
import type { CallOptions, ChangeOptions, Page, ResourceClient, WireTypes } from './types.js';

/** What a list answers: the body plus the `next` link from the `Link` header. */
type ListBody<T> = Omit<Page<T>, 'next'>;

export function resourceClient<T extends WireTypes>(send: Send, plural: string): ResourceClient<T> {
  type Item = T['record'];
  const path = `/${plural}`;
  const one = (id: string) => `${path}/${encodeURIComponent(id)}`;
  const record = async (call: Call) => (await send(call)).body as Item;
  const ifMatch = (options: ChangeOptions | undefined): Record<string, string> =>
    options?.ifVersion === undefined ? {} : { 'if-match': `"${options.ifVersion}"` };

  const page = async (call: Call): Promise<Page<Item>> => {
    const answer = await send(call);
    return { ...(answer.body as ListBody<Item>), next: nextLink(answer.headers.get('link')) };
  };
  const list = (query?: T['query'], options?: CallOptions) =>
    page({ method: 'GET', path, query: query as Call['query'], signal: options?.signal });
  async function* pages(query?: T['query'], options?: CallOptions) {
    let current = await list(query, options);
    yield current;
    while (current.next) {
      current = await page({ method: 'GET', path: current.next, signal: options?.signal });
      yield current;
    }
  }

  return {
    list,
    pages,
    async *all(query, options) {
      for await (const { items } of pages(query, options)) yield* items;
    },
    get: (id, options) => record({ method: 'GET', path: one(id), signal: options?.signal }),
    create: (input, options) =>
      record({
        method: 'POST',
        path,
        body: input,
        idempotencyKey: options?.idempotencyKey,
        signal: options?.signal,
      }),
    update: (id, patch, options) =>
      record({
        method: 'PATCH',
        path: one(id),
        body: patch,
        contentType: 'application/merge-patch+json',
        headers: ifMatch(options),
        signal: options?.signal,
      }),
    replace: (id, input, options) =>
      record({
        method: 'PUT',
        path: one(id),
        body: input,
        headers: ifMatch(options),
        signal: options?.signal,
      }),
    async delete(id, options) {
      await send({ method: 'DELETE', path: one(id), headers: ifMatch(options), signal: options?.signal });
    },
  };
}

/** The `rel="next"` target of an RFC 8288 `Link` header, or null. */
function nextLink(header: string | null): string | null {
  for (const part of header?.split(',') ?? []) {
    const match = /^\s*<([^>]*)>\s*;.*\brel="?next"?/.exec(part);
    if (match) return match[1]!;
  }
  return null;
}
