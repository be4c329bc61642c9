import type { ScopeCatalogue } from '../core/auth.js';

/** The scope to see webhook endpoints and deliveries. */
export const WEBHOOK_READ_SCOPE = 'admin.webhooks.read';
/** The scope to register, change and remove endpoints and to send deliveries again. */
export const WEBHOOK_WRITE_SCOPE = 'admin.webhooks.write';

/**
 * The scopes of webhook management, in words: part of the catalogue of every switchboard that serves
 * webhooks (docs/oauth.md).
 */
export const WEBHOOK_ADMIN_SCOPES: ScopeCatalogue = {
  [WEBHOOK_READ_SCOPE]: 'See webhook endpoints and their deliveries',
  [WEBHOOK_WRITE_SCOPE]: 'Register, change and remove webhook endpoints; re-send deliveries',
};
