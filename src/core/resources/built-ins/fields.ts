/** Field schemas the built-in resources share. */
import { z } from 'zod';

/** Trimmed text of 1 to `max` characters. */
export const text = (max: number) => z.string().trim().min(1).max(max);

/** Stored trimmed and lower-cased, so that equal addresses compare equal. */
export const email = z.string().trim().toLowerCase().max(254).check(z.email());

/** Digits with the usual separators and an optional leading `+`; stored as typed. */
export const phone = z
  .string()
  .trim()
  .regex(/^\+?[0-9][0-9 ()\-.]{3,30}$/, 'must be a phone number such as +33 6 12 34 56 78');

/** An exact decimal amount as text, e.g. `"129.90"`, so no float rounding ever touches money. */
export const amount = z
  .string()
  .trim()
  .regex(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?$/, 'must be a decimal amount such as "129.90"');

/** An ISO 4217 code, e.g. `EUR`. */
export const currency = z
  .string()
  .trim()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as "EUR"');
