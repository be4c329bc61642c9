import { BUILT_IN_RESOURCES, CORE_RESOURCES, scopeCatalogue } from '../../src/index.js';
import { OAUTH_ADMIN_SCOPES } from '../../src/oauth/index.js';
import { WEBHOOK_ADMIN_SCOPES } from '../../src/webhooks/index.js';

/**
 * Every scope of a switchboard serving the built-in resources, webhooks and OAuth, as its catalogue
 * computes them: what a test's all-powerful caller holds.
 */
export const EVERY_SCOPE: ReadonlySet<string> = new Set(
  Object.keys({
    ...scopeCatalogue([...CORE_RESOURCES, ...BUILT_IN_RESOURCES]),
    ...WEBHOOK_ADMIN_SCOPES,
    ...OAUTH_ADMIN_SCOPES,
  }),
);
