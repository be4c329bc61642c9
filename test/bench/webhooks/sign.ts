/**
 * Sign + verify a 1 KiB webhook in the Standard Webhooks scheme, in this process: switchboard-kit
 * (`signWebhook` + `verifyWebhook`: node:crypto where the runtime has it, Web Crypto elsewhere), the
 * `standardwebhooks` package, and node:crypto used directly (createHmac + timingSafeEqual over
 * `<id>.<timestamp>.<body>`, base64: the limit). After an uncounted warm-up each, timed rounds of about 1 s
 * alternate between them (A B C, C B A, …), so a drift of the machine falls on all three.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signWebhook, verifyWebhook } from 'switchboard-kit/webhooks';

export interface SignResult {
  /** Sign + verify pairs per second, per round, by signer. */
  readonly rounds: Readonly<Record<SignerName, readonly number[]>>;
}

type SignerName = 'switchboard-kit' | 'standardwebhooks' | 'node:crypto';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = JSON.stringify({
  event: 'order.shipped',
  event_id: 'evt_bench',
  data: { note: 'x'.repeat(950) },
});
const key = Buffer.from(secret.slice(6), 'base64');
const reference = new Webhook(secret);
const ROUND_MS = 1_000;
const WARM_UP_MS = 500;

/** One sign + verify; the synchronous ones return nothing, so the loop need not await them. */
const SIGNERS: Readonly<Record<SignerName, () => Promise<void> | undefined>> = {
  'switchboard-kit': async () => {
    const headers = await signWebhook({
      body,
      secrets: [secret],
      eventId: 'msg_1',
      timestamp: Math.floor(Date.now() / 1000),
      scheme: 'standard',
    });
    const result = await verifyWebhook({ body, headers, secrets: [secret], scheme: 'standard' });
    if (!result.ok) throw new Error(result.message);
  },
  standardwebhooks: () => {
    const now = new Date();
    const signature = reference.sign('msg_1', now, body);
    reference.verify(body, {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    });
    return undefined;
  },
  'node:crypto': () => {
    const content = `msg_1.${Math.floor(Date.now() / 1000)}.${body}`;
    const signature = `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
    const sent = Buffer.from(signature.slice(3), 'base64');
    const expected = createHmac('sha256', key).update(content).digest();
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) throw new Error('mismatch');
    return undefined;
  },
};

export async function runSign(rounds: number, log: (line: string) => void): Promise<SignResult> {
  const names = Object.keys(SIGNERS) as SignerName[];
  for (const name of names) await opsPerSecond(name, WARM_UP_MS);
  const result: Record<SignerName, number[]> = {
    'switchboard-kit': [],
    standardwebhooks: [],
    'node:crypto': [],
  };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    for (const name of order) result[name].push(await opsPerSecond(name, ROUND_MS));
    log(
      `  sign round ${r + 1}/${rounds}  ${names.map((n) => `${n} ${Math.round(result[n].at(-1)!).toLocaleString('en-US')}/s`).join(', ')}`,
    );
  }
  return { rounds: result };
}

async function opsPerSecond(name: SignerName, ms: number): Promise<number> {
  const run = SIGNERS[name];
  const started = performance.now();
  let ops = 0;
  let elapsed = 0;
  do {
    // Batches of 64 between clock reads: the clock costs about what a synchronous signer does.
    for (let i = 0; i < 64; i++) {
      const pending = run();
      if (pending) await pending;
    }
    ops += 64;
    elapsed = performance.now() - started;
  } while (elapsed < ms);
  return ops / (elapsed / 1000);
}
