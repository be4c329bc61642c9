/** The few parts of `oidc-provider` (node-oidc-provider) the interoperability test uses; it ships no types. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The registered client, as the provider's policies see it. */
  export interface Client {
    readonly clientId: string;
  }

  /** A token the provider found (at the revocation endpoint). */
  export interface Token {
    readonly clientId: string;
  }

  /** The Koa context the provider hands to its configuration's functions. */
  export interface KoaContextWithOIDC {
    readonly oidc: { readonly client?: Client };
  }

  /** What `findAccount` returns: the account's id and its claims. */
  export interface Account {
    readonly accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  /** Client metadata (OIDC Dynamic Client Registration §2), snake_case as registered. */
  export interface ClientMetadata {
    readonly client_id: string;
    readonly client_secret?: string;
    readonly redirect_uris: readonly string[];
    readonly grant_types?: readonly string[];
    readonly response_types?: readonly string[];
    readonly token_endpoint_auth_method?: string;
    readonly id_token_signed_response_alg?: string;
  }

  /** A login or consent interaction in progress. */
  export interface Interaction {
    readonly uid: string;
    readonly prompt: {
      readonly name: 'login' | 'consent' | (string & {});
      readonly reasons: readonly string[];
      readonly details: {
        readonly missingOIDCScope?: readonly string[];
        readonly missingOIDCClaims?: readonly string[];
        readonly missingResourceScopes?: Readonly<Record<string, readonly string[]>>;
      };
    };
    readonly params: Readonly<Record<string, unknown>> & { readonly client_id: string };
    readonly session?: { readonly accountId: string };
    readonly grantId?: string;
  }

  /** What an interaction ends with: who signed in, and the grant they consented to. */
  export interface InteractionResults {
    readonly login?: { readonly accountId: string };
    readonly consent?: { readonly grantId: string };
  }

  /** The scopes and claims an account granted a client. */
  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: readonly string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  type Policy<Args extends unknown[]> = (
    ctx: KoaContextWithOIDC,
    ...args: Args
  ) => boolean | Promise<boolean>;

  /** The options the test sets; every other one keeps its default. */
  export interface Configuration {
    readonly clients?: readonly ClientMetadata[];
    readonly jwks?: { readonly keys: readonly JsonWebKey[] };
    readonly cookies?: { readonly keys?: readonly string[] };
    readonly findAccount?: (ctx: KoaContextWithOIDC, id: string) => Promise<Account | undefined>;
    readonly interactions?: {
      readonly url?: (ctx: KoaContextWithOIDC, interaction: Interaction) => string | Promise<string>;
    };
    readonly features?: {
      readonly devInteractions?: { readonly enabled: boolean };
      readonly revocation?: { readonly enabled: boolean; readonly allowedPolicy?: Policy<[Client, Token]> };
    };
    readonly pkce?: { readonly required?: Policy<[Client]> };
    readonly rotateRefreshToken?: boolean | Policy<[]>;
    /** Seconds. */
    readonly ttl?: Readonly<Record<string, number>>;
  }

  /** An OpenID Provider; a Koa application. */
  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    readonly Grant: typeof Grant;
    /** The Node request listener. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: 'server_error', listener: (ctx: unknown, error: Error) => void): this;
  }

  export default Provider;
}
