/**
 * Table types for Kysely. Conventions (both engines): booleans are integers 0/1, times are integer
 * Unix seconds, money is integer cents, ids are 64-bit integers returned as JS numbers.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** lower-cased username: unique, used for look-ups (URLs are case-insensitive) */
  username_key: string;
  email: string;
  password_hash: string | null;
  firstname: Generated<string>;
  lastname: Generated<string>;
  avatar: Generated<string>;
  about: Generated<string>;
  city: Generated<string>;
  country: Generated<string>;
  url: Generated<string>;
  registered_at: number;
  balance_cents: Generated<number>;
  budget_cents: Generated<number>;
  hide_tips: Generated<number>;
  updated_at: Generated<number>;
  /** Unix seconds when `email` was verified; null: not verified */
  email_verified_at: number | null;
  /** Unix seconds; a deleted account keeps its row (username taken for ever) with personal fields emptied */
  deleted_at: number | null;
  /** 1: the user wants this notice by e-mail (monthly receipt, renewal skipped, thing created in their name, new application) */
  notice_receipt: Generated<number>;
  notice_renewal: Generated<number>;
  notice_thing: Generated<number>;
  notice_application: Generated<number>;
}

export interface ThingsTable {
  id: Generated<number>;
  url: string;
  /** normalised url (see domain/urls.ts): unique among things that are not deleted */
  url_key: string;
  title: Generated<string>;
  description: Generated<string>;
  category: string;
  language: string;
  /** tags joined by commas (tags never contain commas); thing_tags holds one row per tag for search */
  tags: Generated<string>;
  image: Generated<string>;
  hidden: Generated<number>;
  /** exactly one of owner_user_id and owner_identity is set; an identity marks a pending thing */
  owner_user_id: number | null;
  owner_identity: string | null;
  tips: Generated<number>;
  tips_user_count: Generated<number>;
  last_tip_at: number | null;
  created_at: number;
  updated_at: Generated<number>;
  deleted_at: number | null;
}

export interface ThingTagsTable {
  thing_id: number;
  tag: string;
}

export interface TipsTable {
  id: Generated<number>;
  thing_id: number;
  tipper_id: number;
  /** calendar month in UTC, 'YYYY-MM' */
  period: string;
  created_at: number;
  /** 'api' | 'subscription' */
  source: Generated<string>;
  /** oauth_clients.id of the client that made the tip; null for operator tokens */
  client_id: number | null;
}

export interface SubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  thing_id: number;
  active: Generated<number>;
  created_at: number;
  started_at: number;
  updated_at: Generated<number>;
}

export interface OauthClientsTable {
  id: Generated<number>;
  client_id: string;
  secret_hash: string;
  name: string;
  callback_domain: string;
  /** JSON array of the exact redirect URIs registered, `[]` for none */
  redirect_uris: Generated<string>;
  owner_user_id: number | null;
  created_at: number;
  updated_at: Generated<number>;
  deleted_at: number | null;
}

export interface OauthCodesTable {
  id: Generated<number>;
  code_hash: string;
  client_id: number;
  user_id: number;
  redirect_uri: string;
  /** 1 when the authorization request carried redirect_uri (then the token request must repeat it) */
  redirect_uri_given: Generated<number>;
  scope: Generated<string>;
  code_challenge: string | null;
  code_challenge_method: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface AccessTokensTable {
  id: Generated<number>;
  /** SHA-256 of the bearer token, hex; the token itself is never stored */
  token_hash: string;
  user_id: number;
  client_id: number | null;
  code_id: number | null;
  /** space-separated scopes */
  scope: Generated<string>;
  created_at: number;
  revoked_at: number | null;
}

export interface SessionsTable {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

export interface LedgerAccountsTable {
  id: Generated<number>;
  /** e.g. 'balance:user:12', 'earnings:user:12', 'held:email:<md5>', 'platform:funding', 'platform:forfeited' */
  account_key: string;
  /** 'balance' | 'earnings' | 'held' | 'funding' | 'forfeited' */
  kind: string;
  user_id: number | null;
  identity: string | null;
  balance_cents: Generated<number>;
  created_at: number;
}

export interface LedgerTransactionsTable {
  id: Generated<number>;
  /** 'funding' | 'settlement' | 'claim' | 'forfeit' | … */
  kind: string;
  period: string | null;
  /** idempotency key: a transaction with the same reference is never posted twice */
  reference: string;
  description: Generated<string>;
  created_at: number;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  transaction_id: number;
  account_id: number;
  /** positive = credit to the account, negative = debit; the entries of a transaction sum to 0 */
  amount_cents: number;
  created_at: number;
  /** settlement shares: the tip this entry pays for (migration 0004_money); null otherwise */
  tip_id: number | null;
}

export interface PeriodsTable {
  /** 'YYYY-MM' */
  period: string;
  /** 'open' | 'settling' | 'settled' */
  status: Generated<string>;
  settled_at: number | null;
  locked_by: string | null;
  locked_until: number | null;
  /** when the period's subscriptions were renewed by the scheduler (0004_money) */
  renewed_at: number | null;
}

/** Outcome of one subscription's renewal tip in one period (0004_money). */
export interface SubscriptionRenewalsTable {
  period: string;
  user_id: number;
  thing_id: number;
  /** 'tipped' | 'no_means' | 'tip_once' | 'tip_owner' | 'deleted' */
  outcome: string;
  tip_id: number | null;
  created_at: number;
}

export interface ActivitiesTable {
  id: Generated<number>;
  actor_user_id: number;
  /** 'like' (tip) | 'post' (thing registered) | 'follow' (subscription started) */
  verb: string;
  thing_id: number;
  /** owner of the thing when the activity happened, for incoming streams */
  thing_owner_user_id: number | null;
  created_at: number;
}

export interface PartnersTable {
  id: Generated<number>;
  namespace: string;
  client_id: number;
  webhook_url: string;
  /** comma-separated event kinds, e.g. 'pendingclickcreate' */
  events: Generated<string>;
  /** Standard Webhooks secret ('whsec_…'), needed in clear to sign */
  signing_secret: string;
  allow_private_webhook: Generated<number>;
  /** 1: the partner may assign global identities (email:, twitter:) to its users */
  trusted: Generated<number>;
  created_at: number;
  updated_at: Generated<number>;
}

export interface IdentitiesTable {
  /** 'email:<md5>' | 'twitter:user:id:<id>' | 'partner:<ns>:<id>' */
  identity: string;
  user_id: number;
  partner_id: number | null;
  claimed_at: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  /** public id sent as webhook-id, e.g. 'msg_…' */
  message_id: string;
  partner_id: number;
  event: string;
  /** JSON object of the form parameters */
  payload: string;
  /** 'pending' | 'delivered' | 'failed' */
  status: Generated<string>;
  attempts: Generated<number>;
  next_attempt_at: number;
  claimed_by: string | null;
  claimed_until: number | null;
  created_at: number;
  delivered_at: number | null;
  last_error: string | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: Generated<number>;
}

/** Tips per thing and hour (migration 0005_tip_hours). */
export interface TipHoursTable {
  thing_id: number;
  /** floor(created_at / 3600) */
  hour: number;
  tips: number;
  first_at: number;
  last_at: number;
  /** sum of 2^((created_at − hour·3600) / TREND_HALF_LIFE) over the hour's tips */
  weight: number;
}

/** The budget of a tipper in a period, fixed at the first tip of that period (migration 0008_period_budgets). */
export interface PeriodBudgetsTable {
  user_id: number;
  /** 'YYYY-MM' */
  period: string;
  /** cents */
  budget_cents: number;
  /** Unix seconds: the first tip of the period */
  fixed_at: number;
}

export interface AccountTokensTable {
  id: Generated<number>;
  /** SHA-256 hex of the token (the token itself is only in the link sent) */
  token_hash: string;
  /** 'verify_email' | 'password_reset' | 'unsubscribe' */
  purpose: string;
  user_id: number;
  /** verify_email: the address being verified; unsubscribe: the notice it turns off */
  detail: Generated<string>;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface MailOutboxTable {
  id: Generated<number>;
  /** RFC 5322 Message-ID without angle brackets, stable across retries */
  message_id: string;
  /** the message kind (src/domain/mail.ts MAIL_KINDS) */
  kind: string;
  user_id: number | null;
  recipient: string;
  /** JSON object of the values the message is composed from; '{}' once sent */
  params: Generated<string>;
  /** 'pending' | 'sent' | 'failed' */
  status: Generated<string>;
  attempts: Generated<number>;
  next_attempt_at: number;
  claimed_by: string | null;
  claimed_until: number | null;
  created_at: number;
  sent_at: number | null;
  last_error: string | null;
}

/** The search result cache a closing server kept (0014_search_snapshots): one row, `id` 1. */
export interface SearchSnapshotsTable {
  id: number;
  /** the snapshot's format (domain/search/snapshot.ts SNAPSHOT_FORMAT) and the schema it was written on */
  format: string;
  /** `search_changes.things` when it was written: it is valid only while the counter still holds it */
  things: number | string;
  /** Unix seconds */
  saved_at: number | string;
  /** the entries, JSON text */
  entries: string;
}

/** The counter of writes that can change what a search matches (0012 on PostgreSQL, 0014 on SQLite): one row, `id` 1. */
export interface SearchChangesTable {
  id: number;
  things: number | string;
}

export interface DB {
  users: UsersTable;
  things: ThingsTable;
  thing_tags: ThingTagsTable;
  tips: TipsTable;
  tip_hours: TipHoursTable;
  subscriptions: SubscriptionsTable;
  oauth_clients: OauthClientsTable;
  oauth_codes: OauthCodesTable;
  access_tokens: AccessTokensTable;
  sessions: SessionsTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_transactions: LedgerTransactionsTable;
  ledger_entries: LedgerEntriesTable;
  periods: PeriodsTable;
  period_budgets: PeriodBudgetsTable;
  subscription_renewals: SubscriptionRenewalsTable;
  activities: ActivitiesTable;
  partners: PartnersTable;
  identities: IdentitiesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  account_tokens: AccountTokensTable;
  mail_outbox: MailOutboxTable;
  search_snapshots: SearchSnapshotsTable;
  search_changes: SearchChangesTable;
}
