/**
 * Presenters: the spec's representations (api-v2.md "Resources and their fields", DECISIONS.md
 * "Wire format"). Wire names (`tips`, `tipped`, `created_at` in Unix seconds) exist only here.
 * Each returns the static type of its representation schema (src/http/schemas/representations.ts),
 * which the routes' response schemas serialize field for field; key order follows the original
 * API's examples and is the schema's.
 */
import type { Static } from '@sinclair/typebox';
import type * as R from './schemas/representations.ts';
import type { BudgetView } from '../domain/money/account.ts';
import type { OwnerRef, ThingRecord, TipRecord, UserRecord } from '../domain/records.ts';
import type { ViewerState } from '../domain/things.ts';
import { isEmailVerified } from '../domain/verification.ts';

export interface Urls {
  /** API root, e.g. `http://localhost:3000/rest/v2` */
  api: string;
  /** website origin */
  site: string;
}

export type UserSummary = Static<typeof R.UserSummary>;
export type User = Static<typeof R.User>;
export type Owner = Static<typeof R.Owner>;
export type Thing = Static<typeof R.Thing>;
export type ThingConfirmation = Static<typeof R.ThingConfirmation>;
export type ThingShort = Static<typeof R.ThingShort>;
export type Tip = Static<typeof R.Tip>;
export type Subscription = Static<typeof R.Subscription>;
export type SearchResult = Static<typeof R.SearchResult>;

/** User summary: `type`, `resource`, `link`, `username`. */
export function presentUserSummary(urls: Urls, username: string): UserSummary {
  const u = encodeURIComponent(username);
  return { type: 'user', resource: `${urls.api}/users/${u}`, link: `${urls.site}/profile/${u}`, username };
}

/**
 * User (full): summary + profile fields (empty strings when unset) + `url`; with `extended` (the
 * own user, scope `extendedread`) also `email`, `email_verified` (whether that address is verified:
 * an extension, docs/api.md "Users"), `registered_at` and the budget in cents:
 * `budget_cents` (the monthly setting) and `period_budget_cents` (the current period's, fixed at
 * the user's first tip in it).
 */
export function presentUser(urls: Urls, u: UserRecord, extended?: BudgetView): User {
  const out: User = {
    ...presentUserSummary(urls, u.username),
    firstname: u.firstname,
    lastname: u.lastname,
    avatar: u.avatar,
    about: u.about,
    city: u.city,
    country: u.country,
    url: u.url,
  };
  if (extended) {
    out.email = u.email;
    out.email_verified = isEmailVerified(u);
    out.registered_at = u.registeredAt;
    out.budget_cents = extended.budgetCents;
    out.period_budget_cents = extended.periodBudgetCents;
  }
  return out;
}

/**
 * The owner of a thing. A pending thing (owned by a partner-side identity) has no user yet: its
 * owner is `{type: "user", resource: "", link: "", username: ""}` plus `identity` (docs/api.md).
 */
function presentOwner(urls: Urls, owner: OwnerRef, fullOwners?: Map<number, UserRecord>): Owner {
  if (owner.kind === 'identity')
    return { type: 'user', resource: '', link: '', username: '', identity: owner.identity };
  const full = fullOwners?.get(owner.userId);
  return full ? presentUser(urls, full) : presentUserSummary(urls, owner.username);
}

const thingResource = (urls: Urls, id: number) => `${urls.api}/things/${id}`;
const thingLink = (urls: Urls, id: number) => `${urls.site}/thing/${id}`;

/**
 * Thing (full representation). Per viewer (DECISIONS.md): with a token `tipped` and `subscribed`;
 * for the owner also `last_tip_at` and `updated_at` (0 when never).
 * @param fullOwners with `full`: owner user records by id, rendered as full users.
 */
export function presentThing(
  urls: Urls,
  t: ThingRecord,
  viewer?: ViewerState,
  fullOwners?: Map<number, UserRecord>,
): Thing {
  const out: Thing = {
    type: 'thing',
    resource: thingResource(urls, t.id),
    link: thingLink(urls, t.id),
    id: t.id,
    url: t.url,
    language: t.language,
    category: t.category,
    owner: presentOwner(urls, t.owner, fullOwners),
    hidden: t.hidden,
    image: t.image,
    created_at: t.createdAt,
    tags: t.tags,
    tips: t.tips,
    tips_user_count: t.tipsUserCount,
    description: t.description,
    title: t.title,
  };
  if (viewer) {
    if (t.owner.kind === 'user' && t.owner.userId === viewer.userId) {
      out.last_tip_at = t.lastTipAt;
      out.updated_at = t.updatedAt;
    }
    out.tipped = viewer.tipped.has(t.id);
    out.subscribed = viewer.subscribed.has(t.id);
  }
  return out;
}

/** Thing (confirmation representation), in tip and subscribe responses: 8 fields. */
export function presentThingConfirmation(urls: Urls, t: ThingRecord): ThingConfirmation {
  return {
    type: 'thing',
    resource: thingResource(urls, t.id),
    link: thingLink(urls, t.id),
    id: t.id,
    tips: t.tips,
    url: t.url,
    title: t.title,
    image: t.image,
  };
}

/** Thing (short representation), inside a Tip: confirmation fields + `owner`. */
export function presentThingShort(urls: Urls, t: ThingRecord): ThingShort {
  return {
    type: 'thing',
    resource: thingResource(urls, t.id),
    link: thingLink(urls, t.id),
    id: t.id,
    url: t.url,
    title: t.title,
    image: t.image,
    tips: t.tips,
    owner: presentOwner(urls, t.owner),
  };
}

/**
 * Tip: `type`, `thing` (short; with `full` the full thing, carrying the viewer's per-viewer fields
 * as `GET /things/:id` does), `owner` (the tipper: summary, full user with `full`), `created_at`.
 * @param full when given, users by id for full owners (thing owners and tippers).
 * @param viewer with `full` and a token: the caller's `tipped`/`subscribed` state of the things.
 */
export function presentTip(urls: Urls, tip: TipRecord, full?: Map<number, UserRecord>, viewer?: ViewerState): Tip {
  const tipper = full?.get(tip.tipper.id);
  return {
    type: 'tip',
    thing: full ? presentThing(urls, tip.thing, viewer, full) : presentThingShort(urls, tip.thing),
    owner: tipper ? presentUser(urls, tipper) : presentUserSummary(urls, tip.tipper.username),
    created_at: tip.createdAt,
  };
}

/** The user ids whose full records a `full` rendering of these things/tips needs. */
export function ownerIds(things: ThingRecord[]): number[] {
  return things.flatMap((t) => (t.owner.kind === 'user' ? [t.owner.userId] : []));
}

/**
 * Search result (api-v2.md "Search result"): `total_items` (matches over all pages), `items`
 * (things on this page), `page` (1-based), `things` (already presented, in order).
 */
export function presentSearchResult(total: number, page: number, things: Thing[]): SearchResult {
  return { total_items: total, items: things.length, page, things };
}

/**
 * Subscription (api-v2.md "Subscription"): `type`, `active`, `created_at`, `started_at` (Unix
 * seconds) and the full thing with the viewer's `tipped` and `subscribed`, whose owner also carries
 * `id` (string, DECISIONS.md "Wire format"; an empty string for a pending thing's identity owner).
 */
export function presentSubscription(
  urls: Urls,
  sub: { active: boolean; createdAt: number; startedAt: number },
  thing: ThingRecord,
  viewer: ViewerState | undefined,
): Subscription {
  const presented = presentThing(urls, thing, viewer);
  presented.owner = { ...presented.owner, id: thing.owner.kind === 'user' ? String(thing.owner.userId) : '' };
  return {
    type: 'subscription',
    active: sub.active,
    created_at: sub.createdAt,
    started_at: sub.startedAt,
    thing: presented,
  };
}
