import { createHmac, timingSafeEqual } from "node:crypto";
import { REQUIRED_FIELD, signUpSchema } from "@polyforge/contracts/users";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type Provider from "oidc-provider";
import type { UserRow } from "../../modules/users/schema";
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

function tooManyAttemptsMessage(retryAfterMs: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `Too many sign-in attempts. Try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
}

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

/** The sign-in and sign-up pages oidc-provider sends the browser to when it needs a user. Each
 * page belongs to one interaction (uid in the path, matched against the interaction cookie), and
 * each form carries a token derived from that uid, so another site cannot post it. */
export function registerInteractionRoutes(app: FastifyInstance, o: InteractionOptions): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const base = `${o.mountPath}/interaction/:uid`;
  const paths = (uid: string) => ({
    signIn: `${o.mountPath}/interaction/${uid}`,
    login: `${o.mountPath}/interaction/${uid}/login`,
    signUp: `${o.mountPath}/interaction/${uid}/signup`,
    support: `${o.mountPath}/interaction/${uid}/support`,
  });
  const csrfToken = (uid: string) =>
    createHmac("sha256", o.csrfSecret).update(`interaction:${uid}`).digest("base64url");
  const csrfValid = (uid: string, token: string | undefined) => {
    const expected = Buffer.from(csrfToken(uid));
    const given = Buffer.from(token ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  /** The interaction this request belongs to, or undefined after answering with an explanation. */
  const interactionFor = async (request: UidRequest, reply: FastifyReply) => {
    try {
      const details = await o.provider.interactionDetails(request.raw, reply.raw);
      if (details.uid === request.params.uid) return details;
    } catch (err) {
      request.log.debug({ err }, "sign-in interaction not found");
    }
    sendPage(
      reply,
      400,
      messagePage("Sign-in expired", "This sign-in request has expired or is not valid any more.", o.appUrl),
    );
    return undefined;
  };

  /** Checks an email and password under the sign-in rate limit (per address and email); a staff
   * member signing in for remote support counts against the same limit as an ordinary sign-in. */
  const authenticateWithinLimit = async (
    request: UidRequest,
    reply: FastifyReply,
    email: string,
    password: string,
  ): Promise<{ user: UserRow } | { status: number; error: string }> => {
    const retryAfterMs = await o.limiter.retryAfterMs(request.ip, email);
    if (retryAfterMs > 0) {
      reply.header("Retry-After", Math.ceil(retryAfterMs / 1000));
      return { status: 429, error: tooManyAttemptsMessage(retryAfterMs) };
    }
    const user = email && password ? await authenticate(o.db, email, password) : undefined;
    if (!user) {
      await o.limiter.recordFailure(request.ip, email);
      return { status: 401, error: INVALID_CREDENTIALS };
    }
    await o.limiter.clear(request.ip, email);
    return { user };
  };

  const finishWithLogin = async (
    request: UidRequest,
    reply: FastifyReply,
    accountId: string,
    impersonation?: ImpersonationResult,
  ) => {
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
  };

  app.get(base, async (request: UidRequest, reply) => {
    const details = await interactionFor(request, reply);
    if (!details) return reply;
    const { uid } = details;
    const loginHint = typeof details.params.login_hint === "string" ? details.params.login_hint : undefined;
    return sendPage(
      reply,
      200,
      signInPage({
        action: paths(uid).login,
        signUpHref: paths(uid).signUp,
        supportHref: paths(uid).support,
        csrfToken: csrfToken(uid),
        email: loginHint,
      }),
    );
  });

  app.post(`${base}/login`, async (request: UidRequest, reply) => {
    const details = await interactionFor(request, reply);
    if (!details) return reply;
    const { uid } = details;
    const body = request.body ?? {};
    const email = (body.email ?? "").trim();
    const password = body.password ?? "";
    const page = (status: number, error: string) =>
      sendPage(
        reply,
        status,
        signInPage({
          action: paths(uid).login,
          signUpHref: paths(uid).signUp,
          supportHref: paths(uid).support,
          csrfToken: csrfToken(uid),
          email,
          error,
        }),
      );

    if (!csrfValid(uid, body.csrf)) return page(403, FORM_EXPIRED);
    const signIn = await authenticateWithinLimit(request, reply, email, password);
    if (!("user" in signIn)) return page(signIn.status, signIn.error);
    return finishWithLogin(request, reply, signIn.user.id);
  });

  app.get(`${base}/support`, async (request: UidRequest, reply) => {
    const details = await interactionFor(request, reply);
    if (!details) return reply;
    const { uid } = details;
    return sendPage(
      reply,
      200,
      supportPage({ action: paths(uid).support, signInHref: paths(uid).signIn, csrfToken: csrfToken(uid) }),
    );
  });

  app.post(`${base}/support`, async (request: UidRequest, reply) => {
    const details = await interactionFor(request, reply);
    if (!details) return reply;
    const { uid } = details;
    const body = request.body ?? {};
    const email = (body.email ?? "").trim();
    const customerEmail = (body.customer_email ?? "").trim();
    const password = body.password ?? "";
    const page = (status: number, error: string) =>
      sendPage(
        reply,
        status,
        supportPage({
          action: paths(uid).support,
          signInHref: paths(uid).signIn,
          csrfToken: csrfToken(uid),
          email,
          customerEmail,
          error,
        }),
      );

    if (!csrfValid(uid, body.csrf)) return page(403, FORM_EXPIRED);
    const signIn = await authenticateWithinLimit(request, reply, email, password);
    if (!("user" in signIn)) return page(signIn.status, signIn.error);
    const staff = signIn.user;
    const customer = customerEmail ? await findUserByEmail(o.db, customerEmail) : undefined;
    const check = mayImpersonate(staff, customer);
    if (!check.ok) return page(403, check.reason === "not_support_staff" ? NOT_SUPPORT_STAFF : SUPPORT_NOT_ALLOWED);
    request.log.info({ staffId: staff.id, userId: check.customer.id }, "remote support sign-in");
    return finishWithLogin(request, reply, check.customer.id, {
      impersonatorId: staff.id,
      impersonatorEmail: staff.email,
    });
  });

  app.get(`${base}/signup`, async (request: UidRequest, reply) => {
    const details = await interactionFor(request, reply);
    if (!details) return reply;
    const { uid } = details;
    return sendPage(
      reply,
      200,
      signUpPage({ action: paths(uid).signUp, signInHref: paths(uid).signIn, csrfToken: csrfToken(uid) }),
    );
  });

  app.post(`${base}/signup`, async (request: UidRequest, reply) => {
    const details = await interactionFor(request, reply);
    if (!details) return reply;
    const { uid } = details;
    const body = request.body ?? {};
    const values = {
      email: body.email ?? "",
      first_name: body.first_name ?? "",
      last_name: body.last_name ?? "",
      organization: body.organization ?? "",
    };
    const page = (status: number, errors: Partial<Record<SignUpField, string[]>>) =>
      sendPage(
        reply,
        status,
        signUpPage({
          action: paths(uid).signUp,
          signInHref: paths(uid).signIn,
          csrfToken: csrfToken(uid),
          values,
          errors,
        }),
      );

    if (!csrfValid(uid, body.csrf)) return page(403, { email: [FORM_EXPIRED] });
    const password = body.password ?? "";
    const errors: Partial<Record<SignUpField, string[]>> = {};
    const parsed = signUpSchema.safeParse({ ...values, password });
    for (const issue of parsed.error?.issues ?? []) {
      const field = issue.path[0] as SignUpField;
      // An empty email or no organization chosen is a missing field, not a malformed one.
      const missing = field === "organization" || (field === "email" && values.email.trim() === "");
      const message = missing ? REQUIRED_FIELD : issue.message;
      errors[field] = [...new Set([...(errors[field] ?? []), message])];
    }
    if (password !== (body.confirm_password ?? "")) errors.confirm_password = ["Passwords do not match"];
    if (!parsed.success || Object.keys(errors).length) return page(400, errors);

    // Accounts opened from one address are throttled (issue 23: 10 accounts in 3 s).
    const retryAfterMs = await o.limiter.signUpRetryAfterMs(request.ip);
    if (retryAfterMs > 0) {
      reply.header("Retry-After", Math.ceil(retryAfterMs / 1000));
      const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
      const message = `Too many accounts were opened from your address. Try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
      return page(429, { email: [message] });
    }
    const user = await createUser(o.db, parsed.data);
    if (!user) return page(409, { email: [EMAIL_TAKEN] });
    await o.limiter.recordSignUp(request.ip);
    request.log.info({ userId: user.id }, "new account signed up");
    return finishWithLogin(request, reply, user.id);
  });
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
