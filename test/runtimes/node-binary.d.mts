/** The path of the `node` binary of `version` (e.g. `22`, `20.19.0`), installed first if absent. */
export function nodeBinary(version: string): Promise<string>;
