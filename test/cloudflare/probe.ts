// A second Worker in the smoke suite's workerd process, for what the test cannot do over HTTP alone:
// fire the app Worker's cron handler (workerd runs `scheduled()` on a service binding, as its own cron
// triggers do), sign and verify a webhook with workerd's Web Crypto, and say what its global scope
// refused.
import { createRuntime } from '../../dist/index.js';
import { createMemoryStorage } from '../../dist/storage/memory/index.js';
import {
  createWebhookKeyRing,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
} from '../../dist/webhooks/index.js';
import { ALLOWED_IN_GLOBAL_SCOPE, REFUSED_IN_GLOBAL_SCOPE, refusedOf } from '../runtimes/global-scope.js';

// Tried here, in the global scope, as workerd loads the Worker.
const refusedInGlobalScope = refusedOf({ ...REFUSED_IN_GLOBAL_SCOPE, ...ALLOWED_IN_GLOBAL_SCOPE });

interface ProbeEnv {
  /** The app Worker; `scheduled` needs the `service_binding_extra_handlers` compatibility flag. */
  readonly APP: {
    scheduled(options: {
      cron: string;
      scheduledTime?: Date;
    }): Promise<{ outcome: string; noRetry: boolean }>;
  };
}

export default {
  async fetch(request: Request, env: ProbeEnv): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/scheduled') return Response.json(await env.APP.scheduled({ cron: '* * * * *' }));
    if (pathname === '/global-scope') return Response.json({ refused: await refusedInGlobalScope });
    if (pathname === '/signature') {
      const secret = generateWebhookSecret();
      const body = JSON.stringify({ event: 'smoke.test', data: {} });
      const headers = await signWebhook({
        body,
        secrets: [secret],
        eventId: 'evt_workerd',
        timestamp: Date.now() / 1000,
      });
      const verified = await verifyWebhook({ body, headers, secrets: [secret] });
      const tampered = await verifyWebhook({ body: `${body} `, headers, secrets: [secret] });
      return Response.json({ signed: verified.ok, tampered: tampered.ok ? 'accepted' : tampered.reason });
    }
    if (pathname === '/signature-ed25519') {
      // A key made, sealed, stored, signed with and verified on workerd, as an ed25519 endpoint's are.
      const storage = createMemoryStorage({ encryptionKey: 'a-probe-encryption-key-0123456789abcdef' });
      const ring = createWebhookKeyRing(createRuntime({ storage }));
      const body = JSON.stringify({ event: 'smoke.test', data: {} });
      const headers = await signWebhook({
        body,
        privateKeys: await ring.signingKeys(),
        eventId: 'evt_workerd',
        timestamp: Date.now() / 1000,
      });
      const publicKeys = await ring.jwks();
      const verified = await verifyWebhook({ body, headers, publicKeys });
      const tampered = await verifyWebhook({ body: `${body} `, headers, publicKeys });
      return Response.json({
        signature: headers['webhook-signature']!.slice(0, 4),
        signed: verified.ok,
        tampered: tampered.ok ? 'accepted' : tampered.reason,
      });
    }
    return new Response(null, { status: 404 });
  },
};
