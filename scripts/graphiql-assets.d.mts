/** Writes src/graphql/graphiql/assets.generated.js unless it is up to date (or `force`). */
export declare function graphiqlAssets(options?: { force?: boolean }): Promise<void>;
