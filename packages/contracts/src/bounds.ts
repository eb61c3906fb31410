import { z } from "zod";
// Readable default messages for every schema built on these bounds (issue 24).
import "./zod-messages";

/** Bounds every request field shares (issue 23): text never carries a NUL character (PostgreSQL
 * cannot store one), and an integer fits the 32-bit columns it is stored in. Request schemas build
 * their text and integer fields from these helpers; the server also refuses a NUL anywhere in a
 * request before any schema runs (a field someone forgot still never reaches the database). */

export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

export const NUL_MESSAGE = "Text cannot contain the NUL character";
export const INT32_MESSAGE = `Must be at most ${INT32_MAX}`;

/** No U+0000 anywhere (also shown in the OpenAPI document as a pattern). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL character is what it refuses.
const NO_NUL = /^[^\u0000]*$/;

/** A request's text field: a string without NUL characters. Chain trim/min/max as usual. */
export function text() {
  return z.string().regex(NO_NUL, NUL_MESSAGE);
}

/** A request's integer field, within a 32-bit column. Chain min/max for tighter bounds. */
export function int32() {
  return z.int().min(INT32_MIN).max(INT32_MAX, INT32_MESSAGE);
}

/** An integer query parameter (arrives as text), within a 32-bit column. */
export function queryInt32() {
  return z.coerce.number().int().min(INT32_MIN).max(INT32_MAX, INT32_MESSAGE);
}

/** Where the first NUL character sits in a parsed request part (a key or a string value), as a
 * dotted path (`segments.0.name`), or null when there is none. */
export function nulCharacterPath(value: unknown, path: string[] = []): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path.join(".") : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulCharacterPath(value[i], [...path, String(i)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("\u0000")) return [...path, key.replaceAll("\u0000", "\\0")].join(".");
      const found = nulCharacterPath(item, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}
