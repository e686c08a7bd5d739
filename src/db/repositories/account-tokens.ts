/**
 * Single-use account tokens (account_tokens): address verification, password reset, notice
 * unsubscription. Only the SHA-256 of a token is stored; the token itself is in the link sent.
 */
import type { Selectable } from 'kysely';
import type { AccountTokensTable } from '../schema.ts';
import type { Executor } from '../transaction.ts';

export type AccountTokenPurpose = 'verify_email' | 'password_reset' | 'unsubscribe';

export interface AccountTokenRecord {
  id: number;
  purpose: AccountTokenPurpose;
  userId: number;
  /**
   * verify_email: the address being verified; password_reset: the address the link was sent to;
   * unsubscribe: the notice it turns off
   */
  detail: string;
  /** Unix seconds */
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

const toAccountToken = (r: Selectable<AccountTokensTable>): AccountTokenRecord => ({
  id: r.id,
  purpose: r.purpose as AccountTokenPurpose,
  userId: r.user_id,
  detail: r.detail,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
});

/** Stores a token (by its hash). */
export async function insertAccountToken(
  ex: Executor,
  t: {
    tokenHash: string;
    purpose: AccountTokenPurpose;
    userId: number;
    detail: string;
    now: number;
    expiresAt: number;
  },
): Promise<void> {
  await ex
    .insertInto('account_tokens')
    .values({
      token_hash: t.tokenHash,
      purpose: t.purpose,
      user_id: t.userId,
      detail: t.detail,
      created_at: t.now,
      expires_at: t.expiresAt,
    })
    .execute();
}

/** Stores many tokens (by their hashes) in multi-row statements. */
export async function insertAccountTokens(
  ex: Executor,
  tokens: { tokenHash: string; purpose: AccountTokenPurpose; userId: number; detail: string; expiresAt: number }[],
  now: number,
): Promise<void> {
  for (let i = 0; i < tokens.length; i += 500) {
    await ex
      .insertInto('account_tokens')
      .values(
        tokens.slice(i, i + 500).map((t) => ({
          token_hash: t.tokenHash,
          purpose: t.purpose,
          user_id: t.userId,
          detail: t.detail,
          created_at: now,
          expires_at: t.expiresAt,
        })),
      )
      .execute();
  }
}

/**
 * The live token with this hash and purpose: not used, not expired at `now`.
 * @returns undefined when there is none.
 */
export async function findLiveAccountToken(
  ex: Executor,
  tokenHash: string,
  purpose: AccountTokenPurpose,
  now: number,
): Promise<AccountTokenRecord | undefined> {
  const r = await ex
    .selectFrom('account_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return r && toAccountToken(r);
}

/**
 * The token with this hash and purpose whatever its state (live, used or expired), so a page can
 * say which; undefined when there is none.
 */
export async function findAccountToken(
  ex: Executor,
  tokenHash: string,
  purpose: AccountTokenPurpose,
): Promise<AccountTokenRecord | undefined> {
  const r = await ex
    .selectFrom('account_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .executeTakeFirst();
  return r && toAccountToken(r);
}

/**
 * Marks a live token used, in one statement (two requests racing with one token: one wins).
 * @returns true when this call used it; false when it was used, expired or unknown.
 */
export async function useAccountToken(ex: Executor, id: number, now: number): Promise<boolean> {
  const r = await ex
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Ends every live token of a user for `purpose` (e.g. older reset links once one is used). */
export async function expireAccountTokens(
  ex: Executor,
  userId: number,
  purpose: AccountTokenPurpose,
  now: number,
): Promise<void> {
  await ex
    .updateTable('account_tokens')
    .set({ expires_at: now })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
}

/** Deletes every token of a user (account deletion). */
export async function deleteAccountTokensOf(ex: Executor, userId: number): Promise<void> {
  await ex.deleteFrom('account_tokens').where('user_id', '=', userId).execute();
}
