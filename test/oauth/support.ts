import { argon2id, argon2Verify } from 'hash-wasm';
import { createSwitchboard, type Switchboard, type SwitchboardOptions } from '../../src/index.js';
import { graphqlWebSocketRoute, type NodeServer, serve } from '../../src/node/index.js';
import { createPasswordSignIn, type OAuthConfig } from '../../src/oauth/index.js';
import { pkceChallenge } from '../../src/oauth/secrets.js';
import { type ManualClock, manualClock } from '../support/clock.js';

export const ADMIN_KEY = 'sbk_test_admin_key_0123456789abcdefghijklmnop';
export const REDIRECT = 'http://127.0.0.1:8765/callback';
export const CONFIDENTIAL_SECRET = 'sbcs_test_confidential_secret_0123456789';

export interface Demo {
  readonly server: NodeServer;
  readonly switchboard: Switchboard;
  readonly clock: ManualClock;
  readonly base: string;
  /** Two users (clients who can sign in), each with one order. */
  readonly ada: { id: string; email: string; password: string; orderId: string };
  readonly grace: { id: string; email: string; password: string; orderId: string };
  /** A confidential client (secret) and a public client (PKCE only). */
  readonly confidential: { id: string; secret: string };
  readonly publicClient: { id: string };
  readonly machine: { id: string; secret: string };
  close(): Promise<void>;
}

export const ALL_USER_SCOPES = ['crm.clients.read', 'crm.orders.read', 'chat.messages.read'];

/**
 * A switchboard with the OAuth server on a loopback port, two users with argon2id passwords, three
 * clients. `overrides.oauth` replaces its OAuth settings; `oauthSettings` adds to them (its sign-in kept).
 */
export async function startDemo(
  overrides: Partial<SwitchboardOptions> = {},
  oauthSettings: Partial<OAuthConfig> = {},
): Promise<Demo> {
  const clock = manualClock(Date.now());
  const passwords = new Map<string, { userId: string; passwordHash: string }>();
  const hash = (password: string): Promise<string> =>
    argon2id({
      password,
      salt: crypto.getRandomValues(new Uint8Array(16)),
      parallelism: 1,
      iterations: 2,
      memorySize: 19_456,
      hashLength: 32,
      outputType: 'encoded',
    });
  const signIn = createPasswordSignIn({
    findUser: async (email) => passwords.get(email.toLowerCase()) ?? null,
    verify: (password, passwordHash) => argon2Verify({ password, hash: passwordHash }),
  });
  let base = '';
  const switchboard = createSwitchboard({
    clock,
    oauth: { signIn, adminApiKey: ADMIN_KEY, idTokens: {}, ...oauthSettings },
    graphql: false,
    ...overrides,
  });
  const server = await serve({
    fetch: (request) => switchboard.fetch(request),
    port: 0,
    shutdownSignals: [],
    websockets: switchboard.graphqlWebSocket ? [graphqlWebSocketRoute(switchboard.graphqlWebSocket)] : [],
  });
  base = server.url;

  const user = async (name: string, email: string, password: string) => {
    const client = await switchboard.domain.clients.create({ name, email });
    const order = await switchboard.domain.orders.create({
      clientId: client.id,
      total: '10.00',
      currency: 'EUR',
    });
    passwords.set(email, { userId: client.id, passwordHash: await hash(password) });
    return { id: client.id, email, password, orderId: order.id };
  };
  const ada = await user('Ada Lovelace', 'ada@example.com', 'correct horse battery staple');
  const grace = await user('Grace Hopper', 'grace@example.com', 'cobol forever and ever');

  const oauth = switchboard.oauth!;
  const confidential = await oauth.registerClient({
    name: 'Support bot',
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ALL_USER_SCOPES,
    secret: CONFIDENTIAL_SECRET,
  });
  const publicClient = await oauth.registerClient({
    name: 'Chat widget',
    type: 'public',
    redirectUris: [REDIRECT],
    scopes: ALL_USER_SCOPES,
  });
  const machine = await oauth.registerClient({
    name: 'Nightly sync',
    type: 'confidential',
    redirectUris: [],
    scopes: ['crm.clients.read'],
    grantTypes: ['client_credentials'],
  });

  return {
    server,
    switchboard,
    clock,
    base,
    ada,
    grace,
    confidential: { id: confidential.client.id, secret: confidential.secret! },
    publicClient: { id: publicClient.client.id },
    machine: { id: machine.client.id, secret: machine.secret! },
    // The switchboard too: a test that started it must not leave its worker loops running.
    close: async () => {
      await server.close();
      await switchboard.close();
    },
  };
}

export interface ConsentAnswer {
  readonly username?: string;
  readonly password?: string;
  readonly decision?: 'approve' | 'refuse';
  /** Scopes left ticked; all by default. */
  readonly scopes?: readonly string[];
}

export interface ConsentPage {
  readonly response: Response;
  readonly html: string;
  readonly cookie: string;
  readonly hidden: Record<string, string>;
  /** The hidden fields in page order, repeats kept (`resource` may repeat). */
  readonly fields: [string, string][];
  readonly scopes: string[];
  /** The sign-in step (e-mail and password), rather than the consent step. */
  readonly signIn: boolean;
}

/** Opens the authorization URL as a browser would and reads the page: the sign-in step without a session. */
export async function openConsentPage(url: string | URL): Promise<ConsentPage> {
  return readPage(await fetch(url, { redirect: 'manual' }), '');
}

async function readPage(response: Response, cookie: string): Promise<ConsentPage> {
  const html = await response.text();
  const fields: [string, string][] = [];
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.push([htmlDecode(m[1]!), htmlDecode(m[2]!)]);
  }
  const hidden: Record<string, string> = Object.fromEntries(fields);
  const scopes = [...html.matchAll(/name="grant_scope" value="([^"]+)"/g)].map((m) => htmlDecode(m[1]!));
  const issued = (response.headers.get('set-cookie') ?? '').split(';')[0];
  return {
    response,
    html,
    cookie: issued || cookie,
    hidden,
    fields,
    scopes,
    signIn: html.includes('name="password"'),
  };
}

/** The page's hidden fields as a form: `hidden` (which a test may have altered), with repeated fields all kept. */
function formOf(page: ConsentPage): URLSearchParams {
  const form = new URLSearchParams(page.hidden);
  const names = page.fields.map(([name]) => name);
  for (const name of new Set(names.filter((name, i) => names.indexOf(name) !== i))) {
    form.delete(name);
    for (const [field, value] of page.fields) if (field === name) form.append(name, value);
  }
  return form;
}

function postPage(base: string, cookie: string, form: URLSearchParams): Promise<Response> {
  return fetch(`${base}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: form,
  });
}

/** Posts the sign-in step: the consent step when the password is right, else the sign-in step again. */
export async function signInOnPage(
  page: ConsentPage,
  user: { readonly email: string; readonly password: string },
  base: string,
): Promise<ConsentPage> {
  const form = formOf(page);
  form.set('username', user.email);
  form.set('password', user.password);
  form.set('step', 'sign_in');
  return readPage(await postPage(base, page.cookie, form), page.cookie);
}

/**
 * Answers the page as a user would: with `username`, signs in first (answering with that step's
 * response when it fails), then posts the decision with the scopes left ticked. Resolves with the
 * last response (a 303 to the client when done).
 */
export async function submitConsent(
  page: ConsentPage,
  answer: ConsentAnswer,
  base: string,
): Promise<Response> {
  const decision = answer.decision ?? 'approve';
  let consent = page;
  if (decision === 'approve' && answer.username !== undefined) {
    consent = await signInOnPage(page, { email: answer.username, password: answer.password ?? '' }, base);
    if (consent.response.status !== 200) return new Response(consent.html, consent.response);
  }
  const form = formOf(consent);
  form.set('decision', decision);
  for (const scope of answer.scopes ?? consent.scopes) form.append('grant_scope', scope);
  return postPage(base, consent.cookie, form);
}

/** Signs in as `user` through the page and approves; resolves with the callback URL. */
export async function authorizeThroughPage(
  url: string | URL,
  user: { email: string; password: string },
  base: string,
  answer: ConsentAnswer = {},
): Promise<URL> {
  const page = await openConsentPage(url);
  if (page.response.status !== 200)
    throw new Error(`consent page answered ${page.response.status}: ${page.html}`);
  const response = await submitConsent(
    page,
    { username: user.email, password: user.password, ...answer },
    base,
  );
  if (response.status !== 303)
    throw new Error(`consent answered ${response.status}: ${await response.text()}`);
  return new URL(response.headers.get('location')!);
}

function htmlDecode(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/** An authorization URL with PKCE; `params` overrides or removes (`null`) any parameter. */
export function authorizationUrl(
  demo: Demo,
  params: Record<string, string | null> = {},
): { url: URL; verifier: string; state: string } {
  const verifier = randomVerifier();
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const url = new URL(`${demo.base}/oauth/authorize`);
  const all: Record<string, string | null> = {
    response_type: 'code',
    client_id: demo.confidential.id,
    redirect_uri: REDIRECT,
    scope: 'crm.clients.read crm.orders.read',
    state,
    code_challenge: pkceChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== null) url.searchParams.set(k, v);
  return { url, verifier, state };
}

export function randomVerifier(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
}

/** POSTs a form to the token endpoint with HTTP Basic for the confidential client unless `auth` says otherwise. */
export async function tokenRequest(
  demo: Demo,
  form: Record<string, string>,
  auth: { id: string; secret?: string } | 'post' | null = {
    id: demo.confidential.id,
    secret: demo.confidential.secret,
  },
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams(form);
  if (auth === 'post') {
    body.set('client_id', demo.confidential.id);
    body.set('client_secret', demo.confidential.secret);
  } else if (auth?.secret !== undefined) {
    headers.authorization = `Basic ${btoa(`${auth.id}:${auth.secret}`)}`;
  } else if (auth) {
    body.set('client_id', auth.id);
  }
  const response = await fetch(`${demo.base}/oauth/token`, { method: 'POST', headers, body });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/**
 * Signs `user` in on the real pages at `authorization.url`, then exchanges the code (with its PKCE
 * verifier and any `extra` parameters, a `resource`…) at the token endpoint as `client`.
 */
export async function codeExchange(
  demo: Demo,
  authorization: { url: string | URL; verifier: string },
  user: { email: string; password: string },
  client?: Parameters<typeof tokenRequest>[2],
  extra: Record<string, string> = {},
): ReturnType<typeof tokenRequest> {
  const callback = await authorizeThroughPage(authorization.url, user, demo.base);
  const form = {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: authorization.verifier,
    ...extra,
  };
  return client === undefined ? tokenRequest(demo, form) : tokenRequest(demo, form, client);
}

/** Signs Ada in through the page and exchanges the code; resolves with the token response body. */
export async function tokensFor(
  demo: Demo,
  user: { email: string; password: string } = demo.ada,
  params: Record<string, string | null> = {},
): Promise<{ access_token: string; refresh_token: string; scope: string }> {
  const { status, body } = await codeExchange(demo, authorizationUrl(demo, params), user);
  if (status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
  return body as { access_token: string; refresh_token: string; scope: string };
}

/**
 * A user's access token for an app of its own (a confidential client that may ask for `scopes`),
 * through the real sign-in and consent pages: for scopes the demo's clients do not hold.
 */
export async function appTokenFor(
  demo: Demo,
  user: { email: string; password: string },
  scopes: readonly string[],
): Promise<string> {
  const secret = `sbcs_${randomVerifier()}`;
  const app = await demo.switchboard.oauth!.registerClient({
    name: 'Test app',
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: [...scopes],
    secret,
  });
  const authorization = authorizationUrl(demo, { client_id: app.client.id, scope: scopes.join(' ') });
  const { status, body } = await codeExchange(demo, authorization, user, { id: app.client.id, secret });
  if (status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
  return String(body.access_token);
}

/** A GET with a bearer token. */
export function get(demo: Demo, path: string, token?: string): Promise<Response> {
  return fetch(`${demo.base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
}
