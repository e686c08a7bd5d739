/**
 * The claim page (notes §15 `claim_url`): `/claim/<identity>` — optionally followed by
 * `/owner/<URL-encoded address>`, which partners append for `email:` owners — shows the pending
 * things of a partner-side identity and lets a logged-in user claim an `email:<md5>` identity
 * when the MD5 of their account's address (trimmed, lower-cased) is that hash and the address is
 * verified (until then the page says why and offers a new verification link). Claiming is the
 * same transaction as partner verification (src/domain/partners.ts claimIdentity): the things,
 * their tips and the held shares become the user's. `twitter:` and `partner:` identities are
 * verified through the partner (`POST /user/verify`); the page says so.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseIdentity } from '../../domain/identities.ts';
import { claimIdentity, emailMatchesIdentity, getIdentityClaim } from '../../domain/partners.ts';
import { isEmailVerified } from '../../domain/verification.ts';
import { getUserById } from '../../domain/users.ts';
import { ForbiddenError, NotFoundError } from '../../domain/errors.ts';
import type { Services } from '../../domain/services.ts';
import type { WebContext } from '../context.ts';
import { noticeOf, toLogin } from './form.ts';
import { redirectWithFlash } from '../flash.ts';

/** Pending things listed on the page, at most. */
const LISTED = 50;

/** The logged-in user, or undefined when the session's user is gone. */
async function userOf(s: Services, userId: number) {
  return getUserById(s, userId).catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  });
}

/** The claim page's own notices (src/web/routes/form.ts noticeOf). */
const CLAIM_NOTICES = { claimed: 'Claimed: these things and their tips are now yours.' };

/** Registers the claim pages (GET /claim/:identity, its owner variant, POST /claim/:identity) on the website plugin. */
export function claimRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /** The page's state for the visitor; `status` 404 when the identity is malformed. */
  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    raw: string,
    address: string,
    notice?: string,
    status = 200,
  ) {
    const id = parseIdentity(raw);
    if (!id) return ctx.errorPage(request, reply, 404, 'Page not found', 'This claim link is not valid.');
    const path = `/claim/${encodeURIComponent(id.identity)}`;
    const { pendingThings: things, holder } = await getIdentityClaim(s, id.identity, LISTED);
    const session = request.webSession;
    const user = session ? await userOf(s, session.userId) : undefined;
    let state: 'login' | 'claim' | 'mismatch' | 'unverified' | 'yours' | 'taken' | 'partner';
    if (holder) state = holder.userId === user?.id ? 'yours' : 'taken';
    else if (id.kind !== 'email') state = 'partner';
    else if (!user) state = 'login';
    else if (!emailMatchesIdentity(user.email, id.identity)) state = 'mismatch';
    else state = isEmailVerified(user) ? 'claim' : 'unverified';
    return ctx.page(
      request,
      reply,
      './claim',
      {
        title: 'Claim your things',
        identity: id.identity,
        kind: id.kind,
        address,
        things,
        state,
        path,
        userAddress: user?.email ?? '',
        returnTo: request.method === 'GET' ? request.url : path,
        loginPath: `/login?return_to=${encodeURIComponent(request.url)}`,
        notice,
      },
      status,
    );
  }

  /** GET /claim/:identity — the pending things of the identity and what the visitor can do. */
  app.get<{ Params: { identity: string } }>('/claim/:identity', async (request, reply) => {
    const notice = noticeOf(request, CLAIM_NOTICES);
    return show(request, reply, request.params.identity, '', notice);
  });

  /** GET /claim/:identity/owner/:address — the same, naming the e-mail address the partner knows. */
  app.get<{ Params: { identity: string; address: string } }>(
    '/claim/:identity/owner/:address',
    async (request, reply) => show(request, reply, request.params.identity, request.params.address, noticeOf(request)),
  );

  /**
   * POST /claim/:identity — field _csrf. Log-in required. Only for `email:` identities whose hash
   * is the MD5 of the user's verified address: 303 to `/claim/<identity>` with the one-time notice `claimed`; otherwise
   * (another address, an address not verified yet, an identity held by another account) the page
   * again with 403 and nothing changed.
   */
  app.post<{ Params: { identity: string } }>('/claim/:identity', async (request, reply) => {
    const id = parseIdentity(request.params.identity);
    if (!id) return ctx.errorPage(request, reply, 404, 'Page not found', 'This claim link is not valid.');
    const path = `/claim/${encodeURIComponent(id.identity)}`;
    if (!request.webSession) return toLogin(request, reply, path);
    const user = await userOf(s, request.webSession.userId);
    if (!user || id.kind !== 'email' || !emailMatchesIdentity(user.email, id.identity) || !isEmailVerified(user))
      return show(request, reply, id.identity, '', undefined, 403);
    let claimed: number[] | null;
    try {
      claimed = await claimIdentity(s, user.id, id.identity, null);
    } catch (err) {
      // The address changed, or lost its verification, since it was read above.
      if (err instanceof ForbiddenError) return show(request, reply, id.identity, '', undefined, 403);
      throw err;
    }
    if (claimed === null) return show(request, reply, id.identity, '', undefined, 403);
    return redirectWithFlash(reply.header('cache-control', 'no-store'), path, 'claimed', ctx.secure);
  });
}
