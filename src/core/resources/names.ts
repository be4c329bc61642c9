/**
 * The cases a resource's names are written in on each interface, derived in one place from the
 * declaration's kebab-case name and plural (`return-note`, `return-notes`).
 */

/** `return-note` → `ReturnNote`. */
export function pascal(text: string): string {
  return text.replace(/(^|-)([a-z0-9])/g, (_, _dash, c: string) => c.toUpperCase());
}

/** `return-note` → `returnNote`. */
function camel(text: string): string {
  return text.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `status` → `Status`. */
export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A resource's names in the cases the interfaces use. */
export interface ResourceNames {
  /** `returnNote`: the GraphQL field of one record. */
  readonly field: string;
  /** `returnNotes`: the GraphQL list, and a client's field of them. */
  readonly pluralField: string;
  /** `ReturnNote`: the GraphQL type and the OpenAPI schema. */
  readonly type: string;
  /** `ReturnNotes`: in operation ids (`listReturnNotes`). */
  readonly pluralType: string;
}

export function namesOf(name: string, plural: string): ResourceNames {
  return { field: camel(name), pluralField: camel(plural), type: pascal(name), pluralType: pascal(plural) };
}
