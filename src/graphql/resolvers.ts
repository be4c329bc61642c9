import type { IExecutableSchemaDefinition } from '@graphql-tools/schema';
import { z } from 'zod';
import { SwitchboardError } from '../core/errors.js';
import { validate } from '../core/validation.js';
import { importClients } from './client-import/import-clients.js';
import type { GraphQLContext } from './context.js';
import { DateTimeScalar, UploadScalar } from './scalars.js';
import type { Upload } from './upload.js';

/** The `limit` and `offset` arguments of a list field; {@link listRange} applies defaults and bounds. */
export interface Paging {
  readonly limit?: number | null;
  readonly offset?: number | null;
}

/** A resolver map, as `@graphql-tools/schema` takes it, with {@link GraphQLContext} as context. */
export type GraphQLResolvers = Exclude<
  NonNullable<IExecutableSchemaDefinition<GraphQLContext>['resolvers']>,
  readonly unknown[]
>;

/** Resolvers of the schema around the records; scope checks are added by `createSchema`. */
export const resolvers: GraphQLResolvers = {
  DateTime: DateTimeScalar,
  Upload: UploadScalar,
  Mutation: {
    importClients: (_, args: { file: Upload }, ctx) => {
      if (ctx.principal.userId !== undefined)
        throw new SwitchboardError('forbidden', 'Acting for a user, you cannot import clients.');
      return importClients(args.file, ctx);
    },
  },
};

/**
 * Validates `limit`/`offset` of a list field against the limits: out of range is an error naming the
 * bound, never a silent clamp. Host resolvers of added list fields use it too.
 */
export function listRange(args: Paging, ctx: GraphQLContext): { limit: number; offset: number } {
  const { defaultListLimit, maxListLimit } = ctx.limits;
  const range = { limit: args.limit ?? defaultListLimit, offset: args.offset ?? 0 };
  // The common case costs two comparisons; a refusal says it in the words REST uses for `?limit=`.
  if (range.limit < 1 || range.limit > maxListLimit || range.offset < 0)
    validate(pagingSchema(maxListLimit), range);
  return range;
}

const pagingSchemas = new Map<number, z.ZodType>();

function pagingSchema(max: number): z.ZodType {
  let schema = pagingSchemas.get(max);
  if (!schema) {
    schema = z.object({ limit: z.int().min(1).max(max), offset: z.int().min(0) });
    pagingSchemas.set(max, schema);
  }
  return schema;
}
