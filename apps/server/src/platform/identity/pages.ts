import { ORGANIZATIONS, type Organization, PRODUCT_NAME } from "@polyforge/contracts/organizations";

/** The provider's server-rendered pages: plain HTML and a little CSS in the product's look. Every
 * value that came from outside goes through `escapeHtml`. */

const ORGANIZATION_LABELS: Record<Organization, string> = {
  polyforge: "PolyForge",
  cosmetics: "Cosmetics company",
  other: "Other",
};

function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f1f3f5;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#212529;font-size:16px;line-height:1.5}
main{width:100%;max-width:420px;margin:24px;background:#fff;border-radius:8px;padding:32px;
box-shadow:0 1px 3px rgba(0,0,0,.08),0 8px 24px rgba(0,0,0,.06)}
.brand{margin:0 0 4px;font-size:14px;font-weight:700;letter-spacing:.04em;color:#1c7ed6;text-transform:uppercase}
h1{margin:0 0 24px;font-size:24px;font-weight:600}
label{display:block;font-weight:500;margin-bottom:4px}
.field{margin-bottom:16px}
input,select{width:100%;height:40px;padding:0 12px;font:inherit;border:1px solid #ced4da;border-radius:4px;background:#fff}
input:focus,select:focus{outline:2px solid #74c0fc;outline-offset:1px;border-color:#339af0}
input[aria-invalid=true],select[aria-invalid=true]{border-color:#e03131}
.field-error{margin:4px 0 0;padding:0;list-style:none;color:#c92a2a;font-size:14px}
.alert{margin:0 0 16px;padding:12px;border-radius:4px;background:#fff5f5;border:1px solid #ffc9c9;color:#c92a2a}
button{width:100%;height:42px;font:inherit;font-weight:600;border:0;border-radius:4px;background:#228be6;color:#fff;cursor:pointer}
button:hover{background:#1c7ed6}
button:focus-visible{outline:2px solid #74c0fc;outline-offset:2px}
button.secondary{margin-top:8px;background:#e9ecef;color:#212529}
.footer{margin:20px 0 0;text-align:center;font-size:14px;color:#495057}
a{color:#1c7ed6}
`;

/** Pages carry a CSP that allows only their inline style (and, when given, one inline script). */
export function contentSecurityPolicy(scriptNonce?: string): string {
  const script = scriptNonce ? `'nonce-${scriptNonce}'` : "'none'";
  return `default-src 'none'; style-src 'unsafe-inline'; script-src ${script}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

function layout(title: string, body: string, scriptNonce?: string, script?: string): string {
  const scriptTag = scriptNonce && script ? `<script nonce="${scriptNonce}">${script}</script>` : "";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${PRODUCT_NAME}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p class="brand">${PRODUCT_NAME}</p>
${body}
</main>
${scriptTag}
</body>
</html>`;
}

/** One error paragraph per message, tied to its input through aria-describedby. */
function fieldErrors(name: string, messages: string[] | undefined): { html: string; attrs: string } {
  if (!messages?.length) return { html: "", attrs: "" };
  const items = messages.map((m) => `<li>${escapeHtml(m)}</li>`).join("");
  return {
    html: `<ul class="field-error" id="${name}-error">${items}</ul>`,
    attrs: ` aria-invalid="true" aria-describedby="${name}-error"`,
  };
}

function inputField(o: {
  name: string;
  label: string;
  type: string;
  autocomplete: string;
  value?: string;
  errors?: string[];
  autofocus?: boolean;
}): string {
  const err = fieldErrors(o.name, o.errors);
  const value = o.value === undefined ? "" : ` value="${escapeHtml(o.value)}"`;
  return `<div class="field">
<label for="${o.name}">${escapeHtml(o.label)}</label>
<input id="${o.name}" name="${o.name}" type="${o.type}" autocomplete="${o.autocomplete}" aria-required="true"${value}${err.attrs}${o.autofocus ? " autofocus" : ""}>
${err.html}</div>`;
}

export interface SignInPageInput {
  action: string;
  signUpHref: string;
  supportHref: string;
  csrfToken: string;
  email?: string;
  error?: string;
}

export function signInPage(p: SignInPageInput): string {
  const alert = p.error ? `<p class="alert" role="alert">${escapeHtml(p.error)}</p>` : "";
  return layout(
    "Sign in",
    `<h1>Sign in to your account</h1>
${alert}
<form method="post" action="${escapeHtml(p.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(p.csrfToken)}">
${inputField({ name: "email", label: "Email", type: "email", autocomplete: "username", value: p.email, autofocus: !p.email })}
${inputField({ name: "password", label: "Password", type: "password", autocomplete: "current-password", autofocus: !!p.email })}
<button type="submit">Sign in</button>
</form>
<p class="footer">New to ${PRODUCT_NAME}? <a href="${escapeHtml(p.signUpHref)}">Sign up</a></p>
<p class="footer"><a href="${escapeHtml(p.supportHref)}">Remote support access for ${PRODUCT_NAME} staff</a></p>`,
  );
}

export interface SupportPageInput {
  action: string;
  signInHref: string;
  csrfToken: string;
  email?: string;
  customerEmail?: string;
  error?: string;
}

/** Remote support (SPEC §6): staff with the support role sign in with their own credentials to act
 * as a user who enabled remote support. */
export function supportPage(p: SupportPageInput): string {
  const alert = p.error ? `<p class="alert" role="alert">${escapeHtml(p.error)}</p>` : "";
  return layout(
    "Remote support",
    `<h1>Remote support access</h1>
<p>Sign in with your own staff account to act as a user who has enabled remote support.</p>
${alert}
<form method="post" action="${escapeHtml(p.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(p.csrfToken)}">
${inputField({ name: "customer_email", label: "User's email", type: "email", autocomplete: "off", value: p.customerEmail, autofocus: true })}
${inputField({ name: "email", label: "Your staff email", type: "email", autocomplete: "username", value: p.email })}
${inputField({ name: "password", label: "Your password", type: "password", autocomplete: "current-password" })}
<button type="submit">Act as this user</button>
</form>
<p class="footer"><a href="${escapeHtml(p.signInHref)}">Back to sign in</a></p>`,
  );
}

const SIGN_UP_FIELDS = ["email", "first_name", "last_name", "organization", "password", "confirm_password"] as const;
export type SignUpField = (typeof SIGN_UP_FIELDS)[number];

export interface SignUpPageInput {
  action: string;
  signInHref: string;
  csrfToken: string;
  /** What the user typed, to show again (never the passwords). */
  values?: Partial<Record<"email" | "first_name" | "last_name" | "organization", string>>;
  errors?: Partial<Record<SignUpField, string[]>>;
}

export function signUpPage(p: SignUpPageInput): string {
  const values = p.values ?? {};
  const errors = p.errors ?? {};
  const orgErr = fieldErrors("organization", errors.organization);
  // The cursor starts in the first field to correct.
  const focus = SIGN_UP_FIELDS.find((field) => errors[field]?.length) ?? "email";
  const options = ORGANIZATIONS.map(
    (org) =>
      `<option value="${org}"${values.organization === org ? " selected" : ""}>${escapeHtml(ORGANIZATION_LABELS[org])}</option>`,
  ).join("");
  const alert = Object.keys(errors).length
    ? `<p class="alert" role="alert">Please correct the highlighted fields.</p>`
    : "";
  return layout(
    "Sign up",
    `<h1>Create your account</h1>
${alert}
<form method="post" action="${escapeHtml(p.action)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(p.csrfToken)}">
${inputField({ name: "email", label: "Email", type: "email", autocomplete: "email", value: values.email, errors: errors.email, autofocus: focus === "email" })}
${inputField({ name: "first_name", label: "First name", type: "text", autocomplete: "given-name", value: values.first_name, errors: errors.first_name, autofocus: focus === "first_name" })}
${inputField({ name: "last_name", label: "Last name", type: "text", autocomplete: "family-name", value: values.last_name, errors: errors.last_name, autofocus: focus === "last_name" })}
<div class="field">
<label for="organization">Organization</label>
<select id="organization" name="organization" aria-required="true"${orgErr.attrs}${focus === "organization" ? " autofocus" : ""}>
<option value=""${values.organization ? "" : " selected"} disabled>Choose your organization</option>
${options}
</select>
${orgErr.html}</div>
${inputField({ name: "password", label: "Password", type: "password", autocomplete: "new-password", errors: errors.password, autofocus: focus === "password" })}
${inputField({ name: "confirm_password", label: "Confirm password", type: "password", autocomplete: "new-password", errors: errors.confirm_password, autofocus: focus === "confirm_password" })}
<button type="submit">Sign up</button>
</form>
<p class="footer">Already have an account? <a href="${escapeHtml(p.signInHref)}">Sign in</a></p>`,
  );
}

/** A page with a heading, a sentence and a way back to the application. */
export function messagePage(title: string, message: string, backHref: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p class="footer"><a href="${escapeHtml(backHref)}">Go to ${PRODUCT_NAME}</a></p>`,
  );
}

/** The end-session confirmation. `form` is oidc-provider's hidden form (its action and xsrf
 * token); with `autoSubmitNonce` the page confirms by itself (the request named its ID token, so
 * it came from our application), otherwise the user chooses: sign out, or go back to the app. */
export function logoutPage(form: string, appUrl: string, autoSubmitNonce?: string): string {
  return layout(
    "Sign out",
    `<h1>Sign out of ${PRODUCT_NAME}?</h1>
${form}
<button id="logout-confirm" type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
<p class="footer"><a href="${escapeHtml(appUrl)}">Back to ${PRODUCT_NAME}</a></p>`,
    autoSubmitNonce,
    `document.getElementById("logout-confirm").click();`,
  );
}
