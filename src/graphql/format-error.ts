import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isSwitchboardError } from '../core/errors.js';
import type { Logger } from '../core/runtime.js';

/**
 * The message of a scalar serialization error graphql-js would mask (see `compile.ts`): graphql-jit
 * keeps only messages, so this one stands for "mask me"; it never reaches a caller.
 */
export const MASKED_SERIALIZATION_ERROR = '\u0000switchboard: unexpected serialization error';

export interface FormatErrorOptions {
  readonly logger: Logger;
  /** Strip "Did you mean …?" hints, which would reveal the schema when introspection is off. */
  readonly hideSuggestions: boolean;
}

/**
 * Masks an error for the caller. Domain errors keep their message and `extensions.code` (`not_found`,
 * `forbidden`, `validation_failed` with field `details`); GraphQL request errors keep theirs; anything
 * unexpected becomes a generic `internal` error and its details go to the logger only.
 */
export function formatError(error: GraphQLError, options: FormatErrorOptions): GraphQLFormattedError {
  const original = error.originalError;
  const where = {
    ...(error.locations ? { locations: error.locations } : {}),
    ...(error.path ? { path: error.path } : {}),
  };
  if (isSwitchboardError(original)) {
    const details = original.details.length ? { details: original.details } : {};
    const extensions = { code: original.code, ...original.members, ...details };
    return { message: original.message, ...where, extensions };
  }
  // Thrown by a scalar or by graphql itself while checking input: safe to show.
  const known = original ? original instanceof GraphQLError : !isServerFault(error);
  if (!known) {
    // A masked serialization error was logged where it was thrown, with its scalar.
    if (error.message !== MASKED_SERIALIZATION_ERROR)
      options.logger.log('error', 'graphql resolver failed', {
        path: error.path?.join('.'),
        error: String(original ?? error.message),
        stack: (original as Error | undefined)?.stack,
      });
    return { message: 'Unexpected error.', ...where, extensions: { code: 'internal' } };
  }
  const message = options.hideSuggestions ? withoutSuggestions(error.message) : error.message;
  return {
    message,
    ...where,
    // graphql-jit's errors have no `extensions` unless the thrown error had some.
    extensions: { ...error.extensions, code: error.extensions?.code ?? 'bad_user_input' },
  };
}

/**
 * graphql-jit reports some failures without an original error where graphql-js wraps a plain `Error`,
 * which is masked: a null for a non-null field, a thrown `null`, and a masked serialization error.
 */
function isServerFault(error: GraphQLError): boolean {
  return (
    error.message === MASKED_SERIALIZATION_ERROR ||
    error.message === '' ||
    error.message.startsWith('Cannot return null for non-nullable field ')
  );
}

function withoutSuggestions(message: string): string {
  return message.replace(/ ?Did you mean .+\?$/s, '');
}
