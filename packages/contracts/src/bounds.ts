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
export const NO_NUL = /^[^\u0000]*$/;

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

/** How deeply a JSON request body may nest objects and arrays. Every body of the API is a few levels
 * deep; the bound keeps a body's handling linear in its size whatever its shape. */
export const MAX_JSON_DEPTH = 64;
export const JSON_DEPTH_MESSAGE = `JSON nested more than ${MAX_JSON_DEPTH} levels deep`;

/** True when the JSON text opens more than `maxDepth` objects and arrays inside each other. Reads
 * the text once, before it is parsed (brackets inside strings do not count). */
export function jsonNestsDeeperThan(json: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

type Visit = { value: unknown; key: string | null; parent: Visit | null };

function pathOf(visit: Visit, lastKey?: string): string {
  const keys: string[] = lastKey === undefined ? [] : [lastKey];
  for (let v: Visit | null = visit; v && v.key !== null; v = v.parent) keys.push(v.key);
  return keys.reverse().join(".");
}

/** Where the first NUL character sits in a parsed request part (a key or a string value), as a
 * dotted path (`segments.0.name`), or null when there is none. Walks with a stack of its own, so no
 * nesting can exhaust the call stack. */
export function nulCharacterPath(value: unknown): string | null {
  const stack: Visit[] = [{ value, key: null, parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current === "string") {
      if (current.includes("\u0000")) return pathOf(visit);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: String(i), parent: visit });
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current);
      const badKey = entries.find(([key]) => key.includes("\u0000"));
      // An object's keys are looked at before its values.
      if (badKey) return pathOf(visit, badKey[0].replaceAll("\u0000", "\\0"));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        stack.push({ value: item, key, parent: visit });
      }
    }
  }
  return null;
}
