// graphql-depth-limit ships no types. Only the call Switchboard makes is declared.
declare module 'graphql-depth-limit' {
  import type { ValidationContext } from 'graphql';
  export default function depthLimit(
    maxDepth: number,
    options?: { ignore?: readonly (string | RegExp | ((field: string) => boolean))[] },
    callback?: (depths: Record<string, number>) => void,
  ): (context: ValidationContext) => unknown;
}
