/**
 * Limits that protect the server, over HTTP and WebSocket. Every one is configurable; the defaults are
 * safe for a public endpoint and roomy enough for GraphiQL's introspection query.
 */
export interface GraphQLLimits {
  /** Deepest field nesting of an operation (graphql-depth-limit counting: `{ a { b } }` is 1). Default 8. */
  readonly maxDepth: number;
  /** Deepest nesting under an introspection field (`__schema`, `__type`). Default 15. */
  readonly maxIntrospectionDepth: number;
  /** Aliased fields per document. Default 30. */
  readonly maxAliases: number;
  /** Lexical tokens per document, checked while parsing. Default 2000. */
  readonly maxTokens: number;
  /** Field selections after expanding every fragment spread; stops exponential fragment fan-out. Default 2000. */
  readonly maxSelections: number;
  /**
   * Largest cost of an operation: a field costs 1, a list field also its selection times its `limit`
   * (see `operationCost`). Default 10 000: twenty clients with four fields and each one's orders (a
   * nested list without a limit, priced at 100) with four fields cost 8101; a fifth of the default
   * `graphql` budget.
   */
  readonly maxCost: number;
  /** Bytes of a JSON request body, and of one WebSocket message. Default 100 000. */
  readonly maxBodyBytes: number;
  /** Default `limit` of list fields. Default 20. */
  readonly defaultListLimit: number;
  /** Largest `limit` of list fields; a larger one is an error, not a silent clamp. Default 100. */
  readonly maxListLimit: number;
  /** Bytes of one uploaded file. Default 5 MB. */
  readonly maxFileBytes: number;
  /** Files per multipart request. Default 1. */
  readonly maxFiles: number;
  /** Rows of a CSV import. Default 1000. */
  readonly maxImportRows: number;
  /** Operations in flight on one WebSocket; one more is refused. Default 20. */
  readonly maxOperationsPerSocket: number;
  /** Events queued for one subscriber that is not reading; beyond it the subscriber is dropped. Default 100. */
  readonly maxSubscriberQueue: number;
  /** Parsed and validated documents kept in the LRU cache. Default 1000. */
  readonly documentCacheSize: number;
}

/** The default {@link GraphQLLimits}; the `limits` option overrides them one by one. */
export const DEFAULT_LIMITS: GraphQLLimits = {
  maxDepth: 8,
  maxIntrospectionDepth: 15,
  maxAliases: 30,
  maxTokens: 2000,
  maxSelections: 2000,
  maxCost: 10_000,
  maxBodyBytes: 100_000,
  defaultListLimit: 20,
  maxListLimit: 100,
  maxFileBytes: 5_000_000,
  maxFiles: 1,
  maxImportRows: 1000,
  maxOperationsPerSocket: 20,
  maxSubscriberQueue: 100,
  documentCacheSize: 1000,
};

export function resolveLimits(limits: Partial<GraphQLLimits> = {}): GraphQLLimits {
  return { ...DEFAULT_LIMITS, ...limits };
}
