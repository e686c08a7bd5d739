/**
 * A user's own data (GDPR art. 20 and 17): the export of everything Tipjar holds about an account
 * as one JSON document, and the deletion of an account. Website: Settings → "Download my data"
 * (`GET /settings/export`) and "Delete my account" (`GET/POST /settings/delete`,
 * src/web/routes/account-data.ts); operators: `tipjar users export` and `tipjar users delete`.
 *
 * What deletion does, in ONE transaction (see deleteAccount):
 * - the user row stays, so the username is never given out again, but every personal field is
 *   emptied (e-mail and its verification, names, about, city, country, url, avatar, password
 *   hash), the budget set to 0, tips hidden, every notice off, and `deleted_at` set: the user is
 *   then unknown to every look-up by name (404), cannot log in and has no tokens or sessions;
 * - what remains of the money — the `balance` and the `earnings` of the user — moves to the
 *   platform's `forfeited` account in one balanced ledger transaction (kind `forfeit`); ledger
 *   rows are never deleted, so `tipjar ledger check` stays green; shares that settlement pays
 *   later for tips on the user's (deleted) things go to `forfeited` too
 *   (src/domain/money/settlement.ts); a user never owns `held` accounts (those are identities');
 * - the user's things are deleted as `DELETE /things/:id` deletes them (soft delete; the search
 *   caches learn it from the transaction's change events); tips stay, counted on their things;
 * - deleted: sessions, access tokens and authorization codes, subscriptions, account tokens,
 *   queued mail, the activities the user did (likes, posts, follows in everyone's feeds), and the
 *   identities the user verified (they can be claimed again by whoever proves them);
 * - the applications the user registered are deleted as the applications page deletes them
 *   (soft delete, every token issued to them revoked, other users' included).
 * The user's tips stay (money already paid for them); as the user's tips are hidden from then on,
 * listings of a thing's tips leave them out, and any rendering that still names the tipper shows
 * an empty profile.
 */
import { inTransaction } from '../db/transaction.ts';
import {
  deleteActivitiesOfActor,
  deleteIdentitiesOfUser,
  deleteSessionsOfUser,
  deleteSubscriptionsOfUser,
  deleteTokensAndCodesOfUser,
  listIdentitiesOfUser,
  listLedgerAccountsOfUser,
  listLedgerEntriesOfUser,
  listLiveThingIdsOfOwner,
  listOwnedThingsForExport,
  listSubscriptionsForExport,
  listTipsGivenForExport,
  listTipsReceivedForExport,
  markUserDeleted,
} from '../db/repositories/account-data.ts';
import { deleteAccountTokensOf } from '../db/repositories/account-tokens.ts';
import { accountBalance, postTransaction } from '../db/repositories/ledger.ts';
import { deleteMailOf } from '../db/repositories/mail.ts';
import {
  findAuthorizedClients,
  findLiveClientsByOwner,
  markClientDeleted,
  revokeClientTokens,
} from '../db/repositories/oauth.ts';
import { softDeleteThing } from '../db/repositories/things.ts';
import { findUserById } from '../db/repositories/users.ts';
import { NotFoundError } from './errors.ts';
import type { Services } from './services.ts';

/** The `format` of an export document. */
export const EXPORT_FORMAT = 'tipjar-account-export';
/** The version of the export document's shape; raised when a field changes meaning or goes away. */
export const EXPORT_VERSION = 1;

/** The profile as stored: every field of the user (times in Unix seconds, money in cents). */
export interface ExportProfile {
  id: number;
  username: string;
  email: string;
  email_verified: boolean;
  /** when the current address was verified; null while it is not */
  email_verified_at: number | null;
  firstname: string;
  lastname: string;
  about: string;
  city: string;
  country: string;
  url: string;
  avatar: string;
  registered_at: number;
  hide_tips: boolean;
  balance_cents: number;
  /** the monthly budget setting */
  budget_cents: number;
  /** which notices the user wants by e-mail */
  notices: { receipt: boolean; renewal_skipped: boolean; thing_created: boolean; application_authorized: boolean };
}

/** A thing the user owns or owned (hidden and deleted ones included). */
export interface ExportThing {
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
  tips_user_count: number;
  /** null when never tipped */
  last_tip_at: number | null;
  created_at: number;
  /** 0 when never updated */
  updated_at: number;
  /** null for a live thing */
  deleted_at: number | null;
}

/** A tip the user gave. */
export interface ExportTipGiven {
  id: number;
  thing_id: number;
  url: string;
  /** 'YYYY-MM' */
  period: string;
  created_at: number;
  /** 'api' (a tip) or 'subscription' (a renewal or the first tip of a subscription) */
  source: string;
}

/** A tip on one of the user's things. */
export interface ExportTipReceived {
  id: number;
  thing_id: number;
  period: string;
  created_at: number;
  /** the tipper's username; null when the tipper hides their tips (or deleted the account) */
  tipper: string | null;
}

/** A subscription of the user. */
export interface ExportSubscription {
  thing_id: number;
  url: string;
  active: boolean;
  created_at: number;
  started_at: number;
}

/** An entry on one of the user's ledger accounts. */
export interface ExportLedgerEntry {
  /** 'balance' or 'earnings' */
  account: string;
  /** the transaction's kind: 'funding', 'settlement', 'claim', … */
  transaction: string;
  /**
   * the transaction's reference; for a settlement share credited to the user's earnings
   * `settle:<period>` only (the full reference names the tipper, who is in `tips_received`)
   */
  reference: string;
  period: string | null;
  /** positive: credited to the account; negative: debited */
  amount_cents: number;
  created_at: number;
  /** the tip a settlement entry pays for (see `tips_given`, `tips_received`); null otherwise */
  tip_id: number | null;
}

/** An application the user has granted live tokens to. */
export interface ExportAuthorizedApplication {
  client_id: string;
  name: string;
  callback_domain: string;
  /** the union of the live tokens' scopes */
  scopes: string[];
  first_authorized_at: number;
  last_authorized_at: number;
  /** live tokens */
  tokens: number;
}

/** An application the user registered (no secret: only its hash is stored). */
export interface ExportApplication {
  client_id: string;
  name: string;
  callback_domain: string;
  redirect_uris: string[];
  created_at: number;
  /** 0 when never changed */
  updated_at: number;
}

/**
 * Everything Tipjar holds about one account (docs/api.md "Website" → "Your data"). Lists are
 * oldest first. Times are Unix seconds, money integer cents.
 */
export interface AccountExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  /** when the document was made */
  generated_at: number;
  /** the site the account lives on */
  site_url: string;
  profile: ExportProfile;
  /** the identities (`email:<md5>`, `twitter:…`, `partner:…`) the user verified */
  identities: { identity: string; claimed_at: number }[];
  things: ExportThing[];
  tips_given: ExportTipGiven[];
  tips_received: ExportTipReceived[];
  subscriptions: ExportSubscription[];
  ledger: { accounts: { kind: string; balance_cents: number }[]; entries: ExportLedgerEntry[] };
  authorized_applications: ExportAuthorizedApplication[];
  applications: ExportApplication[];
}

/** The reference of a ledger entry as the export shows it (see ExportLedgerEntry.reference). */
function exportedReference(e: { account: string; transactionKind: string; reference: string; period: string | null }) {
  if (e.account === 'earnings' && e.transactionKind === 'settlement') return `settle:${e.period ?? ''}`;
  return e.reference;
}

/**
 * The export of a live account: its profile, things (hidden and deleted ones included, with
 * tags), tips given and received, subscriptions, ledger accounts and entries, authorized and
 * registered applications, each read from the database now (one consistent read per list).
 * @throws NotFoundError for an unknown or deleted user.
 */
export async function exportUserData(s: Services, userId: number): Promise<AccountExport> {
  const db = s.database.db;
  const user = await findUserById(db, userId);
  if (!user || user.deletedAt !== null) throw new NotFoundError('User not found', 'users');
  const [identities, things, given, received, subscriptions, accounts, entries, authorized, apps] = await Promise.all([
    listIdentitiesOfUser(db, userId),
    listOwnedThingsForExport(db, userId),
    listTipsGivenForExport(db, userId),
    listTipsReceivedForExport(db, userId),
    listSubscriptionsForExport(db, userId),
    listLedgerAccountsOfUser(db, userId),
    listLedgerEntriesOfUser(db, userId),
    findAuthorizedClients(db, userId),
    findLiveClientsByOwner(db, userId),
  ]);
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    generated_at: s.clock.now(),
    site_url: s.siteUrl,
    profile: {
      id: user.id,
      username: user.username,
      email: user.email,
      email_verified: user.emailVerifiedAt !== null,
      email_verified_at: user.emailVerifiedAt,
      firstname: user.firstname,
      lastname: user.lastname,
      about: user.about,
      city: user.city,
      country: user.country,
      url: user.url,
      avatar: user.avatar,
      registered_at: user.registeredAt,
      hide_tips: user.hideTips,
      balance_cents: user.balanceCents,
      budget_cents: user.budgetCents,
      notices: {
        receipt: user.notices.receipt,
        renewal_skipped: user.notices.renewal_skipped,
        thing_created: user.notices.thing_created,
        application_authorized: user.notices.application_authorized,
      },
    },
    identities: identities.map((i) => ({ identity: i.identity, claimed_at: i.claimedAt })),
    things: things.map((t) => ({
      id: t.id,
      url: t.url,
      title: t.title,
      description: t.description,
      category: t.category,
      language: t.language,
      tags: t.tags,
      image: t.image,
      hidden: t.hidden,
      tips: t.tips,
      tips_user_count: t.tipsUserCount,
      last_tip_at: t.lastTipAt,
      created_at: t.createdAt,
      updated_at: t.updatedAt,
      deleted_at: t.deletedAt,
    })),
    tips_given: given.map((t) => ({
      id: t.id,
      thing_id: t.thingId,
      url: t.url,
      period: t.period,
      created_at: t.createdAt,
      source: t.source,
    })),
    tips_received: received.map((t) => ({
      id: t.id,
      thing_id: t.thingId,
      period: t.period,
      created_at: t.createdAt,
      tipper: t.tipperHidesTips || t.tipperDeleted ? null : t.tipperUsername,
    })),
    subscriptions: subscriptions.map((x) => ({
      thing_id: x.thingId,
      url: x.url,
      active: x.active,
      created_at: x.createdAt,
      started_at: x.startedAt,
    })),
    ledger: {
      accounts: accounts.map((a) => ({ kind: a.kind, balance_cents: a.balanceCents })),
      entries: entries.map((e) => ({
        account: e.account,
        transaction: e.transactionKind,
        reference: exportedReference(e),
        period: e.period,
        amount_cents: e.amountCents,
        created_at: e.createdAt,
        tip_id: e.tipId,
      })),
    },
    authorized_applications: authorized.map((a) => ({
      client_id: a.client.clientId,
      name: a.client.name,
      callback_domain: a.client.callbackDomain,
      scopes: a.scopes,
      first_authorized_at: a.firstAuthorizedAt,
      last_authorized_at: a.lastAuthorizedAt,
      tokens: a.tokens,
    })),
    applications: apps.map((c) => ({
      client_id: c.clientId,
      name: c.name,
      callback_domain: c.callbackDomain,
      redirect_uris: c.redirectUris,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    })),
  };
}

/** What a deletion did. */
export interface DeletionReport {
  userId: number;
  username: string;
  /** cents moved from the user's balance and earnings to `forfeited` */
  forfeitedCents: number;
  /** live things deleted */
  thingsDeleted: number;
  subscriptionsRemoved: number;
  /** applications the user had registered, now deleted */
  applicationsDeleted: number;
  /** tokens issued to those applications, revoked with them */
  applicationTokensRevoked: number;
  /** the user's own access tokens deleted (revoked ones included) */
  tokensDeleted: number;
  sessionsEnded: number;
}

/** What a deletion of the account would take away now (the website's confirmation page). */
export interface DeletionPreview {
  /** cents of the balance and of the earnings that would be forfeited */
  balanceCents: number;
  earningsCents: number;
  /** live things, hidden ones included */
  things: number;
  /** applications the user registered */
  applications: number;
}

/**
 * What deleting the live account `userId` would take away now.
 * @throws NotFoundError for an unknown or deleted user.
 */
export async function previewDeletion(s: Services, userId: number): Promise<DeletionPreview> {
  const db = s.database.db;
  const user = await findUserById(db, userId);
  if (!user || user.deletedAt !== null) throw new NotFoundError('User not found', 'users');
  const [balanceCents, earningsCents, things, apps] = await Promise.all([
    accountBalance(db, { kind: 'balance', userId }),
    accountBalance(db, { kind: 'earnings', userId }),
    listLiveThingIdsOfOwner(db, userId),
    findLiveClientsByOwner(db, userId),
  ]);
  return { balanceCents, earningsCents, things: things.length, applications: apps.length };
}

/** The idempotency reference of the ledger transaction that forfeits a deleted user's money. */
export function forfeitReference(userId: number): string {
  return `forfeit:user:${userId}`;
}

/**
 * Deletes the account `userId` in one transaction (see the module comment for what goes and what
 * stays). It checks no password: the website asks for it first, the operator command does not.
 * @returns what was done.
 * @throws NotFoundError for an unknown user or one deleted already (nothing changed).
 */
export async function deleteAccount(s: Services, userId: number): Promise<DeletionReport> {
  const now = s.clock.now();
  return inTransaction(s.database, async (trx) => {
    const user = await findUserById(trx, userId);
    // The update is also the guard against a concurrent deletion, and on PostgreSQL the row lock
    // that settlement of this user waits for (or that waits for it) before it reads the balance.
    if (!user || !(await markUserDeleted(trx, userId, now))) throw new NotFoundError('User not found', 'users');

    const balance = await accountBalance(trx, { kind: 'balance', userId });
    const earnings = await accountBalance(trx, { kind: 'earnings', userId });
    const forfeited = balance + earnings;
    if (forfeited !== 0) {
      await postTransaction(
        trx,
        {
          kind: 'forfeit',
          reference: forfeitReference(userId),
          description: `money left by deleted user ${userId}`,
          now,
        },
        [
          ...(balance !== 0 ? [{ account: { kind: 'balance' as const, userId }, amountCents: -balance }] : []),
          ...(earnings !== 0 ? [{ account: { kind: 'earnings' as const, userId }, amountCents: -earnings }] : []),
          { account: { kind: 'forfeited' }, amountCents: forfeited },
        ],
      );
    }

    const thingIds = await listLiveThingIdsOfOwner(trx, userId);
    for (const id of thingIds) await softDeleteThing(trx, id, now);

    const apps = await findLiveClientsByOwner(trx, userId);
    let applicationTokensRevoked = 0;
    for (const app of apps) {
      await markClientDeleted(trx, app.id, now);
      applicationTokensRevoked += await revokeClientTokens(trx, app.id, now);
    }
    const tokensDeleted = await deleteTokensAndCodesOfUser(trx, userId);
    const sessionsEnded = await deleteSessionsOfUser(trx, userId);
    const subscriptionsRemoved = await deleteSubscriptionsOfUser(trx, userId);
    await deleteActivitiesOfActor(trx, userId);
    await deleteIdentitiesOfUser(trx, userId);
    await deleteAccountTokensOf(trx, userId);
    await deleteMailOf(trx, userId);
    return {
      userId,
      username: user.username,
      forfeitedCents: forfeited,
      thingsDeleted: thingIds.length,
      subscriptionsRemoved,
      applicationsDeleted: apps.length,
      applicationTokensRevoked,
      tokensDeleted,
      sessionsEnded,
    };
  });
}
