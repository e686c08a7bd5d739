/**
 * Website sessions (issue 6): a random session id in an HttpOnly, SameSite=Lax cookie (Secure when
 * the site is https), stored hashed in `sessions` with a per-session CSRF secret. Log-in always
 * starts a NEW session (the old one, if any, is deleted: no session fixation); log-out deletes the
 * row and clears the cookie. Sessions last `SESSION_TTL` (Unix seconds in the row, checked on every
 * request against the injected clock).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import { deleteExpiredSessions, deleteSession, findLiveSession, insertSession } from '../db/repositories/sessions.ts';
import { inTransaction } from '../db/transaction.ts';
import type { Principal } from '../domain/records.ts';
import { SCOPES } from '../domain/scopes.ts';
import type { Services } from '../domain/services.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'tipjar_session';
/** Lifetime of a session: 14 days, in seconds. */
export const SESSION_TTL = 14 * 24 * 3600;

/** The logged-in visitor of a website request. */
export interface WebSession {
  idHash: string;
  userId: number;
  username: string;
  csrfSecret: string;
}

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
  if (!id || id.length > 200) return undefined;
  const row = await findLiveSession(s.database.db, hashSecret(id), s.clock.now());
  return row && { idHash: row.idHash, userId: row.userId, username: row.username, csrfSecret: row.csrfSecret };
}

/**
 * Starts a new session for `userId` (log-in, sign-up): deletes the request's current session row
 * if any and the user's expired ones, inserts a new one with a fresh id and CSRF secret (one
 * transaction), and sets the cookie.
 * @returns the new session (also stored on `request.webSession`).
 */
export async function startSession(
  s: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  user: { id: number; username: string },
  secure: boolean,
): Promise<WebSession> {
  const id = newSecret();
  const session: WebSession = {
    idHash: hashSecret(id),
    userId: user.id,
    username: user.username,
    csrfSecret: newSecret(),
  };
  const now = s.clock.now();
  const old = request.cookies[SESSION_COOKIE];
  await inTransaction(s.database, async (trx) => {
    if (old) await deleteSession(trx, hashSecret(old));
    await deleteExpiredSessions(trx, user.id, now);
    await insertSession(trx, {
      idHash: session.idHash,
      userId: user.id,
      csrfSecret: session.csrfSecret,
      createdAt: now,
      expiresAt: now + SESSION_TTL,
    });
  });
  reply.setCookie(SESSION_COOKIE, id, cookieOptions(secure, SESSION_TTL));
  request.webSession = session;
  return session;
}

/** Ends the request's session: deletes its row and clears the cookie. */
export async function endSession(
  s: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
): Promise<void> {
  const id = request.cookies[SESSION_COOKIE];
  if (id) await deleteSession(s.database.db, hashSecret(id));
  reply.clearCookie(SESSION_COOKIE, cookieOptions(secure));
  request.webSession = undefined;
}

/**
 * The principal a logged-in website user acts as when a page calls a domain service (e.g.
 * tipThing): every scope, no OAuth client, no token (`tokenId` 0).
 */
export function sessionPrincipal(session: WebSession): Principal {
  return { userId: session.userId, username: session.username, scopes: new Set(SCOPES), clientId: null, tokenId: 0 };
}
