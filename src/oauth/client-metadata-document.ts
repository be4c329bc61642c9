/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, recommended by the MCP
 * authorization spec of 2025-11-25): a client uses an https URL as its `client_id`, and the server
 * fetches that URL for the client's metadata instead of having it registered. Such a client is public
 * (PKCE, no secret), limited like a self-registered one, and shown unverified with the document's host.
 * Nothing is stored: the client lives in a bounded cache of this server instance.
 *
 * Fetching a URL someone else chose is an outbound request on their behalf, so it goes through the
 * webhooks' outbound policy (https only, no private or reserved address, the resolved address checked),
 * follows no redirect, reads at most {@link MAX_DOCUMENT_BYTES} within {@link FETCH_TIMEOUT_MS}, and at
 * most {@link MAX_FETCHES} run at once; a cache miss at the authorization endpoint is charged to the
 * caller's `register` budget.
 */
import { z } from 'zod';
import { anonymousPrincipal } from '../core/auth.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import type { OAuthClientRecord } from '../core/storage/index.js';
import { readJson } from '../http/body.js';
import { checkDestination, type OutboundPolicy } from '../http/outbound.js';
import type { Requester } from '../http/request-context.js';
import { clientFromMetadata } from './dynamic-registration.js';
import { oauthError } from './oauth-error.js';
import type { ServerContext } from './server-options.js';

const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 16_384;
const MAX_CACHED = 1_000;
const MAX_FETCHES = 8;
const DEFAULT_TTL_MS = 5 * 60_000;
const MIN_TTL_MS = 60_000;
const MAX_TTL_MS = 24 * 3_600_000;
/** A document that could not be used is asked for again this soon at the earliest. */
const FAILURE_TTL_MS = 10_000;

/** What this server instance knows of metadata documents: its cache, and the fetches under way. */
export interface MetadataDocuments {
  readonly policy: OutboundPolicy;
  readonly fetch: typeof fetch | undefined;
  /** By URL, least recently used first. */
  readonly cached: Map<string, CachedDocument>;
  readonly fetching: Map<string, Promise<CachedDocument>>;
}

interface CachedDocument {
  /** The client, or null when the document could not be used (then `problem` says why). */
  readonly client: OAuthClientRecord | null;
  readonly problem: string;
  readonly expiresAt: number;
}

/** An empty cache for one authorization server, fetching through `fetch` (the platform's when undefined). */
export function createMetadataDocuments(
  policy: OutboundPolicy,
  doFetch: typeof fetch | undefined,
): MetadataDocuments {
  return { policy, fetch: doFetch, cached: new Map(), fetching: new Map() };
}

/** Whether a `client_id` is a URL, so names a metadata document rather than a registered client. */
export function isMetadataDocumentUrl(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/** The host of a client's metadata document, or null for a registered client: what the consent page shows. */
export function metadataDocumentHost(client: OAuthClientRecord): string | null {
  return isMetadataDocumentUrl(client.id) && URL.canParse(client.id) ? new URL(client.id).host : null;
}

/**
 * The client the document at `url` describes, from the cache or fetched now; `invalid_client` saying
 * what is wrong otherwise. `requester`, when given, pays for a fetch from its `register` budget.
 */
export async function metadataDocumentClient(
  ctx: ServerContext,
  documents: MetadataDocuments,
  url: string,
  requester?: Requester,
): Promise<OAuthClientRecord> {
  const now = ctx.clock.now();
  let entry = documents.cached.get(url);
  if (entry && entry.expiresAt <= now) {
    documents.cached.delete(url);
    entry = undefined;
  }
  if (entry) {
    // Least recently used goes first: a hit moves to the end.
    documents.cached.delete(url);
    documents.cached.set(url, entry);
  } else {
    entry = await fetchOnce(ctx, documents, url, requester);
  }
  if (!entry.client)
    throw oauthError(
      'invalid_client',
      `The app's metadata document at ${url} could not be used. ${entry.problem}`,
    );
  return entry.client;
}

/** One fetch per URL at a time: concurrent requests for the same document share it. */
async function fetchOnce(
  ctx: ServerContext,
  documents: MetadataDocuments,
  url: string,
  requester: Requester | undefined,
): Promise<CachedDocument> {
  const running = documents.fetching.get(url);
  if (running) return running;
  const problem = urlProblem(url, documents.policy);
  if (problem) return { client: null, problem, expiresAt: 0 };
  if (documents.fetching.size >= MAX_FETCHES) {
    throw new SwitchboardError(
      'rate_limited',
      'Too many app metadata documents are being fetched; try again.',
      {
        retryAfter: 1,
        details: [{ field: 'error', code: 'temporarily_unavailable', message: 'Try again in a second.' }],
      },
    );
  }
  if (ctx.rateLimit && requester) await ctx.rateLimit.take(requester, anonymousPrincipal, 'register');
  const fetching = load(ctx, documents, url).then((entry) => {
    documents.cached.delete(url);
    documents.cached.set(url, entry);
    // Oldest out: the cache never holds more than MAX_CACHED documents.
    for (const key of documents.cached.keys()) {
      if (documents.cached.size <= MAX_CACHED) break;
      documents.cached.delete(key);
    }
    return entry;
  });
  documents.fetching.set(url, fetching);
  try {
    return await fetching;
  } finally {
    documents.fetching.delete(url);
  }
}

/** Why a URL cannot be a client_id here (draft §3), or null: https with a path, in its normal form. */
function urlProblem(url: string, policy: OutboundPolicy): string | null {
  if (!URL.canParse(url)) return 'Its URL is not a valid URL.';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && policy.allowHttp))
    return 'Its URL must use https.';
  if (parsed.username || parsed.password) return 'Its URL must not contain credentials.';
  if (url.includes('#')) return 'Its URL must not contain a fragment.';
  if (parsed.pathname === '/') return 'Its URL must have a path (e.g. /oauth/client.json).';
  // No dot segments, default port, upper-case host: the client_id is compared as given, so it must
  // be written the one way the URL parser writes it.
  if (parsed.href !== url) return `Its URL must be written in its normal form (${parsed.href}).`;
  return null;
}

/** Fetches and checks a document; never throws: a failure is a cache entry with its problem. */
async function load(ctx: ServerContext, documents: MetadataDocuments, url: string): Promise<CachedDocument> {
  const failed = (problem: string): CachedDocument => ({
    client: null,
    problem,
    expiresAt: ctx.clock.now() + FAILURE_TTL_MS,
  });
  const { refused } = await checkDestination(url, documents.policy);
  if (refused) return failed(refused.reason);
  const doFetch = documents.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    return failed(timedOut ? `No answer within ${FETCH_TIMEOUT_MS / 1000} s.` : 'It could not be fetched.');
  }
  try {
    if (response.status >= 300 && response.status < 400)
      return failed(`It answered ${response.status}, a redirect; redirects are not followed.`);
    if (response.status !== 200) return failed(`It answered ${response.status}, not 200.`);
    if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(response.headers.get('content-type') ?? ''))
      return failed('It is not served as application/json.');
    let document: unknown;
    try {
      document = await readJson(response, MAX_DOCUMENT_BYTES);
    } catch (error) {
      if (isSwitchboardError(error) && error.code === 'payload_too_large')
        return failed(`It is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
      return failed('It is not valid JSON.');
    }
    const client = documentClient(ctx, url, document);
    if (typeof client === 'string') return failed(client);
    return { client, problem: '', expiresAt: ctx.clock.now() + ttlOf(response.headers.get('cache-control')) };
  } finally {
    response.body?.cancel().catch(() => {});
  }
}

/** What the draft adds to RFC 7591's fields: the document names itself, and a public client has no secret. */
const DocumentSchema = z.looseObject({
  client_id: z.string({ error: "client_id is missing: it must be the document's URL." }),
  client_secret: z.never({ error: 'It must not hold a client_secret: such a client is public.' }).optional(),
  client_secret_expires_at: z.never({ error: 'It must not hold client_secret_expires_at.' }).optional(),
  token_endpoint_auth_method: z
    .literal('none', {
      error: 'token_endpoint_auth_method must be "none": such a client is public, with PKCE and no secret.',
    })
    .optional(),
  client_name: z.string({ error: 'client_name must be text.' }).optional(),
});

/** The client a document describes, or why it cannot be used. */
function documentClient(ctx: ServerContext, url: string, document: unknown): OAuthClientRecord | string {
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    return 'It is not a JSON object.';
  const parsed = DocumentSchema.safeParse(document);
  if (!parsed.success) return parsed.error.issues[0]!.message;
  if (parsed.data.client_id !== url) return "Its client_id is not the document's URL exactly.";
  try {
    // Without a name, the app is called by the host it describes itself at.
    const metadata = { ...parsed.data, client_name: parsed.data.client_name ?? new URL(url).host };
    return clientFromMetadata(ctx, metadata, url);
  } catch (error) {
    if (isSwitchboardError(error)) return error.message;
    throw error;
  }
}

/** How long a document is kept: its `Cache-Control: max-age`, within 1 minute and 24 hours. */
function ttlOf(cacheControl: string | null): number {
  if (!cacheControl) return DEFAULT_TTL_MS;
  if (/(?:^|,)\s*(?:no-store|no-cache)\b/i.test(cacheControl)) return MIN_TTL_MS;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  if (!maxAge) return DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Number(maxAge[1]) * 1000));
}
