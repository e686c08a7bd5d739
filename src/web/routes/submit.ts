/**
 * Auto-submit links for people (DECISIONS.md "Tips"): `GET {SITE_URL}/submit/auto?url=…&user_id=…`
 * (or `owner=<identity>`, plus optional `title`, `description`, `category`, `language`, `tags`,
 * `hidden`) shows a browser the thing of the link's `url` when it is registered, or what its first
 * tip will create, with a Tip button. The tip goes through the API's own `POST /tip` function
 * (src/domain/tips.ts tipUrl): the thing is created on its first tip, in the tip's transaction.
 * A client that does not ask for HTML gets what it always got at this address: the 404 `not_found`
 * error of unknown paths (and the request is not counted as a page view).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, NotFoundError, ValidationError } from '../../domain/errors.ts';
import { requireIdentity } from '../../domain/identities.ts';
import type { ThingRecord } from '../../domain/records.ts';
import { parseNewThing, type NewThing } from '../../domain/thing-input.ts';
import { lookupThing, viewerState } from '../../domain/things.ts';
import { tipUrl } from '../../domain/tips.ts';
import { parseAutoSubmit } from '../../domain/urls.ts';
import { getUser } from '../../domain/users.ts';
import { STATUS } from '../../http/plugins/errors.ts';
import type { WebContext } from '../context.ts';
import { redirectWithFlash } from '../flash.ts';
import { sessionPrincipal } from '../sessions.ts';
import { toLogin } from './form.ts';
import { TIP_ERROR_TEXT } from './pages.ts';

/** The auto-submit path (relative to the site's root). */
export const AUTO_SUBMIT_PATH = '/submit/auto';

/** Whether the client asks for HTML (a browser's `Accept: text/html,…`), as the bare error pages decide. */
function acceptsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}

/**
 * Whether the request is a `GET /submit/auto` from a client that does not ask for HTML: it is
 * answered as an unknown path, as before the page existed, and is not counted as a page view.
 */
export function isMachineAutoSubmit(request: FastifyRequest): boolean {
  return request.routeOptions.url === AUTO_SUBMIT_PATH && !acceptsHtml(request);
}

/** The query string of the request (`url=…&user_id=…`), without the `?`. */
function queryOf(request: FastifyRequest): string {
  const i = request.url.indexOf('?');
  return i < 0 ? '' : request.url.slice(i + 1);
}

/** Registers GET /submit/auto and POST /submit/auto/tip on the website plugin. */
export function submitRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /** The full auto-submit URL of this site with `query`, as `POST /tip` takes it. */
  const autoUrl = (query: string) =>
    `${new URL(AUTO_SUBMIT_PATH.slice(1), ctx.config.siteUrl.replace(/\/*$/, '/')).href}${query ? `?${query}` : ''}`;

  /**
   * Renders the auto-submit page for `query` with `extra` (a refused tip's error). A link that
   * cannot be tipped (no valid `url`, bad metadata, unknown or mismatched owner) renders the
   * reason with 400 (404 for an unknown user or a link naming no owner) and no Tip button.
   */
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    query: string,
    extra: { error?: string },
    status = 200,
  ): Promise<FastifyReply> {
    const principal = request.webSession && sessionPrincipal(request.webSession);
    const here = `${AUTO_SUBMIT_PATH}${query ? `?${query}` : ''}`;
    const action = `${AUTO_SUBMIT_PATH}/tip${query ? `?${query}` : ''}`;
    const base = { title: 'Tip this', here, action, ...extra };
    let thing: ThingRecord | undefined;
    let preview: (NewThing & { ownerName?: string }) | undefined;
    let linkTitle = '';
    try {
      const auto = parseAutoSubmit(autoUrl(query), s.siteUrl);
      linkTitle = auto?.title?.trim() ?? '';
      if (!auto || !auto.url) throw new ValidationError('This link names no page: its url parameter is missing.');
      thing = await lookupThing(s, autoUrl(query));
      if (!thing) {
        const fields = parseNewThing({ ...auto });
        if (auto.owner !== undefined && auto.user_id !== undefined)
          throw new ValidationError('This link names its owner twice (user_id and owner).');
        if (auto.owner !== undefined) {
          requireIdentity(auto.owner);
          preview = fields;
        } else if (auto.user_id) {
          const userId = auto.user_id;
          const owner = await getUser(s, userId).catch((err: unknown) => {
            throw err instanceof NotFoundError ? new NotFoundError(`No user "${userId}"`) : err;
          });
          preview = { ...fields, ownerName: owner.username };
        } else throw new NotFoundError('This link names no owner, and no thing is registered for its page.');
      }
    } catch (err) {
      if (!(err instanceof DomainError) || (err.code !== 'validation' && err.code !== 'not_found')) throw err;
      return ctx.page(request, reply, './submit-auto', { ...base, problem: err.message }, STATUS[err.code]);
    }
    const viewer = thing && (await viewerState(s, principal, [thing]));
    const isOwner = principal !== undefined && thing?.owner.kind === 'user' && thing.owner.userId === principal.userId;
    return ctx.page(
      request,
      reply,
      './submit-auto',
      {
        ...base,
        thing,
        // A hidden thing is shown to others only as what the link itself says (DECISIONS.md "Things").
        thingVisible: thing !== undefined && (!thing.hidden || isOwner),
        linkTitle,
        preview,
        isOwner,
        ownsPreview: preview?.ownerName !== undefined && preview.ownerName === request.webSession?.username,
        tipped: viewer?.tipped.has(thing!.id) ?? false,
      },
      status,
    );
  }

  /**
   * GET /submit/auto?url=…&user_id=…|owner=…[&title=…&description=…&category=…&language=…&tags=…&hidden=…]
   * — for a browser: the registered thing of `url` (title, link, tips; Tip, or "tipped this month")
   * or, when none is registered, what the first tip creates (title, url, owner, category, tags),
   * with a Tip button; not logged in: a log-in link that returns here. Nothing is created by
   * looking. A link that cannot be tipped: the reason, 400 (404: unknown user, no owner).
   * For clients not asking for HTML: the 404 `not_found` of unknown paths, unchanged.
   */
  app.get(AUTO_SUBMIT_PATH, async (request, reply) => {
    if (!acceptsHtml(request)) return reply.callNotFound();
    return render(request, reply, queryOf(request), {});
  });

  /**
   * POST /submit/auto/tip?<the auto-submit link's query> — field _csrf. Tips the link as the
   * logged-in visitor through `POST /tip`'s own tipUrl: the thing is created by its first tip (its
   * owner told by e-mail), later tips tip it. Success: 303 to `/thing/:id` with the one-time notice
   * `tipped`. Refused (re-rendered with the reason, nothing changed): tip_once, tip_owner (403),
   * no_means (401), a link that cannot be tipped (400/404). Not logged in: the log-in page, then
   * back to the auto-submit page.
   */
  app.post(`${AUTO_SUBMIT_PATH}/tip`, async (request, reply) => {
    const query = queryOf(request);
    if (!request.webSession) return toLogin(request, reply, `${AUTO_SUBMIT_PATH}${query ? `?${query}` : ''}`);
    let thing: ThingRecord;
    try {
      thing = await tipUrl(s, sessionPrincipal(request.webSession), autoUrl(query));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      if (Object.hasOwn(TIP_ERROR_TEXT, err.code))
        return render(request, reply, query, { error: TIP_ERROR_TEXT[err.code] }, STATUS[err.code]);
      if (err.code === 'validation' || err.code === 'not_found' || err.code === 'invalid_request')
        return render(request, reply, query, { error: err.message }, STATUS[err.code]);
      throw err;
    }
    return redirectWithFlash(reply, `/thing/${thing.id}`, 'tipped', ctx.secure);
  });
}
