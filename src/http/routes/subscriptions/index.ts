/**
 * Subscriptions endpoints (api-v2.md "Endpoints / Subscriptions" and "States and transitions",
 * DECISIONS.md "Subscriptions"); scope `tip` on all four. Missing token → 401 `unauthorized`,
 * token without `tip` → 403 `insufficient_scope`.
 */
import type { FastifyInstance } from 'fastify';
import { listSubscriptions, subscribe, toggleSubscription, unsubscribe } from '../../../domain/subscriptions.ts';
import { viewerState } from '../../../domain/things.ts';
import { requireScope } from '../../plugins/authenticate.ts';
import { parsed } from '../../schemas/wire.ts';
import type { ThingId } from '../../../domain/records.ts';
import type { RouteContext } from '../../context.ts';
import { presentSubscription, presentThingConfirmation } from '../../presenters.ts';
import * as docs from './schemas.ts';
import { withConfig } from '../../schemas/common.ts';

export function subscriptionRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const s = ctx.services;

  /**
   * GET /user/subscriptions — the caller's subscriptions (active and paused), newest first, not
   * paged: array of Subscription `{type, active, created_at, started_at, thing}`.
   */
  app.get('/user/subscriptions', withConfig(docs.listSubscriptions, { xmlRoot: 'subscriptions' }), async (request) => {
    const principal = requireScope(request, 'tip');
    const subs = await listSubscriptions(s, principal);
    const viewer = await viewerState(
      s,
      principal,
      subs.map((x) => x.thing),
    );
    return subs.map((x) => presentSubscription(ctx.urls, x.subscription, x.thing, viewer));
  });

  /**
   * POST /things/:id/subscriptions — subscribes and tips the thing for the current period unless
   * already tipped (no tip without means; the subscription is still created). 200
   * `{message: "ok", description: "Successfully subscribed to Thing", thing}` (8-field thing).
   * Errors: 404 `not_found`, 403 `thing_owner`, 403 `subscribed`.
   */
  app.post<{ Params: { id: ThingId } }>('/things/:id/subscriptions', docs.subscribe, async (request) => {
    const principal = requireScope(request, 'tip');
    const { thing } = await subscribe(s, principal, parsed(request).params.id);
    return {
      message: 'ok',
      description: 'Successfully subscribed to Thing',
      thing: presentThingConfirmation(ctx.urls, thing),
    };
  });

  /**
   * PUT /things/:id/subscriptions — toggles: active → `{message: "paused", description:
   * "Subscription paused"}`; paused → `{message: "started", description: "Subscription started"}`.
   * 404 `not_found` without such a thing or subscription. The body is ignored.
   */
  app.put<{ Params: { id: ThingId } }>('/things/:id/subscriptions', docs.toggleSubscription, async (request) => {
    const principal = requireScope(request, 'tip');
    const state = await toggleSubscription(s, principal, parsed(request).params.id);
    return state === 'paused'
      ? { message: 'paused', description: 'Subscription paused' }
      : { message: 'started', description: 'Subscription started' };
  });

  /** DELETE /things/:id/subscriptions — 204, empty body; 404 `not_found` without a subscription. */
  app.delete<{ Params: { id: ThingId } }>('/things/:id/subscriptions', docs.unsubscribe, async (request, reply) => {
    const principal = requireScope(request, 'tip');
    await unsubscribe(s, principal, parsed(request).params.id);
    return reply.code(204).send();
  });
}
