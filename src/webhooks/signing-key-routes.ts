import { z } from 'zod';
import { created, json } from '../http/responses.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import { ProblemSchema } from '../http/schemas.js';
import { RotateSecretInput } from './admin-schemas.js';
import type { WebhookAdmin } from './admin-service.js';
import { WebhookKeySetSchema, WebhookSigningKeyListSchema } from './admin-wire.js';
import { WEBHOOK_READ_SCOPE as READ, WEBHOOK_WRITE_SCOPE as WRITE } from './scopes.js';
import type { WebhookKeyRing } from './signing-keys.js';

const tags = ['Webhooks'];
const keys = {
  description: 'The signing keys not yet expired, the active one first',
  schema: WebhookSigningKeyListSchema,
  name: 'WebhookSigningKeyList',
};

/** Where the JWK set is served, from the root of the host. */
export const WEBHOOK_KEYS_PATH = '/.well-known/webhook-keys';

/**
 * The admin routes of the deployment's Ed25519 signing keys (`/webhook-signing-keys`, relative to the
 * REST base path): list them, and rotate with an overlap as an endpoint's secret is rotated.
 */
export function signingKeyAdminRoutes(admin: WebhookAdmin): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/webhook-signing-keys',
      operationId: 'listWebhookSigningKeys',
      summary: 'List the Ed25519 signing keys',
      description:
        'The keys that sign `ed25519` endpoints’ deliveries (Standard Webhooks `v1a`), never their private halves; receivers read the same public keys at `/.well-known/webhook-keys`.',
      tags,
      scope: READ,
      responses: { 200: keys },
      handle: async () => json({ items: await admin.listSigningKeys() }),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-signing-keys',
      operationId: 'rotateWebhookSigningKey',
      summary: 'Rotate the Ed25519 signing key',
      description:
        'Makes a new key active. The previous ones keep signing beside it, and stay published at `/.well-known/webhook-keys`, for `overlapSeconds` (default 24 h), so receivers that cache the key set verify throughout; 0 drops them at once (a key that leaked). Other instances follow within a minute.',
      tags,
      scope: WRITE,
      body: { schema: RotateSecretInput, name: 'WebhookSigningKeyRotation' },
      responses: {
        201: keys,
        422: { description: 'A field is not valid', schema: ProblemSchema, name: 'Problem' },
      },
      async handle({ body, basePath }) {
        return created({ items: await admin.rotateSigningKey(body) }, `${basePath}/webhook-signing-keys`);
      },
    }),
  ];
}

/**
 * `GET /.well-known/webhook-keys` (relative to `/.well-known`): the public keys as a JWK set (RFC 7517
 * §5), unauthenticated and cacheable for five minutes, with an ETag for revalidation.
 */
export function webhookKeySetRoutes(ring: WebhookKeyRing): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/webhook-keys',
      operationId: 'getWebhookKeys',
      summary: 'The public keys of ed25519 webhook signatures',
      description:
        'A JWK set of Ed25519 keys (`kty` `OKP`, `crv` `Ed25519`, `alg` `EdDSA`) that verify the `v1a` signatures of `webhook-signature` over `"<webhook-id>.<webhook-timestamp>.<body>"`. During a rotation it lists the new key and the old ones until they expire; every one of them signs meanwhile.',
      tags,
      scope: 'public',
      query: z.object({}),
      responses: { 200: { description: 'The key set', schema: WebhookKeySetSchema, name: 'WebhookKeySet' } },
      handle: async () => json(await ring.jwks(), { headers: { 'cache-control': 'public, max-age=300' } }),
    }),
  ];
}
