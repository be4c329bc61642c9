import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook } from '../../src/webhooks/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

async function startExample(env: Record<string, string>): Promise<{ url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/webhook-receiver/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (c) => {
    output += c;
  });
  child.stderr.on('data', (c) => {
    output += c;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  return { url, output: () => output };
}

describe('examples/webhook-receiver', () => {
  it('verifies, processes once and dedupes', async () => {
    const secret = generateWebhookSecret();
    const example = await startExample({ WEBHOOK_SECRETS: secret });
    const body = JSON.stringify({
      event: 'order.shipped',
      event_id: 'evt_example',
      created_at: '2026-01-01T00:00:00Z',
      data: { id: 'ord_1' },
    });
    const send = async (secrets: string[]) =>
      fetch(example.url, {
        method: 'POST',
        body,
        headers: await signWebhook({
          body,
          secrets,
          eventId: 'evt_example',
          timestamp: Math.floor(Date.now() / 1000),
        }),
      });
    expect((await send([generateWebhookSecret()])).status).toBe(401);
    expect(await (await send([secret])).json()).toEqual({ status: 'processed', event_id: 'evt_example' });
    expect(await (await send([secret])).json()).toEqual({ status: 'duplicate', event_id: 'evt_example' });
    await expect.poll(() => example.output()).toContain('"msg":"processed"');
    expect(example.output().match(/"msg":"processed"/g)).toHaveLength(1);
  });

  it('refuses to start without a secret', async () => {
    await expect(startExample({ WEBHOOK_SECRETS: '' })).rejects.toThrow(/exited with 78/);
  });
});
