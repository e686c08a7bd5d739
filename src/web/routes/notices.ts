/**
 * E-mail notices on the website (src/domain/notices.ts): the "E-mail notices" form of the settings
 * page, the one-click unsubscription link every notice carries (RFC 8058), and the owner's
 * answers to a thing created in their name through an auto-submit URL (the `thing_created`
 * notice links to the thing's page, which offers them): hide it, delete it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../../domain/errors.ts';
import { NOTICES } from '../../domain/mail.ts';
import { describeUnsubscription, NOTICE_KINDS, setNotices, unsubscribe } from '../../domain/notices.ts';
import type { NoticeKind, UserRecord } from '../../domain/records.ts';
import { deleteThing, ownThing, updateThing } from '../../domain/things.ts';
import type { WebContext } from '../context.ts';
import { sessionPrincipal } from '../sessions.ts';
import { field, formOf, toLogin } from './form.ts';
import { redirectWithFlash } from '../flash.ts';

/** The form field and value of a one-click unsubscription (RFC 8058 §3.1). */
const ONE_CLICK_FIELD = 'List-Unsubscribe';
const ONE_CLICK_VALUE = 'One-Click';

/** What the settings page's "E-mail notices" section shows: each notice, its label, on or off, and whether mail can go out at all. */
export function noticeSettings(user: UserRecord): {
  items: { kind: NoticeKind; label: string; on: boolean }[];
  verified: boolean;
} {
  return {
    items: NOTICE_KINDS.map((kind) => ({ kind, label: NOTICES[kind].label, on: user.notices[kind] })),
    verified: user.emailVerifiedAt !== null && user.email !== '',
  };
}

/**
 * The fields of a multipart/form-data body as text, first value of each name. Lenient about the
 * delimiter (RFC 8058's own example omits the `--` before its boundary): parts are split on the
 * boundary itself and their values trimmed.
 */
export function multipartFields(body: string, contentType: string): Record<string, string> {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  const out: Record<string, string> = {};
  if (!boundary) return out;
  for (const part of body.split(boundary)) {
    const blank = /\r?\n\r?\n/.exec(part);
    if (!blank) continue;
    const name = /\bname="([^"]*)"/i.exec(part.slice(0, blank.index))?.[1];
    if (name === undefined || Object.hasOwn(out, name)) continue;
    out[name] = part
      .slice(blank.index + blank[0].length)
      .replace(/(\r?\n)?-*\s*$/, '')
      .trim();
  }
  return out;
}

/** A thing page id: digits only (1–15 of them), else undefined (→ 404). */
function pageId(raw: string): number | undefined {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

/**
 * Registers POST /settings/notices, GET/POST /notices/unsubscribe/:token, POST /thing/:id/hide and
 * POST /thing/:id/delete on the website plugin.
 */
export function noticeRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /**
   * POST /settings/notices — fields `notice` (repeated: each notice kept on, one of NOTICES' kinds;
   * an unchecked box is not sent, so a notice absent is turned off), _csrf. Success: 303 to
   * `/settings` with the one-time notice `notices`. An unknown notice → 400 page with the reason; nothing is written.
   */
  app.post('/settings/notices', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/settings');
    const raw = formOf(request).notice;
    const given = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
    const unknown = given.find((g) => !(NOTICE_KINDS as string[]).includes(g));
    if (unknown !== undefined) throw new ValidationError(`Unknown notice: "${unknown}"`, 'users');
    const on = Object.fromEntries(NOTICE_KINDS.map((k) => [k, given.includes(k)])) as Record<NoticeKind, boolean>;
    await setNotices(s, request.webSession.userId, on);
    return redirectWithFlash(reply, '/settings', 'notices', ctx.secure);
  });

  // The unsubscription link: its own scope, so that the multipart/form-data and text/plain bodies
  // mail clients send (RFC 8058) are read here and nowhere else on the site.
  app.register(async (scope) => {
    scope.addContentTypeParser(
      ['multipart/form-data', 'text/plain'],
      { parseAs: 'string', bodyLimit: 16 * 1024 },
      (request, body, done) => {
        const text = String(body);
        const type = String(request.headers['content-type'] ?? '');
        done(
          null,
          /^multipart\//i.test(type)
            ? multipartFields(text, type)
            : Object.fromEntries(new URLSearchParams(text.trim())),
        );
      },
    );

    const page = (
      request: FastifyRequest,
      reply: FastifyReply,
      token: string,
      data: { label: string; done: boolean; error?: string },
      status = 200,
    ) =>
      ctx.page(
        request,
        reply,
        './unsubscribe',
        { title: data.done ? 'Unsubscribed' : 'Unsubscribe', action: `/notices/unsubscribe/${token}`, ...data },
        status,
      );

    /**
     * GET /notices/unsubscribe/:token — what the link turns off and a button that does it (a POST
     * of `List-Unsubscribe=One-Click`). Changes nothing: mail scanners fetch links. Unknown or
     * expired token → 404 page.
     */
    scope.get<{ Params: { token: string } }>('/notices/unsubscribe/:token', async (request, reply) => {
      const what = await describeUnsubscription(s, request.params.token);
      return page(request, reply, request.params.token, { label: what.label, done: false });
    });

    /**
     * POST /notices/unsubscribe/:token — RFC 8058 one-click: body `List-Unsubscribe=One-Click`
     * (application/x-www-form-urlencoded or multipart/form-data), no CSRF token, no cookie needed:
     * the token is the credential. Turns that notice off for the user it was sent to; 200 with a
     * short page. Repeating it changes nothing. Unknown or expired token → 404 page; without the
     * one-click field → 400 with the button; nothing changes.
     */
    scope.post<{ Params: { token: string } }>(
      '/notices/unsubscribe/:token',
      { config: { csrf: false } },
      async (request, reply) => {
        const token = request.params.token;
        if (field(formOf(request), ONE_CLICK_FIELD) !== ONE_CLICK_VALUE) {
          const what = await describeUnsubscription(s, token);
          return page(
            request,
            reply,
            token,
            { label: what.label, done: false, error: 'Use the button below to unsubscribe.' },
            400,
          );
        }
        const what = await unsubscribe(s, token);
        return page(request, reply, token, { label: what.label, done: true });
      },
    );
  });

  /**
   * POST /thing/:id/hide — fields hidden (`1` hide, `0` show again), _csrf; the owner only.
   * Success: 303 to `/thing/:id` with the one-time notice `…`. Not the owner → 403 page; unknown thing → 404 page.
   * Not logged in → the log-in page, then back to the thing.
   */
  app.post<{ Params: { id: string } }>('/thing/:id/hide', async (request, reply) => {
    const id = pageId(request.params.id);
    if (id === undefined) throw new NotFoundError('Thing not found', 'things');
    if (!request.webSession) return toLogin(request, reply, `/thing/${id}`);
    const hidden = field(formOf(request), 'hidden');
    if (hidden !== '1' && hidden !== '0') throw new ValidationError('hidden must be 1 or 0', 'things');
    await updateThing(s, sessionPrincipal(request.webSession), id, { hidden: hidden === '1' });
    return redirectWithFlash(reply, `/thing/${id}`, hidden === '1' ? 'thing-hidden' : 'thing-shown', ctx.secure);
  });

  /** The confirmation page of deleting `thing` (WebContext.confirm). */
  const deletePage = (thing: { id: number; title: string; url: string }) => ({
    title: `Delete “${thing.title || thing.url}”?`,
    explanation: [
      'The thing is deleted: it leaves your profile, lists, search and feeds, nobody can tip it or subscribe to it any more, and its button and badge show nothing.',
      'The tips it has received stay counted for the months they were given in.',
      'This cannot be undone. To take it out of sight for a while, hide it instead.',
    ],
    action: `/thing/${thing.id}/delete`,
    button: 'Delete the thing',
    cancel: `/thing/${thing.id}`,
  });

  /**
   * GET /thing/:id/delete — the confirmation page (what deleting does; a button posting
   * `confirm=1`, Cancel back to the thing). The owner only: someone else → 403 page; unknown or
   * deleted thing → 404 page. Not logged in → the log-in page, then back here.
   */
  app.get<{ Params: { id: string } }>('/thing/:id/delete', async (request, reply) => {
    const id = pageId(request.params.id);
    if (id === undefined) throw new NotFoundError('Thing not found', 'things');
    if (!request.webSession) return toLogin(request, reply);
    const thing = await ownThing(s, sessionPrincipal(request.webSession), id, 'delete');
    return ctx.confirm(request, reply, deletePage(thing));
  });

  /**
   * POST /thing/:id/delete — fields confirm (`1`, from the confirmation page), _csrf; the owner
   * only. Success: 303 to `/` with the one-time notice `thing-deleted`. Without the confirmation:
   * 400 with the confirmation page; nothing changes. Not the owner → 403 page; unknown thing → 404
   * page.
   */
  app.post<{ Params: { id: string } }>('/thing/:id/delete', async (request, reply) => {
    const id = pageId(request.params.id);
    if (id === undefined) throw new NotFoundError('Thing not found', 'things');
    if (!request.webSession) return toLogin(request, reply, `/thing/${id}`);
    const principal = sessionPrincipal(request.webSession);
    if (field(formOf(request), 'confirm') !== '1') {
      return ctx.confirm(request, reply, deletePage(await ownThing(s, principal, id, 'delete')), 400);
    }
    await deleteThing(s, principal, id);
    return redirectWithFlash(reply, '/', 'thing-deleted', ctx.secure);
  });
}
