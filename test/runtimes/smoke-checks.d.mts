/** The findings of the runtime smoke suite (test/runtimes/smoke-checks.mjs). */
export interface SmokeFindings {
  readonly rest: readonly [number, string, number];
  readonly graphql: readonly [number, string];
  readonly subscription: string;
  readonly messagesPosted: boolean;
  readonly oauth: readonly [boolean, number, number];
  readonly webhooks: readonly boolean[];
}

export function smokeChecks(options: {
  readonly base: string;
  readonly key: string;
  readonly switchboard: unknown;
  readonly receiverUrl: string;
  readonly hooks: { headers: unknown; body: string }[];
  readonly WebSocket: unknown;
  readonly runtime: string;
}): Promise<SmokeFindings>;
