/**
 * Accounts on the website: sign-up, log-in, log-out. Passwords are hashed with scrypt through the
 * server's bounded queue (src/auth/passwords.ts: when it is full, 503 with `Retry-After` and the
 * form again); a successful sign-up or log-in starts a NEW session (no fixation) and goes to the
 * requested same-site `return_to` path (no open redirect). Both forms are limited per client IP,
 * and log-ins by failures (src/web/limits.ts; docs/api.md "Website" → "Limits"): every refusal
 * is 429 with `Retry-After` and the form again.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PasswordHashingBusyError } from '../../auth/passwords.ts';
import { DomainError } from '../../domain/errors.ts';
import { authenticateUser, registerUser } from '../../domain/users.ts';
import { clientNetwork } from '../../ratelimit/limiter.ts';
import { minutesText, type WebContext } from '../context.ts';
import { usernameKey } from '../limits.ts';
import { safeReturnPath } from '../return-path.ts';
import { endSession, startSession } from '../sessions.ts';
import { field, formOf, noticeOf } from './form.ts';
import { redirectWithFlash } from '../flash.ts';

/** Registers GET/POST /signup, GET/POST /login and POST /logout on the website plugin. */
export function accountRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;
  const returnOf = (source: Record<string, unknown>) => safeReturnPath(field(source, 'return_to'), ctx.config.siteUrl);

  /**
   * Counts one password-form submission of the client's network.
   * @returns undefined when it may go on, else the seconds until the hour ends (it is refused).
   */
  const overFormLimit = async (request: FastifyRequest): Promise<number | undefined> => {
    const status = await ctx.limits.passwordForms.hit(clientNetwork(request.ip));
    return status.exceeded ? status.retryAfter : undefined;
  };
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

  /** GET /signup — the sign-up form (`?return_to=` kept); logged-in visitors go on to return_to. */
  app.get('/signup', async (request, reply) => {
    const returnTo = returnOf(request.query as Record<string, unknown>);
    if (request.webSession) return reply.redirect(returnTo);
    return ctx.page(request, reply, './signup', { title: 'Sign up', returnTo, username: '', email: '' });
  });

  /**
   * POST /signup — fields username, email, password (≥ 8 characters), return_to, _csrf.
   * Success: the account (registerUser), a new session, 303 to return_to (or `/` with the one-time notice `welcome`).
   * Invalid input or a taken username: 400 with the form and the reason; nothing is written.
   * Over RATE_LIMIT_PASSWORD_FORMS submissions or RATE_LIMIT_SIGNUPS accounts from the client IP
   * in the hour: 429 with `Retry-After`, nothing written. Hashing queue full: 503 with
   * `Retry-After`, nothing written. Refusals show the form again with the reason.
   */
  app.post('/signup', async (request, reply) => {
    const form = formOf(request);
    const returnTo = returnOf(form);
    const username = field(form, 'username').trim();
    const email = field(form, 'email').trim();
    const password = field(form, 'password');
    const again = (error: string, status = 400) =>
      ctx.page(request, reply, './signup', { title: 'Sign up', returnTo, username, email, error }, status);
    const network = clientNetwork(request.ip);
    const overForms = await overFormLimit(request);
    if (overForms !== undefined)
      return again(refusal(reply, overForms, 'Too many forms were sent from your network in the last hour.'), 429);
    const signups = await ctx.limits.signups.peek(network);
    if (signups.remaining === 0)
      return again(
        refusal(reply, signups.retryAfter, 'Too many accounts were created from your network in the last hour.'),
        429,
      );
    if (email === '') return again('Please enter your e-mail address.');
    let user;
    try {
      user = await registerUser(s, { username, email, password });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation') return again(err.message);
      if (err instanceof PasswordHashingBusyError) return again(busy(reply, err), 503);
      throw err;
    }
    await ctx.limits.signups.hit(network);
    await startSession(s, request, reply, user, ctx.secure);
    return redirectWithFlash(reply, returnTo, 'welcome', ctx.secure);
  });

  /** GET /login — the log-in form (`?return_to=` kept); logged-in visitors go on to return_to. */
  app.get('/login', async (request, reply) => {
    const returnTo = returnOf(request.query as Record<string, unknown>);
    if (request.webSession) return reply.redirect(returnTo);
    return ctx.page(request, reply, './login', { title: 'Log in', returnTo, username: '', notice: noticeOf(request) });
  });

  /**
   * POST /login — fields username, password, return_to, _csrf.
   * Success: a NEW session (the previous one, if any, is deleted), 303 to return_to; the failures
   * of (username, client IP) start again.
   * Wrong username or password: 401 with one message for both.
   * 429 with `Retry-After` and the form, the password not checked: over RATE_LIMIT_PASSWORD_FORMS
   * submissions from the client IP in the hour, or LOGIN_FAILURES_PER_USER_AND_IP failures of
   * (username, client IP) in the quarter hour, or LOGIN_FAILURES_PER_USER failures of the
   * username from all IPs in the hour (limits.ts). Hashing queue full: 503 with `Retry-After`.
   */
  app.post('/login', async (request, reply) => {
    const form = formOf(request);
    const returnTo = returnOf(form);
    const username = field(form, 'username').trim();
    const password = field(form, 'password');
    const again = (status: number, error: string) =>
      ctx.page(request, reply, './login', { title: 'Log in', returnTo, username, error }, status);
    const overForms = await overFormLimit(request);
    if (overForms !== undefined)
      return again(429, refusal(reply, overForms, 'Too many log-in attempts came from your network in the last hour.'));
    const account = usernameKey(username);
    const wait = await ctx.limits.logins.attempt(account, request.ip);
    if (wait > 0)
      return again(429, refusal(reply, wait, 'Too many failed log-in attempts. For your safety, log-in is paused.'));
    let user;
    try {
      user = await authenticateUser(s, username, password);
    } catch (err) {
      await ctx.limits.logins.undecided(account, request.ip);
      if (err instanceof PasswordHashingBusyError) return again(503, busy(reply, err));
      throw err;
    }
    if (!user) return again(401, 'Wrong username or password.');
    await ctx.limits.logins.succeeded(account, request.ip);
    await startSession(s, request, reply, user, ctx.secure);
    return reply.code(303).redirect(returnTo);
  });

  /** POST /logout — deletes the session row, clears the cookie, 303 to `/login` with the one-time notice `loggedout`. */
  app.post('/logout', async (request, reply) => {
    await endSession(s, request, reply, ctx.secure);
    return redirectWithFlash(reply, '/login', 'loggedout', ctx.secure);
  });
}
