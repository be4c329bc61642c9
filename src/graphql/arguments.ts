import {
  defaultFieldResolver,
  type GraphQLArgument,
  type GraphQLFieldResolver,
  GraphQLID,
  GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
} from 'graphql';
import { type FieldError, SwitchboardError } from '../core/errors.js';
import { summaryOf } from '../core/field-errors.js';
import { invalidText, MAX_ID_LENGTH, unstorableTextIn } from '../core/storable-text.js';

/**
 * Checks the arguments of every field that takes some, the host's included, before its resolver runs:
 * an `ID` of more than {@link MAX_ID_LENGTH} characters names nothing, and no text may hold NUL or an
 * unpaired surrogate. Both are `validation_failed` naming the argument (`id`, `input.name`), as REST
 * names a field, so nothing a caller sends reaches storage unchecked.
 */
export function guardArguments(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.args.length) continue;
      field.resolve = checked(field.resolve, field.args);
      if (field.subscribe) field.subscribe = checked(field.subscribe, field.args);
    }
  }
}

function checked(
  resolve: GraphQLFieldResolver<unknown, unknown> | undefined,
  definitions: readonly GraphQLArgument[],
): GraphQLFieldResolver<unknown, unknown> {
  const ids = definitions.filter((a) => getNamedType(a.type) === GraphQLID).map((a) => a.name);
  return (source, args, ctx, info) => {
    const details = [...tooLongIds(args, ids), ...unstorableTextIn(args).map(invalidText)];
    if (details.length) throw new SwitchboardError('validation_failed', summaryOf(details), { details });
    return (resolve ?? defaultFieldResolver)(source, args, ctx, info);
  };
}

function tooLongIds(args: Record<string, unknown>, ids: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const name of ids) {
    const value = args[name];
    const values = Array.isArray(value) ? value : [value];
    values.forEach((id, i) => {
      if (typeof id !== 'string' || id.length <= MAX_ID_LENGTH) return;
      const field = Array.isArray(value) ? `${name}.${i}` : name;
      errors.push({
        field,
        code: 'too_long',
        message: `${field} must be at most ${MAX_ID_LENGTH} characters.`,
      });
    });
  }
  return errors;
}
