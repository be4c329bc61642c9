/** What the webhook runner uses of autocannon beyond test/bench/http/autocannon.d.ts (merged into it). */
declare module 'autocannon' {
  interface Options {
    /** Requests to send in all; the run ends when every one has answered (duration is then ignored). */
    readonly amount?: number;
  }
}
