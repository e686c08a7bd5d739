/**
 * The website's session cookie: the session id (src/auth/sessions.ts) in an HttpOnly,
 * SameSite=Lax cookie (Secure when the site is https). Log-in always starts a NEW session (no
 * session fixation); log-out ends it and clears the cookie.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../domain/services.ts';
import {
  endSession as endStoredSession,
  findSession,
  SESSION_TTL,
  startSession as startStoredSession,
  type Session,
} from '../auth/sessions.ts';

export { SESSION_TTL, sessionPrincipal } from '../auth/sessions.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'tipjar_session';
/** The logged-in visitor of a website request. */
export type WebSession = Session;

declare module 'fastify' {
  interface FastifyRequest {
    /** the visitor's live session, set by the website's preHandler; undefined when logged out */
    webSession: WebSession | undefined;
  }
}

/** Cookie attributes shared by the website's cookies. */
export function cookieOptions(secure: boolean, maxAgeSeconds?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure,
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** The session named by the request's cookie, if it exists and has not expired. */
export async function loadSession(s: Services, request: FastifyRequest): Promise<WebSession | undefined> {
  const id = request.cookies[SESSION_COOKIE];
  return id ? findSession(s, id) : undefined;
}

/**
 * Starts a new session for `user` (log-in, sign-up), replacing the request's current one if any
 * (src/auth/sessions.ts startSession), and sets the cookie.
 * @returns the new session (also stored on `request.webSession`).
 */
export async function startSession(
  s: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  user: { id: number; username: string },
  secure: boolean,
): Promise<WebSession> {
  const { sessionId, session } = await startStoredSession(s, user, request.cookies[SESSION_COOKIE]);
  reply.setCookie(SESSION_COOKIE, sessionId, cookieOptions(secure, SESSION_TTL));
  request.webSession = session;
  return session;
}

/** Ends the request's session: deletes it and clears the cookie. */
export async function endSession(
  s: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
): Promise<void> {
  const id = request.cookies[SESSION_COOKIE];
  if (id) await endStoredSession(s, id);
  reply.clearCookie(SESSION_COOKIE, cookieOptions(secure));
  request.webSession = undefined;
}
