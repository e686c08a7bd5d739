/**
 * Public pages: the home page, `/profile/:username` and `/thing/:id` — the addresses the
 * API's `link` fields point at (src/http/presenters.ts) — and the thing page's Tip button.
 */
import type { FastifyInstance } from 'fastify';
import { DomainError, NotFoundError } from '../../domain/errors.ts';
import { getThing, listUserThings, viewerState } from '../../domain/things.ts';
import { countUserTips, listThingTipsThisPeriod, listUserTips, tipThing } from '../../domain/tips.ts';
import { getSubscription } from '../../domain/subscriptions.ts';
import { getUser } from '../../domain/users.ts';
import type { ThingRecord } from '../../domain/records.ts';
import { STATUS } from '../../http/plugins/errors.ts';
import type { WebContext } from '../context.ts';
import { sessionPrincipal } from '../sessions.ts';
import { noticeOf, toLogin } from './form.ts';
import { redirectWithFlash } from '../flash.ts';
import { embedSnippets } from './embed.ts';
import { BadPageError, LIST_PAGE_SIZE, pageNumber, pagerOf } from '../paging.ts';
import { helpers } from '../render.ts';
import { findUserThings } from './explore.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How many tips the thing page lists (the newest). */
export const PAGE_LIST_SIZE = 50;

/** The tip errors in words, for the thing page (api-v2.md "Tips": tip_once, tip_owner, no_means). */
export const TIP_ERROR_TEXT: Record<string, string> = {
  tip_once: 'You have already tipped this thing this month. You can tip it again next month.',
  tip_owner: 'This is your own thing: you cannot tip it.',
  no_means: 'You have no means to tip yet: your monthly budget must be above 0 and your balance must cover it.',
};

/** The home page's own notices (src/web/routes/form.ts noticeOf). */
const HOME_NOTICES: Record<string, string> = {
  deleted: 'Your account was deleted. Thank you for having used Tipjar.',
};

/** How many tippers of this month and other things of the owner the thing page lists. */
export const THING_PAGE_TIPPERS = 50;
export const THING_PAGE_OTHER_THINGS = 5;

/**
 * Renders the thing page (thing.eta) for `thing` with `extra` (a refusal's `error`, a `notice`):
 * the thing, its tags as links to `/tag/<tag>`, this month's tippers (those who do not hide their
 * tips; none for a hidden thing the viewer does not own), up to THING_PAGE_OTHER_THINGS other
 * things of its owner (hidden ones only for the owner), and for a logged-in visitor whether they
 * tipped it this month and their subscription (Subscribe, or Pause/Resume and Unsubscribe).
 */
export async function renderThingPage(
  ctx: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  thing: ThingRecord,
  extra: { error?: string; notice?: string; noMeans?: boolean; fundingEnabled?: boolean },
  status = 200,
): Promise<FastifyReply> {
  const s = ctx.services;
  const session = request.webSession;
  const principal = session && sessionPrincipal(session);
  const ownerName = thing.owner.kind === 'user' ? thing.owner.username : undefined;
  const [tips, viewer, subscription, others] = await Promise.all([
    listThingTipsThisPeriod(s, principal, thing.id, { count: THING_PAGE_TIPPERS, page: 1 }),
    viewerState(s, principal, [thing]),
    principal ? getSubscription(s, principal, thing.id) : undefined,
    ownerName
      ? listUserThings(s, ownerName, principal, { count: THING_PAGE_OTHER_THINGS + 1, page: 1 }).catch((err) => {
          if (err instanceof NotFoundError) return [];
          throw err;
        })
      : [],
  ]);
  const isOwner = thing.owner.kind === 'user' && thing.owner.userId === session?.userId;
  return ctx.page(
    request,
    reply,
    './thing',
    {
      title: thing.title || thing.url,
      thing,
      tips,
      isOwner,
      embed: isOwner ? embedSnippets(ctx.config, thing) : undefined,
      tipped: viewer?.tipped.has(thing.id) ?? false,
      subscription,
      otherThings: others.filter((t) => t.id !== thing.id).slice(0, THING_PAGE_OTHER_THINGS),
      ...extra,
    },
    status,
  );
}

/** A thing page id: digits only (1–15 of them), else undefined (→ 404). */
export function pageId(raw: string): number | undefined {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

/** Registers GET /, GET /profile/:username, GET /thing/:id and POST /thing/:id/tip on the website plugin. */
export function pageRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /** GET / — the home page (the one-time notice `deleted`: after an account deletion). */
  app.get('/', async (request, reply) =>
    ctx.page(request, reply, './home', { title: 'Tip what you like', notice: noticeOf(request, HOME_NOTICES) }),
  );

  /**
   * GET /profile/:username — a user's public profile: profile fields; their things (hidden ones
   * only for their owner), newest first, 20 a page (`?page=`, 1-based) with "N things" and
   * "page N of M"; their tips (unless the user hides them; tips on hidden things only for the
   * things' owners), newest first, 20 a page (`?tips_page=`) with "N tips". Unknown user → 404
   * page; a bad page number → the profile with the reason, 400.
   */
  app.get<{ Params: { username: string } }>('/profile/:username', async (request, reply) => {
    const profile = await getUser(s, request.params.username);
    const viewer = request.webSession && sessionPrincipal(request.webSession);
    const tipsHidden = profile.hideTips && viewer?.userId !== profile.id;
    const query = request.query as Record<string, unknown>;
    const path = helpers.profile(profile.username);
    const data = { title: profile.username, profile, tipsHidden, things: [], tips: [] };
    let page: number;
    let tipsPage: number;
    try {
      page = pageNumber(query.page);
      tipsPage = pageNumber(query.tips_page);
    } catch (err) {
      if (!(err instanceof BadPageError)) throw err;
      return ctx.page(request, reply, './profile', { ...data, error: err.message }, 400);
    }
    const [things, tips, tipsTotal] = await Promise.all([
      findUserThings(s, profile.username, viewer, page),
      listUserTips(s, profile.username, viewer, { count: LIST_PAGE_SIZE, page: tipsPage }),
      countUserTips(s, profile.username, viewer),
    ]);
    const keep = (n: number) => (n > 1 ? String(n) : undefined);
    const pager = pagerOf(path, { tips_page: keep(tipsPage) }, page, things.total);
    const tipsPager = pagerOf(path, { page: keep(page) }, tipsPage, tipsTotal, {
      param: 'tips_page',
      noun: ['tip', 'tips'],
    });
    return ctx.page(request, reply, './profile', { ...data, things: things.things, pager, tips, tipsPager });
  });

  /**
   * GET /thing/:id — a thing: title, url (a nofollow link), description, owner, tips count, tags
   * (links), this month's tippers (tippers who hide their tips left out), the owner's other things
   * and, for a logged-in visitor, Tip and Subscribe/Pause/Resume/Unsubscribe (src/web/routes/
   * subscriptions.ts); for its owner, the embed snippets (embed.ts embedSnippets). Unknown or
   * deleted thing → 404 page.
   */
  app.get<{ Params: { id: string } }>('/thing/:id', async (request, reply) => {
    const id = pageId(request.params.id);
    if (id === undefined) throw new NotFoundError('Thing not found', 'things');
    const thing = await getThing(s, id);
    return renderThingPage(ctx, request, reply, thing, { notice: noticeOf(request) });
  });

  /**
   * POST /thing/:id/tip — field _csrf. Tips the thing as the logged-in user through the API's own
   * tipThing (same rules, same transaction). Success: 303 to `/thing/:id` with the one-time notice
   * `tipped` (src/web/flash.ts). A refused tip
   * (tip_once, tip_owner 403; no_means 401) re-renders the page with the reason in words; no_means
   * links to `/funds` (unless PAYMENT_PROVIDER=none) and to the budget in Settings.
   * Not logged in → the log-in page, then back to the thing.
   */
  app.post<{ Params: { id: string } }>('/thing/:id/tip', async (request, reply) => {
    const id = pageId(request.params.id);
    if (id === undefined) throw new NotFoundError('Thing not found', 'things');
    if (!request.webSession) return toLogin(request, reply, `/thing/${id}`);
    try {
      await tipThing(s, sessionPrincipal(request.webSession), id);
    } catch (err) {
      if (err instanceof DomainError && Object.hasOwn(TIP_ERROR_TEXT, err.code)) {
        return renderThingPage(
          ctx,
          request,
          reply,
          await getThing(s, id),
          {
            error: TIP_ERROR_TEXT[err.code],
            noMeans: err.code === 'no_means',
            fundingEnabled: ctx.config.paymentProvider !== 'none',
          },
          STATUS[err.code],
        );
      }
      throw err;
    }
    return redirectWithFlash(reply, `/thing/${id}`, 'tipped', ctx.secure);
  });
}
