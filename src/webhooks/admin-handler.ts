import { type Authenticate, resolveTrust } from '../core/auth.js';
import { createRouteHandler, type RestHandler, type RouteRuntime } from '../http/route-handler.js';
import { webhookAdminRoutes } from './admin-routes.js';
import type { WebhookAdmin } from './admin-service.js';
import { WEBHOOK_ADMIN_SCOPES } from './scopes.js';

/** Options of {@link createWebhookAdminHandler}: the admin service, `authenticate`, and the base path. */
export interface WebhookAdminHandlerOptions {
  readonly admin: WebhookAdmin;
  readonly authenticate: Authenticate;
  /** Where the REST interface lives (default `/api/v1`). */
  readonly basePath?: string;
}

/**
 * Serves {@link webhookAdminRoutes} with the REST conventions: authentication, `admin.webhooks.read` /
 * `admin.webhooks.write` scopes, problem+json errors, ETags, pagination links.
 *
 * @example
 * const handle = createWebhookAdminHandler(runtime, { admin, authenticate, basePath: '/api/v1' });
 * await handle(new Request('http://localhost/api/v1/webhook-endpoints'));
 */
export function createWebhookAdminHandler(
  runtime: RouteRuntime,
  options: WebhookAdminHandlerOptions,
): RestHandler {
  return createRouteHandler(runtime, {
    routes: webhookAdminRoutes(options.admin),
    // Used on its own, a trusted caller holds what these routes need.
    authenticate: resolveTrust(options.authenticate, Object.keys(WEBHOOK_ADMIN_SCOPES)),
    basePath: options.basePath ?? '/api/v1',
    info: { title: 'Switchboard webhook admin', version: '1' },
  });
}
