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
import { invalidText, isStorableValue, MAX_ID_LENGTH, unstorableTextIn } from '../core/storable-text.js';

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
  const run = resolve ?? defaultFieldResolver;
  return (source, args, ctx, info) => {
    // Runs for every item of a nested list (a client's orders): allocation-free unless it refuses.
    if (!idsFit(args, ids) || !isStorableValue(args)) {
      const details = [...tooLongIds(args, ids), ...unstorableTextIn(args).map(invalidText)];
      throw new SwitchboardError('validation_failed', summaryOf(details), { details });
    }
    return run(source, args, ctx, info);
  };
}

function idsFit(args: Record<string, unknown>, ids: readonly string[]): boolean {
  for (const name of ids) {
    const value = args[name];
    if (typeof value === 'string' ? value.length > MAX_ID_LENGTH : Array.isArray(value) && !value.every(fits))
      return false;
  }
  return true;
}

function fits(id: unknown): boolean {
  return typeof id !== 'string' || id.length <= MAX_ID_LENGTH;
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
