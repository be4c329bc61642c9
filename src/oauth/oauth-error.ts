import { type ErrorCode, isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { jsonResponse } from '../http/json.js';
import { rateHeadersOf } from '../http/rate-limit.js';

/** The `error` codes of RFC 6749 §5.2, §4.1.2.1, RFC 7009 §2.2.1, RFC 7591 §3.2.2 and RFC 8707 §2. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'temporarily_unavailable'
  | 'server_error'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_target';

const CODES: Record<OAuthErrorCode, ErrorCode> = {
  invalid_request: 'bad_request',
  invalid_client: 'unauthorized',
  invalid_grant: 'bad_request',
  unauthorized_client: 'bad_request',
  unsupported_grant_type: 'bad_request',
  invalid_scope: 'bad_request',
  access_denied: 'forbidden',
  unsupported_response_type: 'bad_request',
  unsupported_token_type: 'bad_request',
  temporarily_unavailable: 'rate_limited',
  server_error: 'internal',
  invalid_redirect_uri: 'bad_request',
  invalid_client_metadata: 'bad_request',
  invalid_target: 'bad_request',
};

/** A SwitchboardError that carries its OAuth `error` code in `details[0].code`. */
export function oauthError(error: OAuthErrorCode, description: string): SwitchboardError {
  return new SwitchboardError(CODES[error], description, {
    status: error === 'invalid_client' ? 401 : undefined,
    details: [{ field: 'error', code: error, message: description }],
  });
}

/** The OAuth `error` code of any thrown value: its own when it has one, else derived from its status. */
export function oauthErrorCodeOf(error: unknown): OAuthErrorCode {
  if (!isSwitchboardError(error)) return 'server_error';
  const own = error.details.find((d) => d.field === 'error')?.code;
  if (own && own in CODES) return own as OAuthErrorCode;
  if (error.code === 'unauthorized') return 'invalid_client';
  return error.status >= 500 ? 'server_error' : 'invalid_request';
}

/**
 * Renders an error as an OAuth error response (RFC 6749 §5.2): `{ error, error_description }`, never a
 * stack trace, with `Cache-Control: no-store` and, for `invalid_client`, a `WWW-Authenticate: Basic`
 * challenge (§5.2 requires it when the client tried HTTP Basic).
 */
export function oauthErrorResponse(error: unknown): Response {
  const code = oauthErrorCodeOf(error);
  const status =
    code === 'server_error'
      ? 500
      : code === 'invalid_client'
        ? 401
        : code === 'temporarily_unavailable'
          ? 429
          : 400;
  const description =
    isSwitchboardError(error) && code !== 'server_error'
      ? error.message
      : 'Something went wrong on our side.';
  const headers: Record<string, string> = { 'cache-control': 'no-store', pragma: 'no-cache' };
  if (code === 'invalid_client') headers['www-authenticate'] = 'Basic realm="oauth", charset="UTF-8"';
  if (isSwitchboardError(error) && error.retryAfter !== undefined)
    headers['retry-after'] = String(error.retryAfter);
  Object.assign(headers, rateHeadersOf(error));
  return jsonResponse(status, { error: code, error_description: description }, headers);
}
