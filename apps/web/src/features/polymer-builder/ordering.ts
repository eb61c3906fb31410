import { useEffect, useState } from "react";

/** Moves the item at `index` one place up (-1) or down (+1); out-of-range moves change nothing. */
export function moveItem<T>(items: readonly T[], index: number, delta: -1 | 1): T[] {
  const target = index + delta;
  if (target < 0 || target >= items.length) return [...items];
  const next = [...items];
  [next[index], next[target]] = [next[target]!, next[index]!];
  return next;
}

/** Resolves after `ms` milliseconds. */
export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The messages of a failed zod parse by dotted field path (first message per field). */
export function fieldErrors(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join(".");
    errors[key] ??= issue.message;
  }
  return errors;
}

/** A parse's field errors, none when it succeeded. */
export function errorsOf(parsed: {
  success: boolean;
  error?: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> };
}): Record<string, string> {
  return parsed.success || !parsed.error ? {} : fieldErrors(parsed.error.issues);
}

/**
 * The field errors of a form that validates on submit and, once it has shown errors, again on every
 * change (`deps`): a message goes as soon as its field is valid ('Required field' no longer stays red
 * after the user filled the field). `validate` answers the current errors by field path.
 */
export function useRevalidatedErrors(
  validate: () => Record<string, string>,
  deps: readonly unknown[],
): [Record<string, string>, (errors: Record<string, string>) => void] {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const showing = Object.keys(errors).length > 0;
  const values = JSON.stringify(deps);
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-checked when the form's values change.
  useEffect(() => {
    if (showing) setErrors(validate());
  }, [values]);
  return [errors, setErrors];
}
