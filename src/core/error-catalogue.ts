/**
 * What every error code means and what the caller should do about it, in one place: `docs/errors.md`
 * and the pages the problem documents' `type` URIs point at (`/problems/<code>`) are made of this text.
 * Web APIs only, like the rest of the core.
 */

import { type Html, html } from '../internal/html.js';
import { type Branding, siteHeader, stylesheetLink } from '../internal/look/page.js';
import { type ErrorCode, statusOf } from './errors.js';

/** One {@link ErrorCode}: its HTTP status, the problem document's `title`, and text for people. */
export interface ErrorCatalogueEntry {
  readonly code: ErrorCode;
  /** The status the code answers with unless the error overrides it (`statusOf(code)`). */
  readonly status: number;
  /** The `title` of an RFC 9457 problem document with this code. */
  readonly title: string;
  /** What happened, in one or two sentences. */
  readonly meaning: string;
  /** What the caller should do about it, in one or two sentences. */
  readonly action: string;
}

/** A code that is not an {@link ErrorCode}: a field-level detail code or a GraphQL `extensions.code`. */
export interface DetailCodeEntry {
  readonly code: string;
  /** What happened, in one sentence. */
  readonly meaning: string;
  /** What the caller should do about it, in one sentence. */
  readonly action: string;
}

type Texts<E> = Omit<E, 'code' | 'status'>;

const ERROR_TEXTS: Readonly<Record<ErrorCode, Texts<ErrorCatalogueEntry>>> = {
  bad_request: {
    title: 'Bad request',
    meaning:
      'The request could not be understood: the body is not well-formed JSON, or a header, parameter or protocol message is missing or malformed. Most refused OAuth requests have this code too, and their OAuth `error` code says why.',
    action:
      'Correct the request as the message and its details say and send it again; sending it unchanged fails the same way.',
  },
  validation_failed: {
    title: 'Validation failed',
    meaning:
      'The request was understood, but some of its input breaks a rule: a field is missing, too long, of the wrong type or not allowed. Each failing field is listed with its own code (a bad query parameter answers 400 instead of 422).',
    action:
      'Correct every field listed in the details (`errors` in a problem document, `extensions.details` in GraphQL) and send the request again.',
  },
  unauthorized: {
    title: 'Unauthorized',
    meaning:
      'The request carries no credentials, or credentials that are unknown, expired or revoked. For a webhook receiver, the signature of the webhook does not verify.',
    action:
      'Send a valid access token or API key as `Authorization: Bearer <token>`; when an access token has expired, get a new one with your refresh token or sign in again. Sign webhooks with the secret shared with the receiver.',
  },
  forbidden: {
    title: 'Forbidden',
    meaning:
      'The credentials are valid but do not allow this action: a scope is missing, or a signed-in user asked for something only the organisation may do. An OAuth sign-in that the user refused, or whose callback failed its checks, ends the same way.',
    action:
      "Use credentials that carry the scope named in the message (over REST, the `WWW-Authenticate` challenge names it too), or the organisation's credentials instead of a user's; after a refused or failed OAuth sign-in, start the sign-in again.",
  },
  not_found: {
    title: 'Not found',
    meaning:
      'Nothing is served at this path, or the record does not exist, or it belongs to another user and is hidden from you.',
    action:
      'Check the path and the id, for example by listing the collection; a deleted record stays gone, so create it again rather than retrying.',
  },
  method_not_allowed: {
    title: 'Method not allowed',
    meaning:
      'The path exists but does not accept this HTTP method, for example a GraphQL mutation sent with GET.',
    action: 'Use one of the methods named in the `Allow` header of the answer.',
  },
  gone: {
    title: 'Gone',
    meaning:
      'What the request points at is no longer kept: an event feed cursor older than the retention, whose events the sweep has removed.',
    action:
      'Start again from what is kept: for the event feed, read on from the `oldestCursor` the answer names, knowing that events before it are lost to this reader.',
  },
  conflict: {
    title: 'Conflict',
    meaning:
      'The request clashes with the current state: the e-mail address is already used, an order cannot move to that status, a record with that id exists, or a request with the same `Idempotency-Key` is still running.',
    action:
      'Read the current state and change the request accordingly; when a request with the same `Idempotency-Key` is still running, wait the seconds in `Retry-After` and retry with the same key.',
  },
  precondition_failed: {
    title: 'Precondition failed',
    meaning: 'The version sent in `If-Match` is no longer current: the record changed since you read it.',
    action:
      'Read the record again, apply your change to the fresh copy, and send it with the new `ETag` in `If-Match`.',
  },
  payload_too_large: {
    title: 'Payload too large',
    meaning:
      'The body, a WebSocket message, an uploaded file or an imported file is larger than the server accepts.',
    action:
      'Send less at once: split the data over several requests or shrink the file below the limit the message names.',
  },
  unsupported_media_type: {
    title: 'Unsupported media type',
    meaning: 'The body is in a format this endpoint does not accept, or is not UTF-8.',
    action:
      'Send the body as one of the content types the message names, such as `application/json`, or `application/x-www-form-urlencoded` for the OAuth endpoints.',
  },
  rate_limited: {
    title: 'Too many requests',
    meaning: 'You sent more requests than the server accepts in a period of time.',
    action:
      'Wait the number of seconds in the `Retry-After` header before you retry, and spread your requests out.',
  },
  unavailable: {
    title: 'Service unavailable',
    meaning:
      'The service cannot answer right now, for example because its database cannot be reached or too much work is waiting.',
    action:
      'Retry later with a growing delay, after `Retry-After` when it is sent; send an `Idempotency-Key` with a POST so a retry cannot do the work twice.',
  },
  internal: {
    title: 'Internal server error',
    meaning: 'Something went wrong on the server; the details were logged there and are not shown to you.',
    action:
      'Retry later; if it keeps failing, tell the operator of the service when it happened and what you sent.',
  },
};

/** Every {@link ErrorCode} with its status, title, meaning and what to do. Frozen. */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, ErrorCatalogueEntry>> = freezeAll(
  Object.fromEntries(
    Object.entries(ERROR_TEXTS).map(([code, text]) => [
      code,
      { code, status: statusOf(code as ErrorCode), ...text },
    ]),
  ) as Record<ErrorCode, ErrorCatalogueEntry>,
);

const FIELD_TEXTS = {
  // Input validation, the same on every interface (`src/core/field-errors.ts`).
  required: {
    meaning: 'The field is missing or empty.',
    action: 'Send the field with a value.',
  },
  invalid_type: {
    meaning: 'The value has the wrong type, for example a number where text is expected.',
    action: 'Send a value of the type the message names.',
  },
  too_short: {
    meaning: 'The text is shorter than the minimum length.',
    action: 'Send at least as many characters as the message names.',
  },
  too_long: {
    meaning: 'The text is longer than the maximum length.',
    action: 'Shorten it to at most the number of characters the message names.',
  },
  too_few: {
    meaning: 'The list has fewer items than required.',
    action: 'Add items until the list has the minimum the message names.',
  },
  too_many: {
    meaning: 'The list has more items than allowed.',
    action:
      'Send at most the number of items the message names, splitting them over several requests if needed.',
  },
  out_of_range: {
    meaning: 'The number is outside the allowed range.',
    action: 'Send a number within the bounds the message names.',
  },
  invalid_format: {
    meaning:
      'The value does not have the expected format, such as an e-mail address or an `Idempotency-Key`.',
    action: 'Send the value in the format the message describes.',
  },
  invalid_value: {
    meaning: 'The value is not one of the allowed values.',
    action: 'Use one of the values the message lists.',
  },
  unknown_field: {
    meaning: 'The input has a field that is not part of it.',
    action: 'Remove the field, or check its spelling against the API reference.',
  },
  invalid_text: {
    meaning:
      'The text holds a character that cannot be stored: NUL (U+0000), or half of a UTF-16 surrogate pair without the other half.',
    action:
      'Remove the character; send well-formed Unicode text (emoji and every other character are accepted).',
  },
  invalid: {
    meaning: 'The value breaks a rule that the message explains.',
    action: 'Change the value as the message says.',
  },
  // Requests.
  malformed_json: {
    meaning: 'The body is not a well-formed JSON document.',
    action: 'Send valid UTF-8 JSON, for example made with `JSON.stringify`.',
  },
  unsupported: {
    meaning: 'The `Content-Type` of the body is not one this endpoint accepts.',
    action: 'Send the body with one of the content types the message names.',
  },
  key_reused: {
    meaning: 'The `Idempotency-Key` was used before with a different body.',
    action: 'Use a new key for a new request, and reuse a key only to retry exactly the same request.',
  },
  already_exists: {
    meaning: 'Another record already uses this value, such as the e-mail address of another client.',
    action: 'Use another value, or change the existing record instead.',
  },
  invalid_transition: {
    meaning: 'The record cannot move from its current state to the one asked for.',
    action:
      'Read the record and ask only for a move its life cycle allows, such as an order from pending to paid.',
  },
  overlaps: {
    meaning:
      'The record would overlap another one that may not share its time, such as a confirmed booking of the same service.',
    action: 'Choose another time, or cancel the booking it names first.',
  },
  temporarily_unavailable: {
    meaning:
      'The token endpoint refused the request because the client is over its budget of token requests.',
    action:
      'Wait the seconds `Retry-After` gives, then ask again; keep access tokens until they expire instead of asking per call.',
  },
  disabled: {
    meaning: 'The webhook endpoint is disabled, so nothing is sent to it, a test event included.',
    action: 'Enable the endpoint (PATCH `{"enabled": true}`, or Enable in the console), then send again.',
  },
  closed: {
    meaning: 'The record it names is closed and takes nothing new, such as a closed conversation.',
    action: 'Send without the reference to start a new one, or reopen it first where that is allowed.',
  },
  unknown_reference: {
    meaning:
      'A field that refers to another record names one that does not exist (or, for a signed-in user, one of another client).',
    action: 'Send the id of an existing record, e.g. a client id from `GET /clients`.',
  },
  not_owner: {
    meaning:
      "A signed-in user's write would make the record another client's, or put it in another client's record (a message into their conversation).",
    action: "Write your own client's records only: name your own client id, or leave the owner out.",
  },
  invalid_range: {
    meaning: 'The end of the time range is not after its start.',
    action: 'Send a `to` that is later than `from`.',
  },
  csrf_header_required: {
    meaning:
      'A GraphQL multipart upload lacks the header that shows it is not a cross-site form post (CSRF protection).',
    action: 'Add the header `graphql-require-preflight: 1` to the request.',
  },
  post_required: {
    meaning: 'A GraphQL mutation was sent with GET, which runs queries only.',
    action: 'Send mutations with POST.',
  },
  // Credentials and scopes (RFC 6750 codes, in the detail with field `authorization` or `scope`).
  invalid_token: {
    meaning: 'The access token or API key is unknown, expired or revoked.',
    action:
      'Get a new access token with your refresh token or by signing in again, or use a current API key.',
  },
  insufficient_scope: {
    meaning: 'The credentials lack the scope this action needs, which the message names.',
    action: 'Use an access token or API key that was granted that scope.',
  },
  unknown_scope: {
    meaning: 'A scope asked for does not exist.',
    action: 'Ask only for scopes the API defines, such as `crm.clients.read`.',
  },
  invalid_cursor: {
    meaning: 'A cursor of the event feed (`after`, `Last-Event-ID`) is not one the feed gave.',
    action: "Pass a page's `next`, an item's `cursor` or an event stream's `id` exactly as it came.",
  },
  cursor_expired: {
    meaning: 'The events after this cursor were removed by the retention sweep.',
    action: 'Read on from the `oldestCursor` the answer names.',
  },
  invalid_header: {
    meaning:
      "A webhook endpoint's custom header has a name or value that cannot be sent: a hop-by-hop header, one the sender sets itself, or text that is not visible ASCII.",
    action: 'Name another header, or send a value of visible ASCII characters only.',
  },
  unknown_event_type: {
    meaning: 'An event type pattern matches no event type of the catalogue.',
    action: 'Name an event type (`order.created`), a resource wildcard (`order.*`) or `*`.',
  },
  unknown_tool: {
    meaning: "An OAuth client's MCP tool restriction names a tool that the MCP endpoint does not serve.",
    action:
      'Name tools that `tools/list` shows, such as `list_bookings`, or send `null` to allow every tool.',
  },
  invalid_redirect_uri: {
    meaning:
      'A redirect URI of an OAuth client is not an absolute `https` URL without a fragment (plain `http` is allowed only on a loopback address).',
    action: 'Register the redirect URI as the message says, for example with `https`.',
  },
  // OAuth `error` codes (RFC 6749, RFC 7009), in the detail with field `error`.
  invalid_request: {
    meaning:
      'The request does not follow the protocol: a parameter is missing, repeated or malformed, the content type is wrong, or the token was not sent as `Authorization: Bearer <token>`.',
    action: 'Correct the request as the message (`error_description`) says.',
  },
  invalid_client: {
    meaning: 'Client authentication failed: the client is unknown or its secret is wrong.',
    action: 'Check the client id and secret, and send them with HTTP Basic or in the form body.',
  },
  invalid_grant: {
    meaning:
      'The authorization code, refresh token or PKCE verifier is invalid, expired, already used or was issued to another client.',
    action: 'Start the sign-in again to get a new authorization code and new tokens.',
  },
  unauthorized_client: {
    meaning: 'This client may not use the grant type it asked for.',
    action: 'Use a grant type the client is registered for, or register the client for this one.',
  },
  unsupported_grant_type: {
    meaning: 'The `grant_type` is not one the server supports.',
    action: 'Use `authorization_code`, `refresh_token` or `client_credentials`.',
  },
  invalid_scope: {
    meaning:
      'No scope was asked for, or a scope is unknown or wider than the client or the original grant allows.',
    action:
      'Ask only for scopes the client is registered for; a refresh may ask for a subset of the granted ones.',
  },
  access_denied: {
    meaning: 'The user refused access or cancelled the sign-in.',
    action: 'Tell the user that access was refused, and let them start the sign-in again if they wish.',
  },
  unsupported_response_type: {
    meaning: 'The authorization request asks for a `response_type` other than `code`.',
    action: 'Send `response_type=code` with a PKCE challenge.',
  },
  unsupported_token_type: {
    meaning: 'The authorization server does not revoke tokens of the type named in the revocation request.',
    action: 'Revoke an access token or a refresh token, or leave out `token_type_hint`.',
  },
  server_error: {
    meaning: 'The authorization server failed unexpectedly.',
    action: 'Retry later, and tell the operator of the authorization server if it keeps failing.',
  },
  invalid_client_metadata: {
    meaning:
      'A dynamic client registration asks for what a self-registered client may not have: a secret, a grant other than the authorization code and refresh, an administration or unknown scope, or a malformed field.',
    action:
      'Register a public client (`token_endpoint_auth_method: "none"`) with PKCE, and ask only for scopes the protected resource metadata lists.',
  },
  invalid_target: {
    meaning:
      'A `resource` (RFC 8707) is not an absolute URI, has a fragment, is not a resource this server serves, or was not granted (a refresh or code exchange may narrow the resources, never widen them).',
    action:
      "Name this server's resources as its protected resource metadata gives them (`<origin>/mcp`, `<origin>/api`, `<origin>/graphql`), and on a refresh only ones the grant holds.",
  },
  state_mismatch: {
    meaning:
      'The `state` of the OAuth callback differs from the one sent with the sign-in, so it may be forged.',
    action: 'Start the sign-in again from the beginning.',
  },
  issuer_mismatch: {
    meaning:
      'The `iss` of the OAuth callback names another authorization server than the one configured (RFC 9207).',
    action: 'Start the sign-in again, and check that the client is configured with the right issuer.',
  },
  // Webhooks.
  invalid_url: {
    meaning:
      'The webhook receiver URL is not acceptable: not an absolute `https` URL, it holds credentials or a fragment, or it points to this machine or a private address.',
    action: 'Give a public `https` URL of the receiver without credentials or fragment.',
  },
  missing_header: {
    meaning: 'A signature, timestamp or id header of the webhook is missing.',
    action: 'Send every header of the signature scheme the receiver is configured for.',
  },
  malformed: {
    meaning: 'A signature or timestamp header of the webhook cannot be read.',
    action: 'Send the headers in the format of the signature scheme, with the timestamp in Unix seconds.',
  },
  mismatch: {
    meaning: 'The webhook signature does not match the body and timestamp under any of the receiver secrets.',
    action: 'Sign the exact bytes you send with the current secret shared with the receiver.',
  },
  stale: {
    meaning: 'The webhook timestamp is older than the receiver tolerates, so it may be a replay.',
    action: 'Sign the webhook again with the current time before sending it, and check the sender clock.',
  },
  future: {
    meaning: 'The webhook timestamp is further in the future than the receiver tolerates.',
    action: 'Set the sender clock right (for example with NTP) and send the webhook again.',
  },
} as const satisfies Record<string, Texts<DetailCodeEntry>>;

/** A code of a field-level detail (`details[].code`, `errors[].code`) that the library produces. */
export type FieldErrorCode = keyof typeof FIELD_TEXTS;

/**
 * Every field-level detail code the library produces: in problem documents' `errors`, GraphQL's
 * `extensions.details` and {@link SwitchboardError}'s `details`. Frozen.
 */
export const FIELD_ERROR_CATALOGUE: Readonly<Record<FieldErrorCode, DetailCodeEntry>> =
  withCodes(FIELD_TEXTS);

const GRAPHQL_TEXTS = {
  graphql_parse_failed: {
    meaning: 'The query is not valid GraphQL syntax; the error `locations` point at the problem.',
    action: 'Correct the syntax at the line and column given, such as a missing brace or quote.',
  },
  graphql_validation_failed: {
    meaning:
      'The query is valid GraphQL but does not fit the schema, for example it asks for a field that does not exist.',
    action: 'Check the query against the schema and correct what the message names.',
  },
  bad_user_input: {
    meaning: 'A value sent with the query was refused, for example a variable of the wrong type.',
    action: 'Correct the variable or argument the message names and send the query again.',
  },
  query_too_deep: {
    meaning:
      'The query nests fields deeper than the server allows; `extensions.limit` gives the maximum depth.',
    action: 'Ask for fewer levels at once, and fetch deeper data with a second query.',
  },
  query_too_complex: {
    meaning:
      'The query selects more fields than the server allows once its fragments are expanded, or costs more than it allows (a list field costs its selection times its `limit`); `extensions.limit` gives the maximum.',
    action: 'Select fewer fields, give lists a smaller `limit`, or split the query into several requests.',
  },
  too_many_aliases: {
    meaning: 'The query uses more aliases than the server allows; `extensions.limit` gives the maximum.',
    action: 'Use fewer aliases, or split the query into several requests.',
  },
  too_many_tokens: {
    meaning: 'The query text has more tokens than the server parses; `extensions.limit` gives the maximum.',
    action: 'Shorten the query, for example by selecting fewer fields or by moving values into variables.',
  },
  too_many_operations: {
    meaning:
      'The WebSocket connection already runs as many operations as the server allows; `extensions.limit` gives the maximum.',
    action: 'Complete or stop operations you no longer need before starting another one.',
  },
} as const satisfies Record<string, Texts<DetailCodeEntry>>;

/** A GraphQL `extensions.code` that is not an {@link ErrorCode}. */
export type GraphQLErrorCode = keyof typeof GRAPHQL_TEXTS;

/**
 * The GraphQL `extensions.code` values that are not {@link ErrorCode}s: request errors (parse,
 * validation, input) and the document limits. Frozen.
 */
export const GRAPHQL_ERROR_CATALOGUE: Readonly<Record<GraphQLErrorCode, DetailCodeEntry>> =
  withCodes(GRAPHQL_TEXTS);

/** Whether `value` is an {@link ErrorCode} (own keys only: `constructor` is not one). */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, value);
}

/**
 * The HTML page of one {@link ErrorCode} (the target of the problem documents' `type` URI,
 * `/problems/<code>`), in the one look, or `undefined` when `code` is not one.
 *
 * @example
 * const page = renderProblemPage('not_found', brandingOf(resolveLook(), '/problems'));
 * if (page) return new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } });
 */
export function renderProblemPage(code: string, branding: Branding): string | undefined {
  if (!isErrorCode(code)) return undefined;
  const entry = ERROR_CATALOGUE[code];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${code}: ${entry.title} (HTTP ${entry.status}) · ${branding.name}</title>
${stylesheetLink(branding)}
</head>
<body class="look">
${siteHeader(branding)}
<main class="narrow">
<h1><code>${code}</code>: ${entry.title}</h1>
<p class="muted">HTTP status ${entry.status}</p>
<h2>What it means</h2>
<p>${inline(entry.meaning)}</p>
<h2>What to do</h2>
<p>${inline(entry.action)}</p>
</main>
</body>
</html>
`.text;
}

/** Catalogue text as HTML, through the template: Markdown code spans (between backticks) as `<code>`. */
function inline(text: string): Html {
  return html`${text.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}`;
}

function withCodes<K extends string>(
  texts: Readonly<Record<K, Texts<DetailCodeEntry>>>,
): Readonly<Record<K, DetailCodeEntry>> {
  const entries = Object.entries<Texts<DetailCodeEntry>>(texts).map(([code, text]) => [
    code,
    { code, ...text },
  ]);
  return freezeAll(Object.fromEntries(entries) as Record<K, DetailCodeEntry>);
}

/** Freezes the record and each of its entries. */
function freezeAll<T extends Record<string, object>>(record: T): Readonly<T> {
  for (const entry of Object.values(record)) Object.freeze(entry);
  return Object.freeze(record);
}
