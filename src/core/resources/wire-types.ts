/**
 * The wire shapes of a declared resource as TypeScript types, derived from its declaration the way
 * `defineResource` derives the zod schemas the OpenAPI document shows: a typed client reads the same
 * declaration, so its types cannot drift from the interface and need no generated code.
 */
import type { z } from 'zod';

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Fields = Readonly<Record<string, z.ZodType>>;

/** The part of a declaration the wire types depend on. */
export interface DeclaredShape {
  readonly name: string;
  readonly plural?: string;
  readonly fields: Fields;
  readonly immutable?: readonly string[];
  readonly lifecycle?: { readonly field: string; readonly states: Readonly<Record<string, unknown>> };
  readonly changes?: false | object;
  readonly filters?: readonly string[];
  readonly relations?: object;
  readonly groupedBy?: object;
  readonly search?: object;
  readonly sort?: readonly string[];
  readonly versions?: Readonly<
    Record<number, { readonly recordSchema: z.ZodType; readonly createInput: z.ZodType }>
  >;
}

/** The declaration a resource was made from. */
export type DeclarationOf<R> = R extends { readonly '~declaration'?: infer D extends DeclaredShape }
  ? D
  : never;

/** The path segment of a resource: its plural, `<name>s` unless declared. */
export type PluralOf<D extends DeclaredShape> = D extends { plural: infer P extends string }
  ? P
  : `${D['name']}s`;

/** An optional field is always present in a record, `null` when not set. */
type Stored<S extends z.ZodType> =
  undefined extends z.output<S> ? Exclude<z.output<S>, undefined> | null : z.output<S>;

type LifecycleOf<D extends DeclaredShape> = D extends {
  lifecycle: { field: infer K extends string; states: infer S };
}
  ? { [P in K]: keyof S & string }
  : unknown;

type TimesOf<D extends DeclaredShape> = D extends { changes: false }
  ? { timestamp: string }
  : { createdAt: string; updatedAt: string; version: number };

type OptionalKeys<F extends Fields> = {
  [K in keyof F]: undefined extends z.input<F[K]> ? K : null extends z.input<F[K]> ? K : never;
}[keyof F];

/** The record as declared (API version 1 unless a later version changed it). */
type DeclaredRecord<D extends DeclaredShape> = { id: string } & {
  -readonly [K in keyof D['fields']]: Stored<D['fields'][K]>;
} & LifecycleOf<D> &
  TimesOf<D>;

/** A create body as declared: a nullable or optional field may be left out. */
type DeclaredCreate<F extends Fields> = {
  -readonly [K in Exclude<keyof F, OptionalKeys<F>>]: z.input<F[K]>;
} & {
  -readonly [K in OptionalKeys<F>]?: z.input<F[K]>;
};

/** The latest version at or below `V` that changed the resource's wire form; never if none did. */
type ChangedAt<Vs, V extends number> = V extends 0
  ? never
  : V extends keyof Vs
    ? V
    : ChangedAt<Vs, Previous[V]>;
type Previous = [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

type VersionOf<D extends DeclaredShape, V extends number> = D extends { versions: infer Vs }
  ? ChangedAt<Vs, V> extends infer K extends keyof Vs
    ? Vs[K]
    : never
  : never;

/** A record as API version `V` sends it. */
export type WireRecord<D extends DeclaredShape, V extends number> = [VersionOf<D, V>] extends [never]
  ? Simplify<DeclaredRecord<D>>
  : VersionOf<D, V> extends { recordSchema: infer S extends z.ZodType }
    ? z.output<S>
    : never;

/** A create body as API version `V` takes it. */
export type WireCreate<D extends DeclaredShape, V extends number> = [VersionOf<D, V>] extends [never]
  ? Simplify<DeclaredCreate<D['fields']>>
  : VersionOf<D, V> extends { createInput: infer S extends z.ZodType }
    ? z.input<S>
    : never;

type Immutable<D extends DeclaredShape> = D extends { immutable: readonly (infer K extends string)[] }
  ? K
  : never;

/** A merge patch: any writable field, and the life-cycle field to move the record. */
export type WirePatch<D extends DeclaredShape> = Simplify<
  Partial<
    {
      -readonly [K in keyof Writable<D>]: z.input<Writable<D>[K]>;
    } & LifecycleOf<D>
  >
>;

type Writable<D extends DeclaredShape> = Omit<D['fields'], Immutable<D>>;
type LeftOut<F extends Fields> = {
  [K in keyof F]: undefined extends z.input<F[K]> ? K : never;
}[keyof F];

/** A replace (PUT): every writable field; an optional one left out is cleared, a nullable one is sent. */
export type WireReplace<D extends DeclaredShape> = ReplaceOf<Writable<D>>;
type ReplaceOf<W extends Fields> = Simplify<
  { -readonly [K in Exclude<keyof W, LeftOut<W>>]: z.input<W[K]> } & {
    -readonly [K in LeftOut<W>]?: z.input<W[K]>;
  }
>;

type Keys<T> = T extends readonly (infer K extends string)[]
  ? K
  : T extends object
    ? keyof T & string
    : never;

/** The parameters a list filters on: declared filters, relations, groups, the life cycle, searches. */
export type WireFilters<D extends DeclaredShape> = {
  [K in
    | Keys<D['filters']>
    | Keys<D['relations']>
    | Keys<D['groupedBy']>
    | Keys<D['search']>
    | (D extends { lifecycle: { field: infer F extends string } } ? F : never)]?: K extends keyof D['fields']
    ? Exclude<z.output<D['fields'][K]>, undefined | null> & (string | number | boolean)
    : K extends keyof LifecycleOf<D>
      ? LifecycleOf<D>[K]
      : string;
};

/** The keys a list may sort on, `-` before one for descending. */
export type WireSort<D extends DeclaredShape> =
  | (D extends { changes: false } ? 'timestamp' : 'createdAt')
  | Keys<D['sort']> extends infer K extends string
  ? K | `-${K}`
  : never;

type SearchedFields<D extends DeclaredShape> = D extends { search: infer S extends object }
  ? S[keyof S] & string
  : never;

type MatchValue<D extends DeclaredShape, K extends string> = K extends keyof D['fields']
  ? Exclude<z.output<D['fields'][K]>, undefined | null>
  : K extends keyof LifecycleOf<D>
    ? LifecycleOf<D>[K]
    : string;

/** What one field of a list's `where` may be: the value, `null`, several texts, or part of a text. */
type MatchOf<V> = V | null | ([V] extends [string] ? readonly V[] | { readonly contains: string } : never);

/**
 * The conditions a service's list takes, by stored field: the declared filters, relations, groups,
 * the life-cycle field, the searched text fields (`{ contains }`) and `id`. Values are matched as
 * stored (an e-mail lower-cased), not read as query parameters are.
 */
export type ListWhere<D extends DeclaredShape> = {
  readonly [K in
    | Keys<D['filters']>
    | Keys<D['relations']>
    | Keys<D['groupedBy']>
    | SearchedFields<D>
    | (D extends { lifecycle: { field: infer F extends string } } ? F : never)
    | 'id']?: MatchOf<MatchValue<D, K>>;
};

/** The fields a list may sort on: the creation time and the declared sort keys. */
export type SortField<D extends DeclaredShape> = Exclude<WireSort<D>, `-${string}`>;
