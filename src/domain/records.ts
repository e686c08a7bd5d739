/**
 * Domain records: what repositories return and services and presenters use. Rows never leave db/;
 * these are their typed, camel-cased form (booleans as booleans, tags as arrays).
 */
export interface UserRecord {
  id: number;
  username: string;
  email: string;
  firstname: string;
  lastname: string;
  avatar: string;
  about: string;
  city: string;
  country: string;
  url: string;
  /** Unix seconds */
  registeredAt: number;
  balanceCents: number;
  budgetCents: number;
  hideTips: boolean;
  /** Unix seconds when `email` was verified; null while it is not */
  emailVerifiedAt: number | null;
  /** Unix seconds when the account was deleted (its personal fields are then empty); null: live */
  deletedAt: number | null;
  /** which notices the user wants by e-mail (src/domain/mail.ts NOTICES) */
  notices: Record<NoticeKind, boolean>;
}

/** The notices a user can turn off (src/domain/mail.ts). */
export type NoticeKind = 'receipt' | 'renewal_skipped' | 'thing_created' | 'application_authorized';

/** The owner of a thing: a registered user, or (pending things) a partner-side identity. */
export type OwnerRef = { kind: 'user'; userId: number; username: string } | { kind: 'identity'; identity: string };

export interface ThingRecord {
  id: number;
  url: string;
  title: string;
  description: string;
  category: string;
  language: string;
  tags: string[];
  image: string;
  hidden: boolean;
  owner: OwnerRef;
  tips: number;
  tipsUserCount: number;
  /** Unix seconds of the latest tip, 0 when never tipped */
  lastTipAt: number;
  createdAt: number;
  /** Unix seconds of the latest update, 0 when never updated */
  updatedAt: number;
}

export interface TipRecord {
  id: number;
  createdAt: number;
  period: string;
  thing: ThingRecord;
  tipper: { id: number; username: string };
}

/** Who is calling: the user behind a valid bearer token and what the token allows. */
export interface Principal {
  userId: number;
  username: string;
  scopes: ReadonlySet<string>;
  /** oauth_clients.id of the token's client; null for operator-issued tokens */
  clientId: number | null;
  tokenId: number;
}

/** A thing's id: a positive safe integer (parsed at the edge: src/http/params.ts, web routes). */
export type ThingId = number;

/** An amount of money in cents (integer minor units). */
export type Cents = number;

/** One page of a list: `count` items (1–100) starting at page `page` (1-based). */
export interface PageRequest {
  count: number;
  page: number;
}
