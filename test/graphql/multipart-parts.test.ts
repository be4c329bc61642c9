import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundaryOf, readParts } from '../../src/graphql/http/multipart-parts.js';

/** Feeds `bytes` to the parser in chunks cut at `cuts`, and collects each part's name and text. */
async function parse(bytes: Uint8Array, boundary: string, cuts: number[]): Promise<[string, string][]> {
  const points = [...new Set(cuts.map((c) => c % (bytes.byteLength + 1)))].sort((a, b) => a - b);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let from = 0;
      for (const to of [...points, bytes.byteLength]) {
        if (to > from) controller.enqueue(bytes.slice(from, to));
        from = to;
      }
      controller.close();
    },
  });
  const parts: [string, string][] = [];
  for await (const part of readParts(stream.getReader(), boundary)) {
    parts.push([part.name, await new Response(part.body).text()]);
  }
  return parts;
}

describe('streaming multipart parser', () => {
  it('finds the same parts however the body is cut into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({ maxLength: 200 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        async (fields, cuts, asFiles) => {
          const form = new FormData();
          fields.forEach(([name, value], i) => {
            if (asFiles) form.append(`${name}${i}`, new Blob([value]), `f${i}.txt`);
            else form.append(`${name}${i}`, value);
          });
          const request = new Response(form);
          const boundary = boundaryOf(request.headers.get('content-type')!);
          const bytes = new Uint8Array(await request.arrayBuffer());
          const expected = fields.map(([name, value], i) => [
            `${name}${i}`,
            asFiles ? value : value.replace(/\r?\n|\r/g, '\r\n'),
          ]);
          expect(await parse(bytes, boundary, cuts)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('skips what a consumer leaves unread', async () => {
    const form = new FormData();
    form.append('a', new Blob(['x'.repeat(100_000)]), 'a.bin');
    form.append('b', 'second');
    const request = new Response(form);
    const boundary = boundaryOf(request.headers.get('content-type')!);
    const names: string[] = [];
    let last = '';
    for await (const part of readParts(request.body!.getReader(), boundary)) {
      names.push(part.name);
      if (part.name === 'b') last = await new Response(part.body).text();
    }
    expect(names).toEqual(['a', 'b']);
    expect(last).toBe('second');
  });

  it('refuses a body that ends in the middle of a part', async () => {
    const body = new TextEncoder().encode(
      '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nunfinished',
    );
    await expect(parse(body, 'b', [])).rejects.toMatchObject({ code: 'bad_request' });
  });
});
