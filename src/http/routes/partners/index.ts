/**
 * Partner verification (api-v2.md "Endpoints / Partner verification", DECISIONS.md "Partners,
 * pending things, webhooks"): a partner's application, with a user's token issued to it, tells
 * the service that the user owns a partner-side identity.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { verifyIdentity } from '../../../domain/partners.ts';
import { requireToken } from '../../plugins/authenticate.ts';
import type { RouteContext } from '../../context.ts';
import { parsed } from '../../schemas/wire.ts';
import * as docs from './schemas.ts';

/** The parsed input of both routes: `identity` (its first value) from the body or the query. */
interface VerifyInput {
  Body: { identity?: string };
  Querystring: { identity?: string };
}

export function partnerRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const verify = async (request: FastifyRequest<VerifyInput>, username?: string) => {
    const principal = requireToken(request);
    const { body, query } = parsed(request);
    const identity = body.identity ?? query.identity;
    const { identity: verified, claimedThingIds } = await verifyIdentity(ctx.services, principal, identity, username);
    const n = claimedThingIds.length;
    return {
      message: 'ok',
      description: `Identity ${verified} verified; ${n} pending thing${n === 1 ? '' : 's'} claimed`,
    };
  };

  /**
   * POST /user/verify — body (JSON or form) or query `identity`; token of a partner's client.
   * 200 `{message: "ok", description}`; 401 `unauthorized` when not logged in, not a partner's
   * token, the identity is malformed or outside the partner's namespace, or verified by another user.
   */
  app.post<VerifyInput>('/user/verify', docs.verifyOwn, async (request) => verify(request));

  /** POST /users/:username/verify — as above; the token's user must be `:username` (else 401). */
  app.post<VerifyInput & { Params: { username: string } }>(
    '/users/:username/verify',
    docs.verifyUser,
    async (request) => verify(request, request.params.username),
  );
}
