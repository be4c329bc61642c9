// The Worker of the workerd smoke suite (test/cloudflare/workerd.test.ts), as a user would write it:
// the switchboard made in the module's global scope from the built package, its admin key from a
// binding, served through the Cloudflare adapter. Bundled with esbuild by the test.
import { env } from 'cloudflare:workers';
import { createWorker } from '../../dist/cloudflare/index.js';
import { createSwitchboard, jsonLogger } from '../../dist/index.js';

const switchboard = createSwitchboard({
  // Warnings and errors reach workerd's output, which the test shows when it fails.
  logger: jsonLogger((line) => console.log(line), { level: 'warn' }),
  oauth: { adminApiKey: env.SWITCHBOARD_API_KEY },
  // The receiver is the test's own server on loopback.
  webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
});

export default createWorker(switchboard);
