import { z } from "zod";

/**
 * Readable messages for the checks a schema states without its own message (issue 24: 'Too big:
 * expected string to have <=255 characters' reached users). Both sides import the contracts, so the
 * server's VALIDATION answers and the forms say the same.
 */
function readable(issue: z.core.$ZodRawIssue): string | undefined {
  const limit = "maximum" in issue ? Number(issue.maximum) : "minimum" in issue ? Number(issue.minimum) : undefined;
  const count = limit?.toLocaleString("en-US");
  if (issue.code === "too_big" && issue.origin === "string") return `At most ${count} characters`;
  if (issue.code === "too_small" && issue.origin === "string") {
    return limit === 1 ? "Required field" : `At least ${count} characters`;
  }
  if (issue.code === "too_big" && issue.origin === "array") return `At most ${count} items`;
  if (issue.code === "too_small" && issue.origin === "array") return `At least ${count} items`;
  if (issue.code === "too_big" && (issue.origin === "number" || issue.origin === "int")) {
    return issue.inclusive === false ? `Must be less than ${count}` : `Must be at most ${count}`;
  }
  if (issue.code === "too_small" && (issue.origin === "number" || issue.origin === "int")) {
    return issue.inclusive === false ? `Must be greater than ${count}` : `Must be at least ${count}`;
  }
  if (issue.code === "invalid_type" && issue.input === undefined) return "Required field";
  return undefined;
}

z.config({ customError: readable });
