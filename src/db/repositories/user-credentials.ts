/**
 * Users' credentials: the password hash and the e-mail address with its verification, and finding
 * live accounts by address. Executor-first functions: pass the database or an open transaction.
 * Times are Unix seconds.
 */
import { sql } from 'kysely';
import type { UserRecord } from '../../domain/records.ts';
import type { Executor } from '../transaction.ts';
import { toUserRecord } from './users.ts';

/**
 * The live (not deleted) users whose address equals `address` case-insensitively (SQL `lower()`
 * on both sides: every letter on PostgreSQL, ASCII letters on SQLite), oldest first; an index
 * lookup (users_email_lower). An empty address matches no one.
 */
export async function findLiveUsersByAddress(ex: Executor, address: string): Promise<UserRecord[]> {
  if (address === '' || address.includes('\u0000')) return [];
  const rows = await ex
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', sql<string>`lower(${address})`)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map(toUserRecord);
}

/** Sets a user's password hash (the stored scrypt form) and `updated_at`. @returns false for an unknown user. */
export async function setPasswordHash(
  ex: Executor,
  userId: number,
  passwordHash: string,
  now: number,
): Promise<boolean> {
  const r = await ex
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Sets a user's address (already validated) as unverified (`email_verified_at` null) and `updated_at`.
 * @returns false for an unknown user.
 */
export async function setUnverifiedAddress(ex: Executor, userId: number, email: string, now: number): Promise<boolean> {
  const r = await ex
    .updateTable('users')
    .set({ email, email_verified_at: null, updated_at: now })
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Marks the user's address verified at `now`, if it is still exactly `address` and not verified yet.
 * @returns whether it was marked now.
 */
export async function markAddressVerified(
  ex: Executor,
  userId: number,
  address: string,
  now: number,
): Promise<boolean> {
  const r = await ex
    .updateTable('users')
    .set({ email_verified_at: now })
    .where('id', '=', userId)
    .where('email', '=', address)
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
