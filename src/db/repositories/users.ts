/** Users table access. Executor-first functions: pass the database or an open transaction. */
import type { Selectable } from 'kysely';
import type { Executor } from '../transaction.ts';
import { precompiled } from '../precompiled.ts';
import type { UsersTable } from '../schema.ts';
import type { NoticeKind, UserRecord } from '../../domain/records.ts';

export function toUserRecord(r: Selectable<UsersTable>): UserRecord {
  return {
    id: r.id,
    username: r.username,
    email: r.email,
    firstname: r.firstname,
    lastname: r.lastname,
    avatar: r.avatar,
    about: r.about,
    city: r.city,
    country: r.country,
    url: r.url,
    registeredAt: r.registered_at,
    balanceCents: r.balance_cents,
    budgetCents: r.budget_cents,
    hideTips: r.hide_tips === 1,
    emailVerifiedAt: r.email_verified_at,
    deletedAt: r.deleted_at ?? null,
    notices: {
      receipt: r.notice_receipt === 1,
      renewal_skipped: r.notice_renewal === 1,
      thing_created: r.notice_thing === 1,
      application_authorized: r.notice_application === 1,
    },
  };
}

/** Finds a user by username, case-insensitively; undefined when there is none. */
export async function findUserByUsername(ex: Executor, username: string): Promise<UserRecord | undefined> {
  // No username holds NUL, and PostgreSQL refuses it in a text parameter (a 500 otherwise).
  if (username.includes('\u0000')) return undefined;
  const r = await ex
    .selectFrom('users')
    .selectAll()
    .where('username_key', '=', username.toLowerCase())
    .executeTakeFirst();
  return r && toUserRecord(r);
}

export async function findUserById(ex: Executor, id: number): Promise<UserRecord | undefined> {
  const r = await ex.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toUserRecord(r);
}

export async function findUsersByIds(ex: Executor, ids: number[]): Promise<Map<number, UserRecord>> {
  const out = new Map<number, UserRecord>();
  if (ids.length === 0) return out;
  const rows = await ex
    .selectFrom('users')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute();
  for (const r of rows) out.set(r.id, toUserRecord(r));
  return out;
}

export interface NewUser {
  username: string;
  email: string;
  passwordHash: string | null;
  registeredAt: number;
}

/** Inserts a user. @throws a unique violation when the username is taken (see isUniqueViolation). */
export async function insertUser(ex: Executor, u: NewUser): Promise<number> {
  const r = await ex
    .insertInto('users')
    .values({
      username: u.username,
      username_key: u.username.toLowerCase(),
      email: u.email,
      password_hash: u.passwordHash,
      registered_at: u.registeredAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** A user's money as the tip and settlement checks read it, in cents. */
export interface Means {
  balanceCents: number;
  /** the monthly budget setting */
  budgetCents: number;
  /** the budget fixed for the period asked at the user's first tip in it; null before that tip */
  periodBudgetCents: number | null;
}

const meansStatement = precompiled((ex: Executor, userId: number, period: string) =>
  ex
    .selectFrom('users')
    .leftJoin('period_budgets', (join) =>
      join.onRef('period_budgets.user_id', '=', 'users.id').on('period_budgets.period', '=', period),
    )
    .select(['users.balance_cents', 'users.budget_cents', 'period_budgets.budget_cents as period_budget_cents'])
    .where('users.id', '=', userId),
);

/** The means of a user in `period` ('YYYY-MM') (DECISIONS.md "Money"), or undefined for an unknown user. */
export async function findMeans(ex: Executor, userId: number, period: string): Promise<Means | undefined> {
  const [r] = await meansStatement(ex, userId, period);
  return r && { balanceCents: r.balance_cents, budgetCents: r.budget_cents, periodBudgetCents: r.period_budget_cents };
}

/**
 * The means of many users in `period` ('YYYY-MM'), by user id (unknown ids are left out): one
 * query per 500 ids, for pages that add up many tippers (the earnings estimate).
 */
export async function findMeansOfUsers(ex: Executor, userIds: number[], period: string): Promise<Map<number, Means>> {
  const out = new Map<number, Means>();
  const ids = [...new Set(userIds)];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await ex
      .selectFrom('users')
      .leftJoin('period_budgets', (join) =>
        join.onRef('period_budgets.user_id', '=', 'users.id').on('period_budgets.period', '=', period),
      )
      .select([
        'users.id',
        'users.balance_cents',
        'users.budget_cents',
        'period_budgets.budget_cents as period_budget_cents',
      ])
      .where('users.id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const r of rows)
      out.set(r.id, {
        balanceCents: r.balance_cents,
        budgetCents: r.budget_cents,
        periodBudgetCents: r.period_budget_cents,
      });
  }
  return out;
}

const fixPeriodBudgetStatement = precompiled(
  (ex: Executor, userId: number, period: string, budgetCents: number, now: number) =>
    ex
      .insertInto('period_budgets')
      .values({ user_id: userId, period, budget_cents: budgetCents, fixed_at: now })
      .onConflict((oc) => oc.columns(['user_id', 'period']).doNothing()),
);

/**
 * Fixes a user's budget for `period` at `budgetCents` (cents; `now` in Unix seconds), unless it is
 * fixed already: the first tip of the period calls it, in the tip's transaction.
 */
export async function fixPeriodBudget(
  ex: Executor,
  userId: number,
  period: string,
  budgetCents: number,
  now: number,
): Promise<void> {
  await fixPeriodBudgetStatement(ex, userId, period, budgetCents, now);
}

/** The stored password hash of a user (null: no password, e.g. created by the operator command). */
export async function findPasswordHash(ex: Executor, userId: number): Promise<string | null> {
  const r = await ex.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
  return r?.password_hash ?? null;
}

/**
 * Marks `address` verified for a user at `now` (Unix seconds), only while it is the user's current
 * address (compared exactly) and the account is not deleted; an address verified already keeps
 * its first time.
 * @returns false when the address is not (or no longer) the user's, or the account is deleted.
 */
export async function setEmailVerified(ex: Executor, userId: number, address: string, now: number): Promise<boolean> {
  if (address === '') return false;
  const r = await ex
    .updateTable('users')
    .set((eb) => ({ email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)) }))
    .where('id', '=', userId)
    .where('email', '=', address)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Sets a user's monthly budget setting (cents) and `updated_at` (Unix seconds).
 * @returns false for an unknown user.
 */
export async function updateBudget(ex: Executor, userId: number, budgetCents: number, now: number): Promise<boolean> {
  const r = await ex
    .updateTable('users')
    .set({ budget_cents: budgetCents, updated_at: now })
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The profile fields of a user (the User resource's) and the "hide my tips" setting. */
export interface ProfileFields {
  firstname: string;
  lastname: string;
  about: string;
  city: string;
  country: string;
  url: string;
  avatar: string;
  hideTips: boolean;
}

/**
 * Saves a user's profile fields (already validated) and `updated_at` (Unix seconds).
 * @returns false for an unknown user.
 */
export async function updateProfile(ex: Executor, userId: number, p: ProfileFields, now: number): Promise<boolean> {
  const r = await ex
    .updateTable('users')
    .set({
      firstname: p.firstname,
      lastname: p.lastname,
      about: p.about,
      city: p.city,
      country: p.country,
      url: p.url,
      avatar: p.avatar,
      hide_tips: p.hideTips ? 1 : 0,
      updated_at: now,
    })
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * PostgreSQL: locks the user's row until the transaction ends, so transactions that read a user's
 * balance and then move it (settlement, account deletion) run one after the other for that user.
 * SQLite has one writer at a time: nothing to do.
 */
export async function lockUser(ex: Executor, engine: 'sqlite' | 'postgres', userId: number): Promise<void> {
  if (engine === 'postgres') await ex.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

/** The users column of each notice (src/domain/mail.ts NOTICES). */
const NOTICE_COLUMNS = {
  receipt: 'notice_receipt',
  renewal_skipped: 'notice_renewal',
  thing_created: 'notice_thing',
  application_authorized: 'notice_application',
} as const satisfies Record<NoticeKind, keyof UsersTable>;

/**
 * Sets which notices a user wants by e-mail (every notice, on or off).
 * @returns false for an unknown user.
 */
export async function updateNotices(
  ex: Executor,
  userId: number,
  notices: Record<NoticeKind, boolean>,
): Promise<boolean> {
  const set: Partial<Record<(typeof NOTICE_COLUMNS)[NoticeKind], number>> = {};
  for (const kind of Object.keys(NOTICE_COLUMNS) as NoticeKind[]) set[NOTICE_COLUMNS[kind]] = notices[kind] ? 1 : 0;
  const r = await ex.updateTable('users').set(set).where('id', '=', userId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Turns one notice off for a user (an unsubscription link). @returns false for an unknown user. */
export async function turnNoticeOff(ex: Executor, userId: number, kind: NoticeKind): Promise<boolean> {
  const r = await ex
    .updateTable('users')
    .set({ [NOTICE_COLUMNS[kind]]: 0 })
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
