/**
 * CSRF protection for every website form, with `@fastify/csrf` tokens (docs/adr).
 * The secret is the session's (`sessions.csrf_token`, new at every log-in) for a logged-in visitor,
 * or, before log-in (sign-up, log-in forms), a random secret in an HttpOnly, SameSite=Lax cookie.
 * Each form carries a salted token derived from the secret in the hidden field `_csrf`; a POST
 * whose token is missing or does not match the current secret is refused with 403 before the
 * route runs, so nothing changes. A route whose URL carries its own credential opts out with
 * `config: { csrf: false }` (needsCsrf).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import Tokens from '@fastify/csrf';
import { cookieOptions } from './sessions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: a POST to this route needs no CSRF token, because the route's own credential is in
     * its URL (a one-click unsubscription link, RFC 8058: mail clients post it without cookies).
     */
    csrf?: boolean;
  }
}

/** Cookie holding the CSRF secret of a visitor who is not logged in. */
export const CSRF_COOKIE = 'tipjar_csrf';
/** The form field carrying the token. */
export const CSRF_FIELD = '_csrf';

const tokens = Tokens();

/** A refused form: 403, rendered as a page by the website's error handler. */
export class CsrfError extends Error {
  readonly statusCode = 403;
  constructor() {
    super('This form has expired or did not come from this site. Go back, reload the page and try again.');
    this.name = 'CsrfError';
  }
}

function currentSecret(request: FastifyRequest): string | undefined {
  return request.webSession?.csrfSecret ?? request.cookies[CSRF_COOKIE];
}

/**
 * A fresh token for the forms of the page being rendered. For a visitor without a session and
 * without a CSRF cookie, creates the secret and sets the cookie.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const current = currentSecret(request);
  if (current) return tokens.create(current);
  const secret = tokens.secretSync();
  reply.setCookie(CSRF_COOKIE, secret, cookieOptions(secure));
  request.cookies[CSRF_COOKIE] = secret;
  return tokens.create(secret);
}

/** Whether a POST to the request's route must carry a CSRF token: every form, but routes configured `csrf: false`. */
export function needsCsrf(request: FastifyRequest): boolean {
  return request.routeOptions.config.csrf !== false;
}

/** Checks the `_csrf` field of a form POST. @throws CsrfError when missing or wrong. */
export function checkCsrf(request: FastifyRequest): void {
  const body = request.body as Record<string, unknown> | undefined;
  const token = body && typeof body === 'object' ? body[CSRF_FIELD] : undefined;
  const secret = currentSecret(request);
  if (typeof token !== 'string' || !secret || !tokens.verify(secret, token)) throw new CsrfError();
}
