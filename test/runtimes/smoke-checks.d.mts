/** A GraphQL-over-HTTP answer as the smoke checks record it. */
export interface SmokeAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** The findings of the runtime smoke suite (test/runtimes/smoke-checks.mjs). */
export interface SmokeFindings {
  readonly rest: {
    readonly created: number;
    readonly read: { readonly status: number; readonly email: string };
    readonly list: { readonly status: number; readonly emails: readonly string[] };
  };
  readonly graphql: { readonly query: SmokeAnswer; readonly createClient: SmokeAnswer };
  readonly subscription: {
    readonly transport: 'websocket' | 'sse';
    /** The first result, from a message posted over REST. */
    readonly fromRest: unknown;
    readonly messagesPosted: boolean;
    readonly sendMessage: SmokeAnswer;
    /** The result of the message sent by the GraphQL mutation. */
    readonly fromGraphQL: unknown;
    /** The close code the server echoed (WebSocket only). */
    readonly closeCode?: number;
  };
  /** The status of a WebSocket handshake that offers no graphql-transport-ws sub-protocol. */
  readonly handshakeWithoutSubProtocol: number;
  readonly oauth: {
    readonly discovery: {
      readonly status: number;
      readonly tokenEndpoint: string;
      readonly clientCredentials: boolean;
    };
    readonly registered: number;
    readonly token: { readonly status: number; readonly type: string; readonly scope: string };
    readonly readWithToken: number;
    readonly writeWithToken: number;
  };
  readonly webhooks: {
    readonly endpoint: number;
    readonly delivered: readonly { readonly event: string; readonly verified: boolean }[];
    /** Why the first delivery, its body changed, was refused (`accepted` if it was not). */
    readonly tampered: string;
    /** The same for the endpoint signed with ed25519 (v1a), verified with the published key set. */
    readonly ed25519: {
      readonly endpoint: number;
      /** How many keys `/.well-known/webhook-keys` lists. */
      readonly keys: number;
      readonly delivered: readonly { readonly event: string; readonly verified: boolean }[];
      readonly tampered: string;
    };
  };
}

/** What the checks need of a server's GraphQL WebSocket server, when it runs in the same process. */
export interface ObservedGraphQLWebSocket {
  subscriptions(): { readonly subscribers: number };
  sockets(): number;
}

export interface SmokeCheckOptions {
  /** Where the switchboard is served, e.g. `http://127.0.0.1:4000`. */
  readonly base: string;
  /** Its admin API key. */
  readonly key: string;
  /** Where the webhook endpoint the checks create delivers. */
  readonly receiverUrl: string;
  /** What the receiver at `receiverUrl` got, in order. */
  readonly hooks: readonly { readonly headers: unknown; readonly body: string }[];
  /** Names the records the checks make (`<runtime>@example.com`, chatbot `bot-<runtime>`). */
  readonly runtime: string;
  /** How the subscription is made: `websocket` (the default), or `sse` where the runtime has none. */
  readonly transport?: 'websocket' | 'sse';
  /** The WebSocket client class (the global one, or `ws` on Node), for the `websocket` transport. */
  readonly WebSocket?: unknown;
  /** The server's `switchboard.graphqlWebSocket`, when it runs in this process: the checks then also
   * wait until it lets go of the subscription and the socket. */
  readonly graphqlWebSocket?: ObservedGraphQLWebSocket | undefined;
}

export function smokeChecks(options: SmokeCheckOptions): Promise<SmokeFindings>;

/** A WebSocket handshake offering only `protocol`: its status (101 if upgraded), content type and body. */
export function handshake(
  url: string,
  protocol: string,
): Promise<{ status?: number; type?: string; body: string }>;
