/**
 * The reads of a user's data export and the writes of an account deletion (src/domain/account-data.ts)
 * that no other repository already offers. Executor-first functions: pass the database or an open
 * transaction. Times are Unix seconds, money integer cents.
 */
import type { Executor } from '../transaction.ts';

/** A thing of the user as the export lists it: every field, deleted things included. */
export interface OwnedThingRow {
  id: number;
  url: string;
  title: string;
  description: string;
  category: string;
  language: string;
  tags: string[];
  image: string;
  hidden: boolean;
  tips: number;
  tipsUserCount: number;
  /** null when never tipped */
  lastTipAt: number | null;
  createdAt: number;
  /** 0 when never updated */
  updatedAt: number;
  /** null for a live thing */
  deletedAt: number | null;
}

/** Every thing `userId` owns or owned (hidden and deleted ones included), oldest first. */
export async function listOwnedThingsForExport(ex: Executor, userId: number): Promise<OwnedThingRow[]> {
  const rows = await ex
    .selectFrom('things')
    .select([
      'id',
      'url',
      'title',
      'description',
      'category',
      'language',
      'tags',
      'image',
      'hidden',
      'tips',
      'tips_user_count',
      'last_tip_at',
      'created_at',
      'updated_at',
      'deleted_at',
    ])
    .where('owner_user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    url: r.url,
    title: r.title,
    description: r.description,
    category: r.category,
    language: r.language,
    tags: r.tags ? r.tags.split(',') : [],
    image: r.image,
    hidden: r.hidden === 1,
    tips: r.tips,
    tipsUserCount: r.tips_user_count,
    lastTipAt: r.last_tip_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  }));
}

/** A tip the user gave. */
export interface GivenTipRow {
  id: number;
  thingId: number;
  /** the thing's URL (also of a thing deleted since) */
  url: string;
  /** 'YYYY-MM' */
  period: string;
  createdAt: number;
  /** 'api' | 'subscription' */
  source: string;
}

/** Every tip `userId` gave, on any thing (hidden and deleted ones included), oldest first. */
export async function listTipsGivenForExport(ex: Executor, userId: number): Promise<GivenTipRow[]> {
  const rows = await ex
    .selectFrom('tips')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .select(['tips.id', 'tips.thing_id', 'things.url', 'tips.period', 'tips.created_at', 'tips.source'])
    .where('tips.tipper_id', '=', userId)
    .orderBy('tips.created_at')
    .orderBy('tips.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    thingId: r.thing_id,
    url: r.url,
    period: r.period,
    createdAt: r.created_at,
    source: r.source,
  }));
}

/** A tip on one of the user's things, with what is known of its tipper. */
export interface ReceivedTipRow {
  id: number;
  thingId: number;
  period: string;
  createdAt: number;
  tipperUsername: string;
  tipperHidesTips: boolean;
  tipperDeleted: boolean;
}

/** Every tip on a thing `userId` owns or owned (deleted things included), oldest first. */
export async function listTipsReceivedForExport(ex: Executor, userId: number): Promise<ReceivedTipRow[]> {
  const rows = await ex
    .selectFrom('tips')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .innerJoin('users as tipper', 'tipper.id', 'tips.tipper_id')
    .select([
      'tips.id',
      'tips.thing_id',
      'tips.period',
      'tips.created_at',
      'tipper.username',
      'tipper.hide_tips',
      'tipper.deleted_at',
    ])
    .where('things.owner_user_id', '=', userId)
    .orderBy('tips.created_at')
    .orderBy('tips.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    thingId: r.thing_id,
    period: r.period,
    createdAt: r.created_at,
    tipperUsername: r.username,
    tipperHidesTips: r.hide_tips === 1,
    tipperDeleted: r.deleted_at !== null,
  }));
}

/** A subscription of the user, with its thing's URL. */
export interface SubscriptionExportRow {
  thingId: number;
  url: string;
  active: boolean;
  createdAt: number;
  startedAt: number;
}

/** Every subscription of `userId` (active and paused), oldest first. */
export async function listSubscriptionsForExport(ex: Executor, userId: number): Promise<SubscriptionExportRow[]> {
  const rows = await ex
    .selectFrom('subscriptions')
    .innerJoin('things', 'things.id', 'subscriptions.thing_id')
    .select([
      'subscriptions.thing_id',
      'things.url',
      'subscriptions.active',
      'subscriptions.created_at',
      'subscriptions.started_at',
    ])
    .where('subscriptions.user_id', '=', userId)
    .orderBy('subscriptions.created_at')
    .orderBy('subscriptions.id')
    .execute();
  return rows.map((r) => ({
    thingId: r.thing_id,
    url: r.url,
    active: r.active === 1,
    createdAt: r.created_at,
    startedAt: r.started_at,
  }));
}

/** One ledger account of the user and its balance. */
export interface UserAccountRow {
  /** 'balance' | 'earnings' */
  kind: string;
  balanceCents: number;
}

/** The ledger accounts of `userId` (balance, earnings), by kind. */
export async function listLedgerAccountsOfUser(ex: Executor, userId: number): Promise<UserAccountRow[]> {
  const rows = await ex
    .selectFrom('ledger_accounts')
    .select(['kind', 'balance_cents'])
    .where('user_id', '=', userId)
    .orderBy('kind')
    .execute();
  return rows.map((r) => ({ kind: r.kind, balanceCents: Number(r.balance_cents) }));
}

/** One entry on one of the user's ledger accounts, with its transaction. */
export interface UserLedgerEntryRow {
  /** the account's kind: 'balance' | 'earnings' */
  account: string;
  transactionKind: string;
  reference: string;
  period: string | null;
  /** positive: credited to the account; negative: debited */
  amountCents: number;
  createdAt: number;
  /** the tip a settlement share pays for; null otherwise */
  tipId: number | null;
}

/** Every entry on the ledger accounts of `userId`, in posting order. */
export async function listLedgerEntriesOfUser(ex: Executor, userId: number): Promise<UserLedgerEntryRow[]> {
  const rows = await ex
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .select([
      'a.kind',
      't.kind as transaction_kind',
      't.reference',
      't.period',
      'e.amount_cents',
      'e.created_at',
      'e.tip_id',
    ])
    .where('a.user_id', '=', userId)
    .orderBy('e.id')
    .execute();
  return rows.map((r) => ({
    account: r.kind,
    transactionKind: r.transaction_kind,
    reference: r.reference,
    period: r.period,
    amountCents: Number(r.amount_cents),
    createdAt: r.created_at,
    tipId: r.tip_id,
  }));
}

/** The identities (`email:<md5>`, `twitter:…`, `partner:…`) `userId` verified, oldest first. */
export async function listIdentitiesOfUser(
  ex: Executor,
  userId: number,
): Promise<{ identity: string; claimedAt: number }[]> {
  const rows = await ex
    .selectFrom('identities')
    .select(['identity', 'claimed_at'])
    .where('user_id', '=', userId)
    .orderBy('claimed_at')
    .orderBy('identity')
    .execute();
  return rows.map((r) => ({ identity: r.identity, claimedAt: r.claimed_at }));
}

/**
 * Marks a live user deleted and empties every personal field in one statement: e-mail and its
 * verification, names, about, city, country, url, avatar, password hash; the budget becomes 0,
 * tips are hidden and every notice is off. The row stays (the username is never given out again).
 * On PostgreSQL the row stays locked until the transaction ends, so two deletions of one user
 * cannot both go on.
 * @returns false when there is no live user with this id (unknown, or deleted already).
 */
export async function markUserDeleted(ex: Executor, userId: number, now: number): Promise<boolean> {
  const r = await ex
    .updateTable('users')
    .set({
      email: '',
      email_verified_at: null,
      password_hash: null,
      firstname: '',
      lastname: '',
      avatar: '',
      about: '',
      city: '',
      country: '',
      url: '',
      budget_cents: 0,
      hide_tips: 1,
      notice_receipt: 0,
      notice_renewal: 0,
      notice_thing: 0,
      notice_application: 0,
      deleted_at: now,
      updated_at: now,
    })
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The ids of the live things `userId` owns (hidden ones included), by id. */
export async function listLiveThingIdsOfOwner(ex: Executor, userId: number): Promise<number[]> {
  const rows = await ex
    .selectFrom('things')
    .select('id')
    .where('owner_user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Deletes every website session of `userId`; returns how many. */
export async function deleteSessionsOfUser(ex: Executor, userId: number): Promise<number> {
  const r = await ex.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Deletes every access token of `userId` (revoked ones too), then every authorization code the
 * user approved (the tokens point at their codes, so they go first); returns how many tokens.
 */
export async function deleteTokensAndCodesOfUser(ex: Executor, userId: number): Promise<number> {
  const r = await ex.deleteFrom('access_tokens').where('user_id', '=', userId).executeTakeFirst();
  await ex.deleteFrom('oauth_codes').where('user_id', '=', userId).execute();
  return Number(r.numDeletedRows);
}

/** Deletes every subscription of `userId` (active and paused); returns how many. */
export async function deleteSubscriptionsOfUser(ex: Executor, userId: number): Promise<number> {
  const r = await ex.deleteFrom('subscriptions').where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Deletes the activities `userId` did (their likes, posts and follows in everyone's feeds). */
export async function deleteActivitiesOfActor(ex: Executor, userId: number): Promise<void> {
  await ex.deleteFrom('activities').where('actor_user_id', '=', userId).execute();
}

/** Deletes the identities `userId` verified: they become unclaimed again. */
export async function deleteIdentitiesOfUser(ex: Executor, userId: number): Promise<void> {
  await ex.deleteFrom('identities').where('user_id', '=', userId).execute();
}
