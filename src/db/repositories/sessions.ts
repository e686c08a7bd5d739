/**
 * Website sessions. The session id is a 256-bit random secret held only in the
 * browser's cookie; the table stores its SHA-256 (`id_hash`), so a stolen table opens no session.
 * Executor-first functions: pass the database or an open transaction.
 */
import type { Executor } from '../transaction.ts';

/** A live session joined with its user's name. Times are Unix seconds. */
export interface SessionRow {
  idHash: string;
  userId: number;
  username: string;
  /** the per-session CSRF secret (forms carry tokens derived from it, see src/web/csrf.ts) */
  csrfSecret: string;
  createdAt: number;
  expiresAt: number;
}

/** Inserts a session row. @throws a unique violation if `idHash` exists (never, for random ids). */
export async function insertSession(
  ex: Executor,
  s: { idHash: string; userId: number; csrfSecret: string; createdAt: number; expiresAt: number },
): Promise<void> {
  await ex
    .insertInto('sessions')
    .values({
      id_hash: s.idHash,
      user_id: s.userId,
      csrf_token: s.csrfSecret,
      created_at: s.createdAt,
      expires_at: s.expiresAt,
    })
    .execute();
}

/** The session with this id hash if it has not expired at `now`; undefined otherwise. */
export async function findLiveSession(ex: Executor, idHash: string, now: number): Promise<SessionRow | undefined> {
  const r = await ex
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id_hash',
      'sessions.user_id',
      'sessions.csrf_token',
      'sessions.created_at',
      'sessions.expires_at',
      'users.username',
    ])
    .where('sessions.id_hash', '=', idHash)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
  if (!r) return undefined;
  return {
    idHash: r.id_hash,
    userId: Number(r.user_id),
    username: r.username,
    csrfSecret: r.csrf_token,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  };
}

/** Deletes one session (log-out, or the old session at log-in). */
export async function deleteSession(ex: Executor, idHash: string): Promise<void> {
  await ex.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

/** Deletes a user's sessions that expired at or before `now` (tidied at each log-in); returns how many. */
export async function deleteExpiredSessions(ex: Executor, userId: number, now: number): Promise<number> {
  const r = await ex
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Deletes every session of a user (password reset), or every one but `exceptIdHash` (password
 * change: the session that made it stays); returns how many.
 */
export async function deleteSessionsOfUser(ex: Executor, userId: number, exceptIdHash?: string): Promise<number> {
  let q = ex.deleteFrom('sessions').where('user_id', '=', userId);
  if (exceptIdHash !== undefined) q = q.where('id_hash', '<>', exceptIdHash);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}
