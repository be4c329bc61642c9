import { encodeBase64 } from '@oslojs/encoding';

/**
 * A new random signing secret: `whsec_` and 32 random bytes in base64, the Standard Webhooks format,
 * so the same secret works with both signature schemes.
 *
 * @example
 * const secret = generateWebhookSecret(); // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw…'
 */
export function generateWebhookSecret(): string {
  return `whsec_${encodeBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}
