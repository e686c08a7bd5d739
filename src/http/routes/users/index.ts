/** Users endpoints (api-v2.md "Endpoints / Users"). */
import type { FastifyInstance } from 'fastify';
import { getOwnUser, getUser } from '../../../domain/users.ts';
import { getBudget } from '../../../domain/money/account.ts';
import { requireToken } from '../../plugins/authenticate.ts';
import { presentUser } from '../../presenters.ts';
import type { RouteContext } from '../../context.ts';
import * as docs from './schemas.ts';

export function userRoutes(app: FastifyInstance, ctx: RouteContext): void {
  /** GET /users/:username — the public User. 404 `not_found` for an unknown user. */
  app.get<{ Params: { username: string } }>('/users/:username', docs.getUser, async (request) => {
    return presentUser(ctx.urls, await getUser(ctx.services, request.params.username));
  });

  /**
   * GET /user — the caller (token); with scope `extendedread` also `email`, `email_verified`
   * (boolean), `registered_at`, `budget_cents` and `period_budget_cents` (docs/api.md "Users").
   */
  app.get('/user', docs.getOwnUser, async (request) => {
    const principal = requireToken(request);
    const user = await getOwnUser(ctx.services, principal);
    if (!principal.scopes.has('extendedread')) return presentUser(ctx.urls, user);
    return presentUser(ctx.urls, user, await getBudget(ctx.services, user.id));
  });
}
