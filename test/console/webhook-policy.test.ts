/**
 * An endpoint's delivery policy in the console, over its HTTP routes: the form shows the policy (a
 * credential masked), saves a change (a masked line left as shown keeps its value, a line removed
 * removes the header), and a refused one comes back with its error beside the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { MASKED_HEADER_VALUE } from '../../src/webhooks/index.js';
import {
  ADMIN_KEY,
  type ConsoleInstance,
  closeConsoles,
  get,
  post,
  type Session,
  signIn,
  startConsoles,
} from './support.js';

describe("an endpoint's delivery policy in the console", () => {
  let consoles: ConsoleInstance[];
  let base: string;
  let session: Session;
  beforeAll(async () => {
    consoles = await startConsoles(() => createMemoryStorage(), 1, {
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
    });
    base = consoles[0]!.base;
    session = await signIn(base, { api_key: ADMIN_KEY });
  });
  afterAll(() => closeConsoles(consoles));

  it('shows the policy with credentials masked, and saves a change of it', async () => {
    const admin = consoles[0]!.switchboard.webhooks!.admin;
    const { endpoint } = await admin.createEndpoint({
      url: 'http://127.0.0.1:9/hooks',
      eventTypes: ['order.*'],
      headers: { authorization: 'Bearer s3cr3t', 'x-tenant': 'acme' },
    });
    const path = `/webhooks/${endpoint.id}`;
    const page = await (await get(base, path, session)).text();
    expect(page).toContain('Delivery policy');
    expect(page).toContain(`authorization: ${MASKED_HEADER_VALUE}`);
    expect(page).not.toContain('s3cr3t');

    const saved = await post(base, `${path}/policy`, session, {
      payload: 'thin',
      retrySchedule: '100, 200',
      maxPerSecond: '0.5',
      headers: `authorization: ${MASKED_HEADER_VALUE}\nx-region: eu`,
    });
    expect(saved.status).toBe(303);
    const stored = await consoles[0]!.switchboard.storage.webhooks.endpoints.get(endpoint.id);
    expect(stored).toMatchObject({
      payload: 'thin',
      retrySchedule: [100, 200],
      maxPerSecond: 0.5,
      headers: { authorization: 'Bearer s3cr3t', 'x-region': 'eu' },
    });
    expect(stored!.headers).not.toHaveProperty('x-tenant');
  });

  it('answers a refused policy with the page, its error beside the field and what was typed', async () => {
    const admin = consoles[0]!.switchboard.webhooks!.admin;
    const { endpoint } = await admin.createEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] });
    const refused = await post(base, `/webhooks/${endpoint.id}/policy`, session, {
      payload: 'full',
      retrySchedule: '50',
      maxPerSecond: '',
      headers: 'content-type: text/plain',
    });
    expect(refused.status).toBe(422);
    const page = await refused.text();
    expect(page).toContain('id="retrySchedule-error"');
    expect(page).toContain('id="headers-error"');
    expect(page).toContain('content-type: text/plain');
    expect((await admin.getEndpoint(endpoint.id)).retrySchedule).toBeUndefined();
  });
});
