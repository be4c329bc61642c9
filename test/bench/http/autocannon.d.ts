/** The part of autocannon's programmatic API the runner uses (the package ships no types). */
declare module 'autocannon' {
  export interface Histogram {
    readonly average: number;
    readonly total: number;
    readonly p50: number;
    readonly p99: number;
  }

  export interface Options {
    readonly url: string;
    readonly connections?: number;
    readonly pipelining?: number;
    /** Seconds. */
    readonly duration?: number;
    /** Requests per second across every connection. */
    readonly overallRate?: number;
    readonly method?: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: string;
    /** The requests to cycle through; each may rewrite itself before it is sent. */
    readonly requests?: readonly RequestSpec[];
  }

  export interface RequestSpec {
    readonly body?: string;
    readonly setupRequest?: (request: RequestSpec) => RequestSpec;
  }

  export interface Result {
    readonly requests: Histogram;
    readonly latency: Histogram;
    /** Seconds. */
    readonly duration: number;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
