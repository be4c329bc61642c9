/** The shapes every route set shares in its OpenAPI document: problems and pages. */
import { z } from 'zod';

/** One failing field of a problem document. */
export const FieldErrorSchema = z.object({ field: z.string(), code: z.string(), message: z.string() });

/** RFC 9457 problem details, as every error of this interface is answered. */
export const ProblemSchema = z.object({
  type: z
    .string()
    .meta({ format: 'uri-reference', description: 'The page of the code, e.g. /problems/not_found' }),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string().meta({ description: 'Stable machine-readable error code' }),
  errors: z.array(FieldErrorSchema).optional(),
});

/**
 * A page of items as every list route answers it, with the total that matches the filter.
 *
 * @example
 * const ClientPage = pageOf(clients.recordSchema);
 */
export function pageOf<T extends z.ZodType>(
  item: T,
): z.ZodObject<{ items: z.ZodArray<T>; page: z.ZodNumber; limit: z.ZodNumber; total: z.ZodNumber }> {
  return z.object({
    items: z.array(item),
    page: z.number().int().min(1),
    limit: z.number().int().min(1),
    total: z.number().int().min(0),
  });
}
