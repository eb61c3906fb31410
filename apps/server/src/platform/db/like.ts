/** A LIKE / ILIKE pattern matching text that contains `text`: its `%`, `_` and `\` are literal
 * characters, not patterns (PostgreSQL's default escape character is the backslash). */
export function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, "\\$&")}%`;
}
