/**
 * Website sessions: a random session id (256 bits) known only to the browser, stored
 * hashed (`sessions.id_hash`) with a per-session CSRF secret. Log-in always starts a NEW session
 * (the old one, if any, is deleted: no session fixation); sessions last SESSION_TTL, checked on
 * every request against the service clock. The cookie that carries the id is the website's
 * (src/web/sessions.ts).
 */
import { deleteExpiredSessions, deleteSession, findLiveSession, insertSession } from '../db/repositories/sessions.ts';
import { inTransaction } from '../db/transaction.ts';
import type { Principal } from '../domain/records.ts';
import { SCOPES } from '../domain/scopes.ts';
import type { Services } from '../domain/services.ts';
import { hashSecret, newSecret } from './secrets.ts';

/** Lifetime of a session: 14 days, in seconds. */
export const SESSION_TTL = 14 * 24 * 3600;

/** A live session: who is logged in, and the secret the session's CSRF tokens derive from. */
export interface Session {
  /** SHA-256 of the session id, hex (what is stored) */
  idHash: string;
  userId: number;
  username: string;
  csrfSecret: string;
}

/** Longest session id looked up (ids are 43 characters; anything much longer is not one). */
const MAX_SESSION_ID_LENGTH = 200;

/** The session with this id, if it exists and has not expired by the service clock. */
export async function findSession(s: Services, sessionId: string): Promise<Session | undefined> {
  if (!sessionId || sessionId.length > MAX_SESSION_ID_LENGTH) return undefined;
  const row = await findLiveSession(s.database.db, hashSecret(sessionId), s.clock.now());
  return row && { idHash: row.idHash, userId: row.userId, username: row.username, csrfSecret: row.csrfSecret };
}

/**
 * Starts a new session for `user` (log-in, sign-up), in one transaction: deletes the session it
 * replaces (`replacing`, the id the browser held, if any) and the user's expired ones, and stores
 * a new one with a fresh id and CSRF secret, valid SESSION_TTL seconds.
 * @returns the new session id (for the cookie; shown nowhere else) and the session.
 */
export async function startSession(
  s: Services,
  user: { id: number; username: string },
  replacing?: string,
): Promise<{ sessionId: string; session: Session }> {
  const sessionId = newSecret();
  const session: Session = {
    idHash: hashSecret(sessionId),
    userId: user.id,
    username: user.username,
    csrfSecret: newSecret(),
  };
  const now = s.clock.now();
  await inTransaction(s.database, async (trx) => {
    if (replacing) await deleteSession(trx, hashSecret(replacing));
    await deleteExpiredSessions(trx, user.id, now);
    await insertSession(trx, {
      idHash: session.idHash,
      userId: user.id,
      csrfSecret: session.csrfSecret,
      createdAt: now,
      expiresAt: now + SESSION_TTL,
    });
  });
  return { sessionId, session };
}

/** Ends the session with this id (log-out); nothing happens for an unknown id. */
export async function endSession(s: Services, sessionId: string): Promise<void> {
  await deleteSession(s.database.db, hashSecret(sessionId));
}

/**
 * The principal a logged-in website user acts as when a page calls a domain service (e.g.
 * tipThing): every scope, no OAuth client, no token (`tokenId` 0).
 */
export function sessionPrincipal(session: Pick<Session, 'userId' | 'username'>): Principal {
  return { userId: session.userId, username: session.username, scopes: new Set(SCOPES), clientId: null, tokenId: 0 };
}
