/**
 * Tips endpoints (api-v2.md "Endpoints / Tips", DECISIONS.md "Tips").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listOwnTips, listThingTips, listUserTips, tipThing, tipUrl } from '../../../domain/tips.ts';
import type { ThingRecord, TipRecord } from '../../../domain/records.ts';
import { requireScope, requireToken } from '../../plugins/authenticate.ts';
import { parseFull, parseId, parsePage, type Query } from '../../params.ts';
import { bodyOf, fullUsers, type RouteContext } from '../../context.ts';
import { ownerIds, presentThingConfirmation, presentTip } from '../../presenters.ts';
import { single } from '../../../domain/input.ts';

export function tipRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const s = ctx.services;

  async function presentTips(request: FastifyRequest<{ Querystring: Query }>, tips: TipRecord[]) {
    const full = parseFull(request.query);
    const users = await fullUsers(ctx, full, [...ownerIds(tips.map((t) => t.thing)), ...tips.map((t) => t.tipper.id)]);
    return tips.map((t) => presentTip(ctx.urls, t, users));
  }

  const confirmation = (thing: ThingRecord) => ({
    message: 'ok',
    description: 'Thing was successfully tipped',
    thing: presentThingConfirmation(ctx.urls, thing),
  });

  /** GET /users/:username/tips — newest first, paged; 200 [] when the user hides their tips. */
  app.get<{ Params: { username: string }; Querystring: Query }>('/users/:username/tips', { config: { xmlRoot: 'tips' } }, async (request) => {
    const page = parsePage(request.query);
    parseFull(request.query);
    return presentTips(request, await listUserTips(s, request.params.username, request.principal, page));
  });

  /** GET /user/tips — the caller's tips (token, any scope). */
  app.get<{ Querystring: Query }>('/user/tips', { config: { xmlRoot: 'tips' } }, async (request) => {
    const principal = requireToken(request);
    const page = parsePage(request.query);
    parseFull(request.query);
    return presentTips(request, await listOwnTips(s, principal, page));
  });

  /** GET /things/:id/tips — who tipped a thing (token required, any scope). */
  app.get<{ Params: { id: string }; Querystring: Query }>('/things/:id/tips', { config: { xmlRoot: 'tips' } }, async (request) => {
    const principal = requireToken(request);
    const page = parsePage(request.query);
    parseFull(request.query);
    return presentTips(request, await listThingTips(s, principal, parseId(request.params.id) ?? -1, page));
  });

  /** POST /things/:id/tip (scope `tip`) — 200 `{message: "ok", description, thing}` (8-field thing). */
  app.post<{ Params: { id: string } }>('/things/:id/tip', async (request) => {
    const principal = requireScope(request, 'tip');
    return confirmation(await tipThing(s, principal, parseId(request.params.id) ?? -1));
  });

  /** POST /tip (scope `tip`) with `{url}` — a registered URL or an auto-submit URL. */
  app.post('/tip', async (request) => {
    const principal = requireScope(request, 'tip');
    return confirmation(await tipUrl(s, principal, single(bodyOf(request).url)));
  });
}
