import { useEffect } from "react";

interface CheckableForm {
  values: unknown;
  errors: Record<string, unknown>;
  validateField(path: string): unknown;
}

/**
 * For a @mantine/form validated on change: a message that depends on another field (e.g. the melt
 * equilibration needs NPT) is checked again whenever any value changes, so it goes as soon as the
 * form is right, not on the next submit. Only fields already showing a message are re-checked.
 */
export function useErrorsRechecked(form: CheckableForm) {
  const values = JSON.stringify(form.values);
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-checked when the values change.
  useEffect(() => {
    for (const path of Object.keys(form.errors)) form.validateField(path);
  }, [values]);
}
