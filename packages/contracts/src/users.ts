import { z } from "zod";
import { text } from "./bounds";
import { ORGANIZATIONS, PRODUCT_NAME } from "./organizations";

/** The longest password accepted: a sign-in form must always be able to send it back (issue 23). */
export const PASSWORD_MAX_LENGTH = 128;

/** A password's length in characters (code points, as JSON Schema counts them: an emoji is one). */
const characters = (p: string) => [...p].length;

/** Password rules of SPEC §5, each with its own message, checked in this order. */
export const PASSWORD_RULES: ReadonlyArray<{ test: (p: string) => boolean; message: string }> = [
  { test: (p) => characters(p) >= 8, message: "Password must be at least 8 characters long" },
  {
    test: (p) => characters(p) <= PASSWORD_MAX_LENGTH,
    message: `Password can have at most ${PASSWORD_MAX_LENGTH} characters`,
  },
  { test: (p) => /[A-Z]/.test(p), message: "Password must have at least one uppercase letter" },
  { test: (p) => /[a-z]/.test(p), message: "Password must have at least one lowercase letter" },
  { test: (p) => /[0-9]/.test(p), message: "Password must have at least one digit" },
  { test: (p) => /[^A-Za-z0-9]/.test(p), message: "Password must have at least one special character" },
  {
    test: (p) => !p.toLowerCase().includes(PRODUCT_NAME.toLowerCase()),
    message: `Password cannot contain "${PRODUCT_NAME}"`,
  },
];

/** Every rule the password breaks, in order (empty when it is acceptable). */
export function passwordProblems(password: string): string[] {
  return PASSWORD_RULES.filter((r) => !r.test(password)).map((r) => r.message);
}

/** PASSWORD_RULES as one JSON Schema pattern, so that the OpenAPI document states them too. */
export const PASSWORD_PATTERN = [
  "^(?=[\\s\\S]*[A-Z])(?=[\\s\\S]*[a-z])(?=[\\s\\S]*[0-9])(?=[\\s\\S]*[^A-Za-z0-9])",
  `(?![\\s\\S]*${[...PRODUCT_NAME].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join("")})`,
].join("");

export const passwordSchema = z
  .string()
  .superRefine((p, ctx) => {
    for (const message of passwordProblems(p)) ctx.addIssue({ code: "custom", message });
  })
  .meta({ minLength: 8, maxLength: PASSWORD_MAX_LENGTH, pattern: PASSWORD_PATTERN });

export const REQUIRED_FIELD = "Required field";

export const signUpSchema = z.object({
  email: text().trim().toLowerCase().email("Enter a valid email address").max(254),
  first_name: text().trim().min(1, "You must enter a first name").max(100),
  last_name: text().trim().min(1, "You must enter a last name").max(100),
  organization: z.enum(ORGANIZATIONS),
  password: passwordSchema,
});
export type SignUpInput = z.infer<typeof signUpSchema>;

export const accountUpdateSchema = z.object({
  first_name: text().trim().min(1, "You must enter a first name").max(100),
  last_name: text().trim().min(1, "You must enter a last name").max(100),
  allow_impersonation: z.boolean(),
});

/** PUT /users/password: the current password too, so that a session left open (or a token
 * obtained some other way) cannot take the account over by changing it. */
export const passwordChangeSchema = z
  .object({
    current_password: z.string().min(1, REQUIRED_FIELD).max(PASSWORD_MAX_LENGTH),
    new_password: passwordSchema,
    confirm_new_password: z.string(),
  })
  .refine((v) => v.new_password === v.confirm_new_password, {
    message: "Passwords do not match",
    path: ["confirm_new_password"],
  });

export const userAccount = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  organization: z.enum(ORGANIZATIONS),
  allow_impersonation: z.boolean(),
  identity_provider: z.string().nullable(),
});
export type UserAccount = z.infer<typeof userAccount>;
