import { describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';

describe('the admin API key a host chooses', () => {
  it('is refused by createSwitchboard when shorter than 32 characters, naming the option', () => {
    expect(() => createSwitchboard({ oauth: { adminApiKey: 'too-short' } })).toThrow(
      'oauth.adminApiKey must be at least 32 characters (it has 9)',
    );
    expect(() => createSwitchboard({ oauth: { adminApiKey: '' } })).toThrow(
      'oauth.adminApiKey must be at least 32 characters (it has 0)',
    );
  });

  it('of 32 characters opens the API, and a caller without credentials is told 401', async () => {
    const adminApiKey = 'k'.repeat(32);
    const switchboard = createSwitchboard({ oauth: { adminApiKey } });
    const url = 'http://switchboard.test/api/v1/clients';
    const admin = await switchboard.fetch(
      new Request(url, { headers: { authorization: `Bearer ${adminApiKey}` } }),
    );
    expect(admin.status).toBe(200);
    expect((await switchboard.fetch(new Request(url))).status).toBe(401);
    await switchboard.close();
  });
});
