/**
 * `switchboard-kit/client`: what a chatbot calls the resource interface with. One fetch-based client
 * typed from the resource declarations (the ones the OpenAPI document is made from), with pagination,
 * `Idempotency-Key` on creates and retries that honour `Retry-After`; and the webhook verifier, for
 * the events the chatbot receives.
 *
 * @example
 * import { createSwitchboardClient } from 'switchboard-kit/client';
 * const api = createSwitchboardClient({ baseUrl: 'https://shop.example', version: 2, token: process.env.API_KEY });
 * const page = await api.clients.list({ city: 'Lyon', limit: 50 });
 *
 * @packageDocumentation
 */

export type { DeclaredResource } from '../core/resources/define.js';
export type {
  DeclarationOf,
  DeclaredShape,
  PluralOf,
  WireCreate,
  WireFilters,
  WirePatch,
  WireRecord,
  WireReplace,
  WireSort,
} from '../core/resources/wire-types.js';
export {
  type VerifyOptions,
  type VerifyResult,
  verifyWebhook,
  type WebhookPublicKey,
} from '../webhooks/verify.js';
export { type FieldProblem, SwitchboardApiError } from './api-error.js';
export { type ClientOptions, createSwitchboardClient } from './create-client.js';
export type { EventFeedClient, FeedItem, FeedPage, FeedQuery } from './event-feed-client.js';
export type { RetryOptions, TransportOptions } from './transport.js';
export type {
  BuiltInResource,
  CallOptions,
  ChangeOptions,
  CreateOptions,
  ListQuery,
  Page,
  ResourceClient,
  SwitchboardClient,
  WireTypes,
  WireTypesOf,
} from './types.js';
