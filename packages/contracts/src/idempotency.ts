import { z } from "zod";

/** The header a client sends with a create so that repeating it (a double click, a retry after a
 * lost answer) does not create twice: the IETF draft's `Idempotency-Key`. */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const IDEMPOTENCY_KEY_MAX = 200;

/** Request headers of a create that takes a key (other headers pass through untouched). */
export const idempotencyKeyHeaders = z.looseObject({
  "idempotency-key": z
    .string()
    .min(1)
    .max(IDEMPOTENCY_KEY_MAX)
    .regex(/^[\x21-\x7e]+$/, "The Idempotency-Key must be printable ASCII without spaces")
    .optional(),
});
