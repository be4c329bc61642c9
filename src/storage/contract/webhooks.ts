/**
 * Webhook endpoints, deliveries (claimed with a lease) and their attempts.
 *
 * Filled in by the webhooks module (issue 6).
 */
// biome-ignore lint/suspicious/noEmptyInterface: placeholder until the webhook stores land.
export interface WebhookStores {}
