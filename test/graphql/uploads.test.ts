import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.js';

const IMPORT =
  'mutation($file: Upload!) { importClients(file: $file) { created { name email } rejected { line code } } }';

function multipart(files: Record<string, Blob>, map: Record<string, string[]>, query = IMPORT): FormData {
  const form = new FormData();
  const variables = Object.fromEntries(
    Object.values(map)
      .flat()
      .map((path) => [path.replace('variables.', ''), null]),
  );
  form.set('operations', JSON.stringify({ query, variables }));
  form.set('map', JSON.stringify(map));
  for (const [key, file] of Object.entries(files)) form.set(key, file, `${key}.csv`);
  return form;
}

describe('GraphQL multipart uploads', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ graphql: { limits: { maxFileBytes: 2_000, maxFiles: 1 } } });
  });
  afterAll(() => server.close());

  const upload = (
    body: FormData,
    headers: Record<string, string> = { 'graphql-require-preflight': '1' },
  ): Promise<Response> =>
    fetch(server.url, { method: 'POST', headers: { authorization: 'Bearer service', ...headers }, body });

  it('imports clients from a CSV file and reports created and rejected rows', async () => {
    const csv = [
      'name,email,city',
      'Grace Hopper,grace@example.com,Arlington',
      '"Lovelace, Ada",ada@example.com,',
      'Nobody,not-an-email,',
      'Grace Again,GRACE@example.com,',
    ].join('\r\n');
    const response = await upload(
      multipart({ 0: new Blob([csv], { type: 'text/csv' }) }, { 0: ['variables.file'] }),
    );
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body.data.importClients.created).toEqual([
      { name: 'Grace Hopper', email: 'grace@example.com' },
      { name: 'Lovelace, Ada', email: 'ada@example.com' },
    ]);
    expect(body.data.importClients.rejected).toEqual([
      { line: 4, code: 'validation_failed' },
      { line: 5, code: 'conflict' },
    ]);
    const { body: listed } = await server.gql('{ clients { email } }');
    expect(listed.data.clients.map((c: { email: string }) => c.email)).toContain('ada@example.com');
  });

  it('refuses a multipart request without a preflight-forcing header (CSRF)', async () => {
    const response = await upload(multipart({ 0: new Blob(['name,email']) }, { 0: ['variables.file'] }), {});
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(body.errors[0].extensions.details[0].code).toBe('csrf_header_required');
  });

  it('stops reading a file at the size limit and reports where the import broke off', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => `Big ${i},big${i}@example.com`);
    const big = new Blob([`name,email\n${rows.join('\n')}\n`]);
    expect(big.size).toBeGreaterThan(2_000);
    const response = await upload(multipart({ 0: big }, { 0: ['variables.file'] }));
    const { data } = await response.json();
    const { created, rejected } = data.importClients;
    expect(created.length).toBeLessThan(100);
    expect(rejected.at(-1)).toEqual({ line: created.length + 2, code: 'payload_too_large' });
  });

  it('refuses a request whose declared length is over the limits with 413 before reading it', async () => {
    const form = multipart({ 0: new Blob(['x'.repeat(300_000)]) }, { 0: ['variables.file'] });
    expect((await upload(form)).status).toBe(413);
  });

  it('refuses more files than allowed', async () => {
    const form = multipart(
      { 0: new Blob(['a']), 1: new Blob(['b']) },
      { 0: ['variables.file'], 1: ['variables.other'] },
    );
    expect((await upload(form)).status).toBe(413);
  });

  it('refuses map paths outside the variables, including prototype pollution', async () => {
    for (const path of ['query', 'variables.__proto__.polluted']) {
      const form = multipart({ 0: new Blob(['a']) }, { 0: [path] });
      const response = await upload(form);
      expect(response.status, path).toBe(400);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses an Upload given as a plain JSON value', async () => {
    const { body } = await server.gql(IMPORT, { file: 'name,email\nA,a@example.com' });
    expect(body.errors[0].message).toContain('multipart');
  });
});

describe('GraphQL multipart uploads stream', () => {
  it('imports rows while the rest of the file is still on its way', async () => {
    const server = await startServer();
    try {
      const firstRowImported = new Promise<void>((resolve) => {
        const stop = server.switchboard.bus.subscribe(
          () => {
            stop();
            resolve();
          },
          { types: ['client.created'] },
        );
      });
      const encoder = new TextEncoder();
      let push!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          push = controller;
        },
      });
      const boundary = 'sb-test-boundary';
      const field = (name: string, value: string): string =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      push.enqueue(
        encoder.encode(
          field('operations', JSON.stringify({ query: IMPORT, variables: { file: null } })) +
            field('map', JSON.stringify({ 0: ['variables.file'] })) +
            `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="clients.csv"\r\nContent-Type: text/csv\r\n\r\n` +
            'name,email\nFirst,first@example.com\n',
        ),
      );
      const response = fetch(server.url, {
        method: 'POST',
        headers: {
          authorization: 'Bearer service',
          'graphql-require-preflight': '1',
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        body,
        duplex: 'half',
      } as RequestInit);
      // Had the server waited for the whole body, this would never happen: the body is still open.
      await firstRowImported;
      push.enqueue(encoder.encode(`Second,second@example.com\n\r\n--${boundary}--\r\n`));
      push.close();
      const { data } = await (await response).json();
      expect(data.importClients.created).toEqual([
        { name: 'First', email: 'first@example.com' },
        { name: 'Second', email: 'second@example.com' },
      ]);
    } finally {
      await server.close();
    }
  });
});
