/**
 * Subscriptions on the website (api-v2.md "Subscriptions", DECISIONS.md "Subscriptions"): the
 * thing page's Subscribe / Pause / Resume / Unsubscribe forms and `/subscriptions`, the visitor's
 * subscriptions with the same actions. Every action goes through the API's own domain functions
 * (src/domain/subscriptions.ts), answers 303 with a one-time notice (src/web/flash.ts) and, when
 * refused, re-renders the page it came from with the reason, changing nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, NotFoundError } from '../../domain/errors.ts';
import {
  getSubscription,
  listSubscriptions,
  subscribe,
  toggleSubscription,
  unsubscribe,
} from '../../domain/subscriptions.ts';
import { getThing } from '../../domain/things.ts';
import { STATUS } from '../../http/plugins/errors.ts';
import type { WebContext } from '../context.ts';
import { redirectWithFlash } from '../flash.ts';
import { sessionPrincipal } from '../sessions.ts';
import { field, formOf, noticeOf, toLogin } from './form.ts';
import { pageId, renderThingPage } from './pages.ts';

/** The subscription refusals in words (api-v2.md "Subscriptions": thing_owner, subscribed). */
const SUBSCRIPTION_ERROR_TEXT: Record<string, string> = {
  thing_owner: 'This is your own thing: you cannot subscribe to it.',
  subscribed: 'You are subscribed to this thing already.',
};

/** Refused because the visitor has no subscription to pause, resume or end (400). */
const NOT_SUBSCRIBED = 'You are not subscribed to this thing.';

/** What a subscribe answered with its tip → the one-time notice (src/web/routes/form.ts). */
const SUBSCRIBED_NOTICE = {
  tipped: 'subscribed',
  already_tipped: 'subscribed-tipped',
  no_means: 'subscribed-no-means',
};

type Action = 'subscribe' | 'pause' | 'resume' | 'unsubscribe';

/**
 * Registers GET /subscriptions and POST /thing/:id/subscribe, /thing/:id/pause, /thing/:id/resume
 * and /thing/:id/unsubscribe on the website plugin.
 */
export function subscriptionRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /** Renders `/subscriptions` for the logged-in visitor with `extra` (a refusal's error, a notice). */
  async function renderList(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { error?: string; notice?: string },
    status = 200,
  ): Promise<FastifyReply> {
    const principal = sessionPrincipal(request.webSession!);
    const subscriptions = (await listSubscriptions(s, principal)).map(({ subscription, thing }) => ({
      subscription,
      thing,
      // A thing its owner has hidden is not shown to others (DECISIONS.md "Things"): no title, no link.
      visible: !thing.hidden || (thing.owner.kind === 'user' && thing.owner.userId === principal.userId),
    }));
    return ctx.page(
      request,
      reply,
      './subscriptions',
      { title: 'Your subscriptions', subscriptions, ...extra },
      status,
    );
  }

  /**
   * GET /subscriptions — log-in required. The visitor's subscriptions (active and paused, newest
   * first; those to deleted things left out), each with its state since `started_at` and Pause or
   * Resume and Unsubscribe; a thing hidden by its owner is listed without its title or link.
   */
  app.get('/subscriptions', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    return renderList(request, reply, { notice: noticeOf(request) });
  });

  /**
   * One subscription action on thing `:id` for the logged-in visitor. Field `from`: `subscriptions`
   * sends the visitor back to (and re-renders on refusal) `/subscriptions`, anything else the thing
   * page. Unknown thing → 404 page; not logged in → the log-in page, then back to the thing.
   */
  async function act(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, action: Action) {
    const id = pageId(request.params.id);
    if (id === undefined) throw new NotFoundError('Thing not found', 'things');
    if (!request.webSession) return toLogin(request, reply, `/thing/${id}`);
    const fromList = field(formOf(request), 'from') === 'subscriptions';
    const principal = sessionPrincipal(request.webSession);
    const refuse = async (error: string, status: number) =>
      fromList
        ? renderList(request, reply, { error }, status)
        : renderThingPage(ctx, request, reply, await getThing(s, id), { error }, status);
    const back = fromList ? '/subscriptions' : `/thing/${id}`;
    let notice: string;
    try {
      if (action === 'subscribe') {
        notice = SUBSCRIBED_NOTICE[(await subscribe(s, principal, id)).tip];
      } else if (action === 'unsubscribe') {
        await unsubscribe(s, principal, id);
        notice = 'unsubscribed';
      } else {
        await getThing(s, id);
        const current = await getSubscription(s, principal, id);
        if (!current) return await refuse(NOT_SUBSCRIBED, 400);
        // The form names the state wanted, so a form sent twice does not undo itself.
        const wanted = action === 'pause' ? 'paused' : 'started';
        if (current.active !== (action === 'resume') && (await toggleSubscription(s, principal, id)) !== wanted)
          await toggleSubscription(s, principal, id);
        notice = action === 'pause' ? 'paused' : 'resumed';
      }
    } catch (err) {
      if (err instanceof DomainError && Object.hasOwn(SUBSCRIPTION_ERROR_TEXT, err.code))
        return refuse(SUBSCRIPTION_ERROR_TEXT[err.code]!, STATUS[err.code]);
      // No subscription to end (the thing itself exists: else the 404 page).
      if (err instanceof NotFoundError && action === 'unsubscribe' && (await thingExists(id)))
        return refuse(NOT_SUBSCRIBED, 400);
      throw err;
    }
    return redirectWithFlash(reply, back, notice, ctx.secure);
  }

  async function thingExists(id: number): Promise<boolean> {
    return getThing(s, id).then(
      () => true,
      (err: unknown) => {
        if (err instanceof NotFoundError) return false;
        throw err;
      },
    );
  }

  /**
   * POST /thing/:id/subscribe — fields _csrf, from. Subscribes and tips the thing for this month
   * unless tipped already (a visitor without means is still subscribed; the notice says the tip
   * waits). Refused (re-rendered): own thing (403 thing_owner), subscribed already (403).
   */
  app.post<{ Params: { id: string } }>('/thing/:id/subscribe', async (request, reply) =>
    act(request, reply, 'subscribe'),
  );

  /**
   * POST /thing/:id/pause — fields _csrf, from. Pauses an active subscription (a paused one stays
   * paused). Refused (re-rendered, 400): no subscription to the thing.
   */
  app.post<{ Params: { id: string } }>('/thing/:id/pause', async (request, reply) => act(request, reply, 'pause'));

  /**
   * POST /thing/:id/resume — fields _csrf, from. Resumes a paused subscription (`started_at` reset;
   * an active one stays active). Refused (re-rendered, 400): no subscription to the thing.
   */
  app.post<{ Params: { id: string } }>('/thing/:id/resume', async (request, reply) => act(request, reply, 'resume'));

  /**
   * POST /thing/:id/unsubscribe — fields _csrf, from. Ends the subscription, active or paused.
   * Refused (re-rendered, 400): no subscription to the thing.
   */
  app.post<{ Params: { id: string } }>('/thing/:id/unsubscribe', async (request, reply) =>
    act(request, reply, 'unsubscribe'),
  );
}
