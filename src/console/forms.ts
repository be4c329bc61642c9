/**
 * Forms that show their own errors: a refused post is answered with the same form again (422), each
 * error beside its field in the form's words, and what was typed kept. A page's form takes an optional
 * {@link FormRefusal}; its POST route names the page (`refused` of a ConsoleRoute) and how the
 * service's field names map to the form's, and the router does the rest.
 *
 * @example
 * const fields = { name: { field: 'name', label: 'Name' } };
 * const show = (ctx: PageContext, refusal?: FormRefusal) =>
 *   ctx.render('New thing', html`<form method="post">${csrfField(ctx.csrf)}
 *     ${textField({ name: 'name', label: 'Name', value: formValue(refusal, 'name') }, refusal)}</form>`, statusOf(refusal));
 * // in the POST route: refused: { fields, show }
 */
import { SwitchboardError } from '../core/errors.js';
import { type Html, html } from '../internal/html.js';

/** A refused form: what was posted, and the error of each field by the form's field name. */
export interface FormRefusal {
  readonly values: URLSearchParams;
  /** By the form's field name; `''` for what belongs to no field. */
  readonly errors: Readonly<Record<string, string>>;
  /** The sentence above the form. */
  readonly message: string;
}

/** How a service's field (the first part of an error's path, `redirectUris.0` → `redirectUris`) is shown. */
export interface FormFieldName {
  /** The form's field (its `name`, and the id of its control). */
  readonly field: string;
  /** The label the person sees. */
  readonly label: string;
}

/** The service's field names of one form, by the service's name. */
export type FormFields = Readonly<Record<string, FormFieldName>>;

/**
 * The refusal of a form from a service's error (its field errors, or its message), in the form's
 * words: a message naming a service field (`name must be …`) names the label instead.
 */
export function refusalOf(error: SwitchboardError, values: URLSearchParams, fields: FormFields): FormRefusal {
  const errors: Record<string, string> = {};
  for (const detail of error.details) {
    const [head = '', index] = detail.field.split('.');
    const known = fields[head];
    const label = known
      ? `${known.label}${index !== undefined && /^\d+$/.test(index) ? ` (line ${Number(index) + 1})` : ''}`
      : '';
    // `redirectUris.0 must be …` says the label instead; a message of its own is led by the label
    // when it is about one line of the field.
    const words = !known
      ? detail.message
      : detail.message.startsWith(detail.field)
        ? `${label}${detail.message.slice(detail.field.length)}`
        : index !== undefined
          ? `${label}: ${detail.message}`
          : detail.message;
    const at = known?.field ?? '';
    errors[at] = errors[at] ? `${errors[at]} ${words}` : words;
  }
  if (error.details.length === 0) errors[''] = error.message;
  const count = Object.keys(errors).filter(Boolean).length;
  const message =
    count === 0
      ? `Nothing was saved: ${errors['']}`
      : `Nothing was saved: ${count === 1 ? 'a field needs' : `${count} fields need`} a change (shown below).`;
  return { values, errors, message };
}

/** A refusal a page makes itself (a check of its own, before asking the service): 422 with these fields. */
export function refuse(errors: Readonly<Record<string, string>>): SwitchboardError {
  const details = Object.entries(errors).map(([field, message]) => ({ field, code: 'invalid', message }));
  return new SwitchboardError('validation_failed', details.map((d) => d.message).join(' '), { details });
}

/** A text field's value: what was posted when the form was refused, else `initial`. */
export function formValue(refusal: FormRefusal | undefined, name: string, initial = ''): string {
  return refusal ? (refusal.values.get(name) ?? '') : initial;
}

/** The values of a repeated field: what was posted when refused, else `initial`. */
export function formValues(
  refusal: FormRefusal | undefined,
  name: string,
  initial: Iterable<string> = [],
): Set<string> {
  return new Set(refusal ? refusal.values.getAll(name) : initial);
}

/** The options `ctx.render` takes for a form page: 422 and the sentence above it when refused. */
export function statusOf(refusal: FormRefusal | undefined): { status?: number; error?: string } {
  return refusal ? { status: 422, error: refusal.message } : {};
}

/** The error of a field, in a paragraph its control points at (`aria-describedby`). */
function errorOf(name: string, refusal: FormRefusal | undefined): Html | null {
  const message = refusal?.errors[name];
  return message ? html`<p class="field-error" id="${name}-error">${message}</p>` : null;
}

/** A labelled text input (or a textarea, with `rows`) with its error and hint. */
export function textField(
  options: {
    readonly name: string;
    readonly label: string;
    readonly value: string;
    readonly hint?: string;
    readonly required?: boolean;
    readonly rows?: number;
    readonly size?: number;
  },
  refusal?: FormRefusal,
): Html {
  const { name, label, value, hint, rows } = options;
  const error = errorOf(name, refusal);
  const described = [error && `${name}-error`, hint && `${name}-hint`].filter(Boolean).join(' ');
  const attributes = html`id="${name}" name="${name}"${options.required && html` required`}${error && html` aria-invalid="true"`}${described && html` aria-describedby="${described}"`}`;
  const control = rows
    ? html`<textarea ${attributes} rows="${rows}" cols="60">${value}</textarea>`
    : html`<input ${attributes} value="${value}" size="${options.size ?? 40}">`;
  return html`<div class="field${error && ' has-error'}"><label for="${name}">${label}</label>${hint && html`<br><span class="hint" id="${name}-hint">${hint}</span>`}${error}<br>${control}</div>`;
}

/** Checkboxes (or radio buttons) in a fieldset, each with its words, with the group's error. */
export function choiceField(
  options: {
    readonly name: string;
    readonly legend: string;
    readonly choices: readonly { readonly value: string; readonly label: string }[];
    readonly ticked: ReadonlySet<string>;
    readonly type?: 'checkbox' | 'radio';
  },
  refusal?: FormRefusal,
): Html {
  const { name, legend, choices, ticked } = options;
  const error = errorOf(name, refusal);
  return html`<fieldset class="choices${error && ' has-error'}"${error && html` aria-describedby="${name}-error"`}><legend>${legend}</legend>${error}${choices.map(
    (c, i) =>
      html`<label class="check"><input type="${options.type ?? 'checkbox'}" name="${name}" value="${c.value}" id="${name}-${i}"${ticked.has(c.value) && html` checked`}> ${c.label}</label>`,
  )}</fieldset>`;
}
