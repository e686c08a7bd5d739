/**
 * Address verification on the website (src/domain/verification.ts): the page a verification link
 * opens, and the form that sends a new link. Links are single-use and work 24 hours; until the
 * address is verified the account cannot claim `email:` identities (the claim page says so and
 * offers the same form).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../domain/errors.ts';
import type { Services } from '../../domain/services.ts';
import { getUserById } from '../../domain/users.ts';
import { isEmailVerified, resendVerification, verifyEmail, type VerifyOutcome } from '../../domain/verification.ts';
import { clientNetwork } from '../../ratelimit/limiter.ts';
import { minutesText, type WebContext } from '../context.ts';
import { VERIFICATION_MAILS_PER_HOUR } from '../limits.ts';
import { safeReturnPath } from '../return-path.ts';
import { field, formOf, toLogin } from './form.ts';
import { redirectWithFlash } from '../flash.ts';

/** Where the resend form goes back to when it names no `return_to`. */
const DEFAULT_RETURN = '/settings';

/** HTTP status of the verification page per outcome. */
const STATUS: Record<VerifyOutcome['status'], number> = {
  verified: 200,
  already: 410,
  used: 410,
  expired: 410,
  superseded: 410,
  unknown: 400,
};

/** The logged-in user, or undefined when nobody is logged in or the session's user is gone. */
async function viewerOf(s: Services, request: FastifyRequest) {
  if (!request.webSession) return undefined;
  return getUserById(s, request.webSession.userId).catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  });
}

/** Registers GET /verify-email/:token and POST /verify-email/resend on the website plugin. */
export function verifyRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /**
   * GET /verify-email/:token — follows a verification link, logged in or not. A live link for the
   * account's current address verifies it: 200 "Your address <x> is verified". A link used already
   * (a second click), past its 24 hours, or sent for an address the account no longer has: 410; an
   * unknown or malformed link: 400. Those pages offer a new link to a logged-in visitor whose
   * address is not verified, and a log-in link to others.
   */
  app.get<{ Params: { token: string } }>('/verify-email/:token', async (request, reply) => {
    const outcome = await verifyEmail(s, request.params.token);
    const viewer = await viewerOf(s, request);
    const canResend = viewer !== undefined && viewer.email !== '' && !isEmailVerified(viewer);
    return ctx.page(
      request,
      reply,
      './verify-email',
      {
        title: outcome.status === 'verified' || outcome.status === 'already' ? 'Address verified' : 'Link not valid',
        state: outcome.status,
        address: 'address' in outcome ? outcome.address : '',
        username: 'username' in outcome ? outcome.username : '',
        loggedIn: viewer !== undefined,
        canResend,
        viewerAddress: viewer?.email ?? '',
        returnTo: DEFAULT_RETURN,
        loginPath: `/login?return_to=${encodeURIComponent(DEFAULT_RETURN)}`,
      },
      STATUS[outcome.status],
    );
  });

  /**
   * POST /verify-email/resend — fields return_to (a same-site path; default /settings), _csrf.
   * Log-in required. Queues a new verification link for the user's current address when it is not
   * verified, then 303 to return_to with the one-time notice `verify-sent` (or `verify-done` when it is verified
   * already, `verify-none` without an address; nothing sent). Over RATE_LIMIT_PASSWORD_FORMS forms
   * from the client's network (counted with log-in and sign-up), or VERIFICATION_MAILS_PER_HOUR
   * links sent for the account in the hour: 429 with `Retry-After`, nothing sent.
   */
  app.post('/verify-email/resend', async (request, reply) => {
    const form = formOf(request);
    const raw = field(form, 'return_to');
    const returnTo = raw === '' ? DEFAULT_RETURN : safeReturnPath(raw, ctx.config.siteUrl);
    if (!request.webSession) return toLogin(request, reply, returnTo);
    const refuse = (wait: number, what: string) => {
      reply.header('retry-after', String(wait));
      return ctx.page(
        request,
        reply,
        './verify-email',
        {
          title: 'Too many requests',
          state: 'limited',
          message: `${what} Please try again in ${minutesText(wait)}.`,
          returnTo,
        },
        429,
      );
    };
    const forms = await ctx.limits.passwordForms.hit(clientNetwork(request.ip));
    if (forms.exceeded) return refuse(forms.retryAfter, 'Too many forms were sent from your network in the last hour.');
    const account = String(request.webSession.userId);
    const mails = await ctx.limits.verificationMails.hit(account);
    if (mails.exceeded)
      return refuse(
        mails.retryAfter,
        `A new link was sent ${VERIFICATION_MAILS_PER_HOUR} times in the last hour; the latest ones still work.`,
      );
    const r = await resendVerification(s, request.webSession.userId);
    if (r.status !== 'queued') await ctx.limits.verificationMails.refund(account);
    const done = r.status === 'queued' ? 'verify-sent' : r.status === 'verified' ? 'verify-done' : 'verify-none';
    return redirectWithFlash(reply.header('cache-control', 'no-store'), returnTo, done, ctx.secure);
  });
}
