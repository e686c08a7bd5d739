/**
 * Accounts on the website (issue 6): sign-up, log-in (rate limited), log-out. Passwords are hashed
 * with scrypt through the server's bounded queue (src/auth/passwords.ts: when it is full, 503
 * with `Retry-After` and the form again); a successful sign-up or log-in starts a NEW session (no
 * fixation) and goes to the requested same-site `return_to` path (no open redirect).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PasswordHashingBusyError } from '../../auth/passwords.ts';
import { DomainError } from '../../domain/errors.ts';
import { authenticateUser, registerUser } from '../../domain/users.ts';
import type { WebContext } from '../index.ts';
import { safeReturnPath } from '../return-path.ts';
import { endSession, startSession } from '../sessions.ts';
import { field, formOf, noticeOf } from './form.ts';

/** Longest password accepted, in characters (scrypt hashes any length; this bounds the work). */
export const MAX_PASSWORD_LENGTH = 1024;

/** Registers GET/POST /signup, GET/POST /login and POST /logout on the website plugin. */
export function accountRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;
  const returnOf = (source: Record<string, unknown>) => safeReturnPath(field(source, 'return_to'), ctx.config.siteUrl);
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
   * Success: the account (registerUser), a new session, 303 to return_to (or `/?done=welcome`).
   * Invalid input or a taken username: 400 with the form and the reason; nothing is written.
   * More than MAX_SIGNUPS_PER_IP accounts from the client IP in an hour: 429, nothing written.
   * Hashing queue full: 503 with `Retry-After` and the form, nothing written.
   */
  app.post('/signup', async (request, reply) => {
    const form = formOf(request);
    const returnTo = returnOf(form);
    const username = field(form, 'username').trim();
    const email = field(form, 'email').trim();
    const password = field(form, 'password');
    const again = (error: string, status = 400) => ctx.page(request, reply, './signup', { title: 'Sign up', returnTo, username, email, error }, status);
    const wait = await ctx.signups.blockedFor(request.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return again(`Too many accounts were created from your network in the last hour. Please try again in ${Math.ceil(wait / 60)} minutes.`, 429);
    }
    if (email === '') return again('Please enter your e-mail address.');
    if (password.length < 8) return again('The password must have at least 8 characters.');
    if (password.length > MAX_PASSWORD_LENGTH) return again(`The password must have at most ${MAX_PASSWORD_LENGTH} characters.`);
    let user;
    try {
      user = await registerUser(s, { username, email, password });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation') return again(err.message);
      if (err instanceof PasswordHashingBusyError) return again(busy(reply, err), 503);
      throw err;
    }
    await ctx.signups.created(request.ip);
    await startSession(s, request, reply, user, ctx.secure);
    return reply.code(303).redirect(returnTo === '/' ? '/?done=welcome' : returnTo);
  });

  /** GET /login — the log-in form (`?return_to=` kept); logged-in visitors go on to return_to. */
  app.get('/login', async (request, reply) => {
    const returnTo = returnOf(request.query as Record<string, unknown>);
    if (request.webSession) return reply.redirect(returnTo);
    return ctx.page(request, reply, './login', { title: 'Log in', returnTo, username: '', notice: noticeOf(request) });
  });

  /**
   * POST /login — fields username, password, return_to, _csrf.
   * Success: a NEW session (the previous one, if any, is deleted), 303 to return_to.
   * Wrong username or password: 401 with one message for both. After 10 failures in 15 minutes for
   * the username or the client IP: 429, every attempt refused (see login-limiter.ts).
   * Hashing queue full: 503 with `Retry-After` and the form; not counted as a failure.
   */
  app.post('/login', async (request, reply) => {
    const form = formOf(request);
    const returnTo = returnOf(form);
    const username = field(form, 'username').trim();
    const password = field(form, 'password');
    const again = (status: number, error: string) => ctx.page(request, reply, './login', { title: 'Log in', returnTo, username, error }, status);
    const wait = await ctx.limiter.blockedFor(username, request.ip);
    if (wait > 0) {
      const minutes = Math.ceil(wait / 60);
      return again(429, `Too many failed log-in attempts. For your safety, log-in is paused; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    }
    let user;
    try {
      user = password.length <= MAX_PASSWORD_LENGTH ? await authenticateUser(s, username, password) : undefined;
    } catch (err) {
      if (err instanceof PasswordHashingBusyError) return again(503, busy(reply, err));
      throw err;
    }
    if (!user) {
      await ctx.limiter.fail(username, request.ip);
      return again(401, 'Wrong username or password.');
    }
    await ctx.limiter.succeed(username);
    await startSession(s, request, reply, user, ctx.secure);
    return reply.code(303).redirect(returnTo);
  });

  /** POST /logout — deletes the session row, clears the cookie, 303 to `/login?done=loggedout`. */
  app.post('/logout', async (request, reply) => {
    await endSession(s, request, reply, ctx.secure);
    return reply.code(303).redirect('/login?done=loggedout');
  });
}
