/**
 * HTML for the pages people use (sign-in, consent, the console, references, problem pages): one
 * escaper, and a template that escapes every value put into it unless it is HTML made by the
 * template already, so a page cannot forget to escape what a caller wrote.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML content and attribute values (quoted with `"` or `'`). */
function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** HTML the template made, or that a page vouches for: put into another template as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(part);
}

/**
 * The template every page is written with: values are escaped, arrays joined, `null`, `undefined`
 * and `false` left out; HTML from another `html` template (or {@link trusted}) goes in as it is.
 *
 * @example
 * html`<p>Signed in as ${user.name}</p>${items.map((i) => html`<li>${i}</li>`)}`;
 */
export function html(strings: TemplateStringsArray, ...values: readonly Part[]): Html {
  let text = strings[0]!;
  for (let i = 0; i < values.length; i++) text += render(values[i]!) + strings[i + 1]!;
  return new Html(text);
}

/** Markup the page itself wrote (never caller text), to put into a template unescaped. */
export function trusted(text: string): Html {
  return new Html(text);
}
