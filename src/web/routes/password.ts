/**
 * Credentials on the website (src/domain/credentials.ts): "Forgot your password?" with a reset link
 * by e-mail, the reset page, and the settings' "Change password" and "Change e-mail" forms.
 *
 * Every form is CSRF-protected (the website's preHandler), posts and redirects (303), and on a
 * refusal shows its page again with the reason. Limits (src/web/limits.ts; docs/api.md "Website"
 * → "Limits"), each a 429 with `Retry-After`:
 * - every form here counts against the client IP's RATE_LIMIT_PASSWORD_FORMS, with log-in and sign-up;
 * - reset requests: PASSWORD_RESETS_PER_ADDRESS per address per hour, counted alike whether or
 *   not an account has the address;
 * - the settings forms: ACCOUNT_FORMS_PER_USER per account per hour, and their current password is
 *   checked under the log-in failure limits of the account's username (a wrong one is a failure).
 * A full password-hashing queue answers 503 with `Retry-After`, nothing written.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PasswordHashingBusyError } from '../../auth/passwords.ts';
import {
  changeEmail,
  changePassword,
  DeadResetLinkError,
  findPasswordReset,
  parseEmail,
  requestPasswordReset,
  resetPassword,
  WrongPasswordError,
} from '../../domain/credentials.ts';
import { DomainError } from '../../domain/errors.ts';
import { clientNetwork } from '../../ratelimit/limiter.ts';
import { minutesText, type WebContext } from '../context.ts';
import { addressKey, usernameKey } from '../limits.ts';
import { startSession } from '../sessions.ts';
import { field, formOf, noticeOf, toLogin } from './form.ts';
import { renderSettings } from './settings.ts';
import { redirectWithFlash } from '../flash.ts';

/** Registers GET/POST /password/forgot, GET/POST /password/reset/:token, POST /settings/password and POST /settings/email. */
export function passwordRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /** Sets `Retry-After` and returns the message of a refusal for `wait` seconds. */
  const refusal = (reply: FastifyReply, wait: number, what: string) => {
    reply.header('retry-after', String(wait));
    return `${what} Please try again in ${minutesText(wait)}.`;
  };
  /** Sets `Retry-After` and returns the message of a 503 (the hashing queue is full). */
  const busy = (reply: FastifyReply, err: PasswordHashingBusyError) => {
    reply.header('retry-after', String(err.retryAfter));
    return `The server is busy checking other passwords. Please send the form again in ${err.retryAfter} second${err.retryAfter === 1 ? '' : 's'}.`;
  };
  /** Counts a submission from the client's network; the wait in seconds when it is over the limit. */
  const overFormLimit = async (request: FastifyRequest): Promise<number | undefined> => {
    const status = await ctx.limits.passwordForms.hit(clientNetwork(request.ip));
    return status.exceeded ? status.retryAfter : undefined;
  };
  const tokenOf = (request: FastifyRequest) => (request.params as { token: string }).token;

  const forgotPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { email: string; error?: string },
    status = 200,
  ) =>
    ctx.page(
      request,
      reply,
      './password-forgot',
      { title: 'Forgot your password?', notice: noticeOf(request), ...data },
      status,
    );

  /** GET /password/forgot — the form (field `email`); after a request, the one-time notice `reset-sent` shows what happened. */
  app.get('/password/forgot', async (request, reply) => forgotPage(request, reply, { email: '' }));

  /**
   * POST /password/forgot — fields email, _csrf. Queues a reset link for every live account with the
   * address (trimmed, case-insensitive; src/domain/credentials.ts requestPasswordReset) and answers
   * 303 to `/password/forgot` with the one-time notice `reset-sent` whether or not any account has it (no enumeration).
   * Empty or malformed address: 400 with the form. Over RATE_LIMIT_PASSWORD_FORMS from the client
   * IP, or PASSWORD_RESETS_PER_ADDRESS for the address (any address alike): 429 with
   * `Retry-After` and the form; nothing queued.
   */
  app.post('/password/forgot', async (request, reply) => {
    const typed = field(formOf(request), 'email');
    const again = (error: string, status: number) => forgotPage(request, reply, { email: typed.trim(), error }, status);
    const overForms = await overFormLimit(request);
    if (overForms !== undefined)
      return again(refusal(reply, overForms, 'Too many forms were sent from your network in the last hour.'), 429);
    let address;
    try {
      address = parseEmail(typed);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation') return again(err.message, 400);
      throw err;
    }
    const perAddress = await ctx.limits.passwordResets.hit(addressKey(address));
    if (perAddress.exceeded)
      return again(
        refusal(reply, perAddress.retryAfter, 'Too many password resets were asked for this address in the last hour.'),
        429,
      );
    await requestPasswordReset(s, address);
    return redirectWithFlash(reply, '/password/forgot', 'reset-sent', ctx.secure);
  });

  const resetPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    username: string | undefined,
    error?: string,
    status = 200,
  ) =>
    ctx.page(
      request,
      reply,
      './password-reset',
      {
        title: username ? 'Choose a new password' : 'This link has expired',
        live: username !== undefined,
        username: username ?? '',
        action: `/password/reset/${encodeURIComponent(tokenOf(request))}`,
        error,
      },
      status,
    );

  /**
   * GET /password/reset/:token — the new-password form (field `password`) when the link works; else
   * 404 with a page saying the link expired or was used, linking to /password/forgot. Uses nothing:
   * mail scanners that fetch the link do not spend it.
   */
  app.get('/password/reset/:token', async (request, reply) => {
    const reset = await findPasswordReset(s, tokenOf(request));
    return reset ? resetPage(request, reply, reset.username) : resetPage(request, reply, undefined, undefined, 404);
  });

  /**
   * POST /password/reset/:token — fields password (8–1024 characters), _csrf. Success: in one
   * transaction the link is used (once: a second use or a racing one fails), the password set, the
   * account's other reset links and EVERY session of the account ended (and the address marked
   * verified if the link went to the current address); then a new session is started here and the
   * answer is 303 to `/settings` with the one-time notice `password`. Link expired or used: 404 with the page that says so.
   * Bad length: 400 with the form. Over RATE_LIMIT_PASSWORD_FORMS from the client IP: 429 with
   * `Retry-After`. Hashing queue full: 503 with `Retry-After`. Nothing is written on a refusal.
   */
  app.post('/password/reset/:token', async (request, reply) => {
    const token = tokenOf(request);
    const overForms = await overFormLimit(request);
    if (overForms !== undefined) {
      const reset = await findPasswordReset(s, token);
      const why = refusal(reply, overForms, 'Too many forms were sent from your network in the last hour.');
      return resetPage(request, reply, reset?.username, why, 429);
    }
    let user;
    try {
      user = await resetPassword(s, token, field(formOf(request), 'password'));
    } catch (err) {
      if (err instanceof DeadResetLinkError) return resetPage(request, reply, undefined, undefined, 404);
      if (err instanceof DomainError && err.code === 'validation') {
        const reset = await findPasswordReset(s, token);
        return resetPage(request, reply, reset?.username, err.message, 400);
      }
      if (err instanceof PasswordHashingBusyError) {
        const reset = await findPasswordReset(s, token);
        return resetPage(request, reply, reset?.username, busy(reply, err), 503);
      }
      throw err;
    }
    await startSession(s, request, reply, user, ctx.secure);
    return redirectWithFlash(reply, '/settings', 'password', ctx.secure);
  });

  /**
   * The steps both settings forms share: the per-IP and per-account limits, then `change` under the
   * log-in failure limits of the account, then 303 to `/settings` with the one-time notice `<done>`. Refusals re-render
   * the settings page with the reason: 429 (limits, `Retry-After`), 400 (bad input: the current
   * password is then not checked and not counted), 403 (wrong current password: counted as a
   * failed log-in), 503 (hashing queue full, `Retry-After`).
   */
  const settingsForm =
    (
      done: string,
      change: (request: FastifyRequest, session: NonNullable<FastifyRequest['webSession']>) => Promise<unknown>,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const session = request.webSession;
      if (!session) return toLogin(request, reply, '/settings');
      const email = done === 'email' ? field(formOf(request), 'email').trim() : '';
      const again = (error: string, status: number) =>
        renderSettings(ctx, request, reply, session.userId, { error, email }, status);
      const overForms = await overFormLimit(request);
      if (overForms !== undefined)
        return again(refusal(reply, overForms, 'Too many forms were sent from your network in the last hour.'), 429);
      const perAccount = await ctx.limits.accountForms.hit(String(session.userId));
      if (perAccount.exceeded)
        return again(
          refusal(reply, perAccount.retryAfter, 'Too many changes to your password or address in the last hour.'),
          429,
        );
      const account = usernameKey(session.username);
      const wait = await ctx.limits.logins.attempt(account, request.ip);
      if (wait > 0)
        return again(
          refusal(reply, wait, 'Too many wrong passwords. For your safety, password checks are paused.'),
          429,
        );
      try {
        await change(request, session);
      } catch (err) {
        if (err instanceof WrongPasswordError) return again(err.message, 403);
        await ctx.limits.logins.undecided(account, request.ip);
        if (err instanceof DomainError && err.code === 'validation') return again(err.message, 400);
        if (err instanceof PasswordHashingBusyError) return again(busy(reply, err), 503);
        throw err;
      }
      await ctx.limits.logins.succeeded(account, request.ip);
      return redirectWithFlash(reply, '/settings', done, ctx.secure);
    };

  /**
   * POST /settings/password — fields current_password, password (8–1024 characters), _csrf. Log-in
   * required. Success: the new password is set, every OTHER session of the account and its open
   * reset links end (this session stays), 303 to `/settings` with the one-time notice `password`. Refusals: see settingsForm.
   */
  app.post(
    '/settings/password',
    settingsForm('password', (request, session) => {
      const form = formOf(request);
      return changePassword(s, {
        userId: session.userId,
        currentPassword: field(form, 'current_password'),
        newPassword: field(form, 'password'),
        keepSessionIdHash: session.idHash,
      });
    }),
  );

  /**
   * POST /settings/email — fields email, current_password, _csrf. Log-in required. Success: the new
   * address is set unverified, a verification link is queued to it and an `email_changed` message
   * to the old address, in one transaction; 303 to `/settings` with the one-time notice `email`. An invalid address, or
   * the current one: 400. Other refusals: see settingsForm.
   */
  app.post(
    '/settings/email',
    settingsForm('email', (request, session) => {
      const form = formOf(request);
      return changeEmail(s, {
        userId: session.userId,
        currentPassword: field(form, 'current_password'),
        email: field(form, 'email'),
      });
    }),
  );
}
