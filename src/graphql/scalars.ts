import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { PendingUpload } from './upload.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function toDateTime(value: unknown): string {
  const text = value instanceof Date ? value.toISOString() : value;
  if (typeof text !== 'string' || !ISO_8601.test(text) || Number.isNaN(Date.parse(text)))
    throw new GraphQLError('DateTime must be an ISO-8601 date and time such as 2026-01-31T09:30:00Z.');
  return new Date(text).toISOString();
}

/** ISO-8601 UTC date-time, serialised as `2026-01-31T09:30:00.000Z` (the storage format). */
export const DateTimeScalar: GraphQLScalarType = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An ISO-8601 date and time in UTC.',
  serialize: toDateTime,
  parseValue: toDateTime,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string.', { nodes: ast });
    return toDateTime(ast.value);
  },
});

/**
 * A file of a multipart request: the handler puts an `Upload` in the variables (a host executing the
 * schema itself may pass a `Blob`). A literal or a plain JSON value is refused, so uploads only arrive
 * through the multipart route and its CSRF check.
 */
export const UploadScalar: GraphQLScalarType = new GraphQLScalarType({
  name: 'Upload',
  description: 'A file sent as a part of a GraphQL multipart request.',
  serialize() {
    throw new GraphQLError('Upload is an input-only type.');
  },
  parseValue(value) {
    if (value instanceof PendingUpload) return value;
    if (value instanceof Blob)
      return {
        meta: Promise.resolve({ filename: '', contentType: value.type }),
        stream: () => value.stream(),
      };
    throw new GraphQLError('Upload must be a file sent in a multipart request.');
  },
  parseLiteral(ast) {
    throw new GraphQLError('Upload must be a file sent in a multipart request.', { nodes: ast });
  },
});
