// The shape of assets.generated.js, which scripts/graphiql-assets.mjs writes before every build.

/** A hash of what the assets were built from; the script skips the build when it has not changed. */
export declare const inputs: string;
/** File names (content-hashed) of the page's script and styles. */
export declare const script: string;
export declare const style: string;
/** The page's icon (SVG). */
export declare const icon: string;
/** Every file by name: its media type, its text, and `'base64'` when the text encodes bytes. */
export declare const files: Readonly<
  Record<string, readonly [type: string, body: string, encoding?: 'base64']>
>;
