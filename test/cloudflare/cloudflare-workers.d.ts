// The one import the smoke suite's Workers make from the runtime; workerd provides it.
declare module 'cloudflare:workers' {
  /** The bindings of the Worker's config, reachable in the global scope. */
  export const env: {
    readonly SWITCHBOARD_API_KEY: string;
  };
}
