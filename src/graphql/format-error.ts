import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isSwitchboardError } from '../core/errors.js';
import type { Logger } from '../core/runtime.js';

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
    return { message: original.message, ...where, extensions: { code: original.code, ...details } };
  }
  // Thrown by a scalar or by graphql itself while checking input: safe to show.
  const known = !original || original instanceof GraphQLError;
  if (!known) {
    options.logger.log('error', 'graphql resolver failed', {
      path: error.path?.join('.'),
      error: String(original),
      stack: original.stack,
    });
    return { message: 'Unexpected error.', ...where, extensions: { code: 'internal' } };
  }
  const message = options.hideSuggestions ? withoutSuggestions(error.message) : error.message;
  return {
    message,
    ...where,
    extensions: { ...error.extensions, code: error.extensions.code ?? 'bad_user_input' },
  };
}

function withoutSuggestions(message: string): string {
  return message.replace(/ ?Did you mean .+\?$/s, '');
}
