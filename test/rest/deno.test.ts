import { describe, expect, it } from 'vitest';
import { DENO_TIMEOUT_MS, runOnDeno } from '../support/deno.js';

describe('the REST handler set on Deno', () => {
  it('serves requests with Deno.serve over real HTTP, from source', {
    timeout: DENO_TIMEOUT_MS,
  }, async () => {
    expect(await runOnDeno('test/rest/deno-smoke.ts', { fromSource: true })).toEqual({
      created: { status: 201, location: expect.stringMatching(/^\/api\/v1\/clients\/cli_\w+$/) },
      list: {
        status: 200,
        link: '</api/v1/clients?limit=1&page=1>; rel="first", </api/v1/clients?limit=1&page=1>; rel="last"',
        total: 1,
      },
      missing: { status: 404, type: 'application/problem+json' },
    });
  });
});
