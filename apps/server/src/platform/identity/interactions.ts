import { createHmac, timingSafeEqual } from "node:crypto";
import { REQUIRED_FIELD, signUpSchema } from "@polyforge/contracts/users";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type Provider from "oidc-provider";
import type { Db } from "../db/database";
import { authenticate, createUser, findUserByEmail } from "./accounts";
import { type ImpersonationResult, mayImpersonate } from "./impersonation";
import { contentSecurityPolicy, messagePage, type SignUpField, signInPage, signUpPage, supportPage } from "./pages";
import type { SignInLimiter } from "./rate-limit";

const INVALID_CREDENTIALS = "Invalid email or password.";
const EMAIL_TAKEN = "An account with this email already exists. Sign in instead.";
const NOT_SUPPORT_STAFF = "Only PolyForge support staff can act as another user.";
const SUPPORT_NOT_ALLOWED = "No user with this email has enabled remote support.";
const FORM_EXPIRED = "This form has expired. Please try again.";
const PASSWORDS_DIFFER = "Passwords do not match";

export interface InteractionOptions {
  provider: Provider;
  db: Db;
  limiter: SignInLimiter;
  logger: FastifyBaseLogger;
  /** The issuer's path, e.g. /auth/realms/polyforge. */
  mountPath: string;
  /** Where to send people whose sign-in request is gone: the web app, which starts a new one. */
  appUrl: string;
  /** Secret for the forms' CSRF tokens. */
  csrfSecret: string;
}

type FormBody = Record<string, string | undefined>;
type UidRequest = FastifyRequest<{ Params: { uid: string }; Body: FormBody }>;
type SignUpErrors = Partial<Record<SignUpField, string[]>>;
type Account = NonNullable<Awaited<ReturnType<typeof authenticate>>>;
type NewAccount = Parameters<typeof createUser>[1];

/** One sign-in interaction's pages: where its forms post, and the token they carry. */
interface InteractionForm {
  paths: ReturnType<typeof interactionPaths>;
  csrfToken: string;
  /** The login_hint the web app sent, if any. */
  loginHint?: string;
}

type InteractionHandler = (request: UidRequest, reply: FastifyReply, form: InteractionForm) => Promise<FastifyReply>;

/** The sign-in and sign-up pages oidc-provider sends the browser to when it needs a user. Each
 * page belongs to one interaction (uid in the path, matched against the interaction cookie), and
 * each form carries a token derived from that uid, so another site cannot post it. */
export function registerInteractionRoutes(app: FastifyInstance, o: InteractionOptions): void {
  acceptFormBodies(app);
  const base = `${o.mountPath}/interaction/:uid`;
  const route = (handler: InteractionHandler) => withInteraction(o, handler);
  app.get(base, route(showSignIn));
  app.post(
    `${base}/login`,
    route((request, reply, form) => signIn(o, request, reply, form)),
  );
  app.get(`${base}/support`, route(showSupport));
  app.post(
    `${base}/support`,
    route((request, reply, form) => signInForSupport(o, request, reply, form)),
  );
  app.get(`${base}/signup`, route(showSignUp));
  app.post(
    `${base}/signup`,
    route((request, reply, form) => signUp(o, request, reply, form)),
  );
}

function acceptFormBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
}

function interactionPaths(mountPath: string, uid: string) {
  const page = `${mountPath}/interaction/${uid}`;
  return { signIn: page, login: `${page}/login`, signUp: `${page}/signup`, support: `${page}/support` };
}

function csrfTokenFor(secret: string, uid: string): string {
  return createHmac("sha256", secret).update(`interaction:${uid}`).digest("base64url");
}

function csrfMatches(secret: string, uid: string, token: string | undefined): boolean {
  const expected = Buffer.from(csrfTokenFor(secret, uid));
  const given = Buffer.from(token ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Runs the handler for the interaction this request belongs to; without one, answers with an
 * explanation and a way back to the app. */
function withInteraction(o: InteractionOptions, handler: InteractionHandler) {
  return async (request: UidRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const form = await interactionForm(o, request, reply);
    if (form) return handler(request, reply, form);
    const expired = messagePage(
      "Sign-in expired",
      "This sign-in request has expired or is not valid any more.",
      o.appUrl,
    );
    return sendPage(reply, 400, expired);
  };
}

/** The interaction named in the path, if it is the one this browser's interaction cookie holds. */
async function interactionForm(
  o: InteractionOptions,
  request: UidRequest,
  reply: FastifyReply,
): Promise<InteractionForm | undefined> {
  try {
    const details = await o.provider.interactionDetails(request.raw, reply.raw);
    if (details.uid !== request.params.uid) return undefined;
    const loginHint = details.params.login_hint;
    return {
      paths: interactionPaths(o.mountPath, details.uid),
      csrfToken: csrfTokenFor(o.csrfSecret, details.uid),
      loginHint: typeof loginHint === "string" ? loginHint : undefined,
    };
  } catch (err) {
    request.log.debug({ err }, "sign-in interaction not found");
    return undefined;
  }
}

// --- the pages ------------------------------------------------------------------------------

function signInForm(reply: FastifyReply, status: number, form: InteractionForm, email?: string, error?: string) {
  const { login, signUp, support } = form.paths;
  const page = signInPage({
    action: login,
    signUpHref: signUp,
    supportHref: support,
    csrfToken: form.csrfToken,
    email,
    error,
  });
  return sendPage(reply, status, page);
}

function supportForm(
  reply: FastifyReply,
  status: number,
  form: InteractionForm,
  typed: { email?: string; customerEmail?: string; error?: string } = {},
) {
  const page = supportPage({
    action: form.paths.support,
    signInHref: form.paths.signIn,
    csrfToken: form.csrfToken,
    ...typed,
  });
  return sendPage(reply, status, page);
}

function signUpForm(
  reply: FastifyReply,
  status: number,
  form: InteractionForm,
  values?: ReturnType<typeof signUpValues>,
  errors?: SignUpErrors,
) {
  const page = signUpPage({
    action: form.paths.signUp,
    signInHref: form.paths.signIn,
    csrfToken: form.csrfToken,
    values,
    errors,
  });
  return sendPage(reply, status, page);
}

const showSignIn: InteractionHandler = async (_request, reply, form) => signInForm(reply, 200, form, form.loginHint);
const showSupport: InteractionHandler = async (_request, reply, form) => supportForm(reply, 200, form);
const showSignUp: InteractionHandler = async (_request, reply, form) => signUpForm(reply, 200, form);

// --- the forms ------------------------------------------------------------------------------

async function signIn(o: InteractionOptions, request: UidRequest, reply: FastifyReply, form: InteractionForm) {
  const body = request.body ?? {};
  const email = (body.email ?? "").trim();
  if (!csrfMatches(o.csrfSecret, request.params.uid, body.csrf))
    return signInForm(reply, 403, form, email, FORM_EXPIRED);
  const checked = await authenticateWithinLimit(o, request, reply, email, body.password ?? "");
  if (!("user" in checked)) return signInForm(reply, checked.status, form, email, checked.error);
  return finishWithLogin(o, request, reply, checked.user.id);
}

/** Remote support: a staff member signs in with their own credentials to act as a user who has
 * enabled remote support (SPEC §6). */
async function signInForSupport(
  o: InteractionOptions,
  request: UidRequest,
  reply: FastifyReply,
  form: InteractionForm,
) {
  const body = request.body ?? {};
  const typed = { email: (body.email ?? "").trim(), customerEmail: (body.customer_email ?? "").trim() };
  const refuse = (status: number, error: string) => supportForm(reply, status, form, { ...typed, error });
  if (!csrfMatches(o.csrfSecret, request.params.uid, body.csrf)) return refuse(403, FORM_EXPIRED);
  const checked = await authenticateWithinLimit(o, request, reply, typed.email, body.password ?? "");
  if (!("user" in checked)) return refuse(checked.status, checked.error);
  const staff = checked.user;
  const customer = typed.customerEmail ? await findUserByEmail(o.db, typed.customerEmail) : undefined;
  const check = mayImpersonate(staff, customer);
  if (!check.ok) return refuse(403, check.reason === "not_support_staff" ? NOT_SUPPORT_STAFF : SUPPORT_NOT_ALLOWED);
  request.log.info({ staffId: staff.id, userId: check.customer.id }, "remote support sign-in");
  return finishWithLogin(o, request, reply, check.customer.id, {
    impersonatorId: staff.id,
    impersonatorEmail: staff.email,
  });
}

async function signUp(o: InteractionOptions, request: UidRequest, reply: FastifyReply, form: InteractionForm) {
  const body = request.body ?? {};
  const values = signUpValues(body);
  const refuse = (status: number, errors: SignUpErrors) => signUpForm(reply, status, form, values, errors);
  if (!csrfMatches(o.csrfSecret, request.params.uid, body.csrf)) return refuse(403, { email: [FORM_EXPIRED] });
  const checked = checkSignUp(values, body.password ?? "", body.confirm_password ?? "");
  if ("errors" in checked) return refuse(400, checked.errors);

  // Accounts opened from one address are throttled (issue 23: 10 accounts in 3 s).
  const retryAfterMs = await o.limiter.signUpRetryAfterMs(request.ip);
  if (retryAfterMs > 0) {
    reply.header("Retry-After", Math.ceil(retryAfterMs / 1000));
    return refuse(429, {
      email: [`Too many accounts were opened from your address. Try again in ${minutesFrom(retryAfterMs)}.`],
    });
  }
  const user = await createUser(o.db, checked.account);
  if (!user) return refuse(409, { email: [EMAIL_TAKEN] });
  await o.limiter.recordSignUp(request.ip);
  request.log.info({ userId: user.id }, "new account signed up");
  return finishWithLogin(o, request, reply, user.id);
}

/** What the user typed in the sign-up form, to show again (never the passwords). */
function signUpValues(body: FormBody) {
  return {
    email: body.email ?? "",
    first_name: body.first_name ?? "",
    last_name: body.last_name ?? "",
    organization: body.organization ?? "",
  };
}

/** The new account, or every field's messages. An empty email or no organization chosen is a
 * missing field, not a malformed one. */
function checkSignUp(
  values: ReturnType<typeof signUpValues>,
  password: string,
  confirmation: string,
): { errors: SignUpErrors } | { account: NewAccount } {
  const errors: SignUpErrors = {};
  const parsed = signUpSchema.safeParse({ ...values, password });
  for (const issue of parsed.error?.issues ?? []) {
    const field = issue.path[0] as SignUpField;
    const missing = field === "organization" || (field === "email" && values.email.trim() === "");
    errors[field] = [...new Set([...(errors[field] ?? []), missing ? REQUIRED_FIELD : issue.message])];
  }
  if (password !== confirmation) errors.confirm_password = [PASSWORDS_DIFFER];
  if (!parsed.success || Object.keys(errors).length) return { errors };
  return { account: parsed.data };
}

// --- signing in -----------------------------------------------------------------------------

/** Checks an email and password under the sign-in rate limit (per address and email); a staff
 * member signing in for remote support counts against the same limit as an ordinary sign-in. */
async function authenticateWithinLimit(
  o: InteractionOptions,
  request: UidRequest,
  reply: FastifyReply,
  email: string,
  password: string,
): Promise<{ user: Account } | { status: number; error: string }> {
  const retryAfterMs = await o.limiter.retryAfterMs(request.ip, email);
  if (retryAfterMs > 0) {
    reply.header("Retry-After", Math.ceil(retryAfterMs / 1000));
    return { status: 429, error: `Too many sign-in attempts. Try again in ${minutesFrom(retryAfterMs)}.` };
  }
  const user = email && password ? await authenticate(o.db, email, password) : undefined;
  if (!user) {
    await o.limiter.recordFailure(request.ip, email);
    return { status: 401, error: INVALID_CREDENTIALS };
  }
  await o.limiter.clear(request.ip, email);
  return { user };
}

async function finishWithLogin(
  o: InteractionOptions,
  request: UidRequest,
  reply: FastifyReply,
  accountId: string,
  impersonation?: ImpersonationResult,
): Promise<FastifyReply> {
  // oidc-provider writes the redirect back to the authorization endpoint itself.
  reply.hijack();
  try {
    await o.provider.interactionFinished(
      request.raw,
      reply.raw,
      { login: { accountId }, ...(impersonation ? { impersonation } : {}) },
      { mergeWithLastSubmission: false },
    );
  } catch (err) {
    o.logger.error({ err }, "could not finish the sign-in interaction");
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "text/html; charset=utf-8" });
      reply.raw.end(messagePage("Something went wrong", "The sign-in could not be completed.", o.appUrl));
    }
  }
  return reply;
}

/** "1 minute", "3 minutes": a wait rounded up to whole minutes. */
function minutesFrom(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
}

/** Answers with one of our pages: never cached, never framed, no script of its own. */
function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("content-security-policy", contentSecurityPolicy())
    .header("referrer-policy", "no-referrer")
    .send(html);
}
