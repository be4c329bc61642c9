/** Offset pagination. Interfaces validate bounds; stores trust them. */
export interface Range {
  readonly offset: number;
  readonly limit: number;
}

/** A page of records plus the total that matches the filter, for `Link` headers and page counts. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}
