/**
 * `switchboard-kit/console`: the operator console, a fetch handler that serves server-rendered pages
 * over the admin services (webhooks, API keys, OAuth clients, grants) and a live activity feed.
 * `createSwitchboard` mounts it on `/console`.
 *
 * @example
 * import { createConsole } from 'switchboard-kit/console';
 * const console = createConsole(runtime, { authenticate, webhooks: webhooks.admin, oauth: oauth.admin, bus });
 */
export {
  type ConsoleConfig,
  type ConsoleHandler,
  type ConsoleOptions,
  type ConsoleRuntime,
  createConsole,
  type Person,
} from './console.js';
