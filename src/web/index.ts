/**
 * The website: server-rendered pages at the site's root, outside /rest/v2 — sign-up,
 * log-in, log-out, settings, `/profile/:username`, `/thing/:id`, "Your applications",
 * "Authorized applications" and the authorization endpoint's pages (`GET/POST /oauth/authorize`).
 *
 * One encapsulated Fastify plugin: every request but the stylesheet is counted against its client
 * IP's hourly page limit first (RATE_LIMIT_PAGES; over it: 429 with `Retry-After` and a small HTML
 * page, before anything else runs); cookies are parsed only here (not on the API's hot path); a
 * preHandler loads the visitor's session and refuses every POST without a valid CSRF token (403,
 * nothing changed); errors render as HTML pages, never the API's JSON. Unknown paths outside the
 * API, and errors raised outside any context (a path that does not decode, refused input on an
 * unknown path), are answered by `sendBareErrorPage` (wired into the app's root handlers) when the
 * client asks for HTML.
 */
import { readFileSync } from 'node:fs';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import type { Config } from '../config/index.ts';
import { DomainError } from '../domain/errors.ts';
import type { Services } from '../domain/services.ts';
import { STATUS } from '../http/plugins/errors.ts';
import { checkCsrf, CsrfError, needsCsrf } from './csrf.ts';
import { PasswordHashingBusyError } from '../auth/passwords.ts';
import { clientNetwork } from '../ratelimit/limiter.ts';
import type { WebLimits } from './limits.ts';
import { minutesText, type WebContext } from './context.ts';
import { PAGE_HEADERS, renderTemplate, sendPage, helpers, makeHelpers } from './render.ts';
import { loadSession } from './sessions.ts';
import { accountRoutes } from './routes/account.ts';
import { pageRoutes } from './routes/pages.ts';
import { settingsRoutes } from './routes/settings.ts';
import { appsRoutes } from './routes/apps.ts';
import { authorizeRoutes } from './routes/authorize.ts';
import { claimRoutes } from './routes/claim.ts';
import { passwordRoutes } from './routes/password.ts';
import { accountDataRoutes } from './routes/account-data.ts';
import { verifyRoutes } from './routes/verify.ts';
import { noticeRoutes } from './routes/notices.ts';
import { embedRoutes } from './routes/embed.ts';
import { fundsRoutes } from './routes/funds.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { isMachineAutoSubmit, submitRoutes } from './routes/submit.ts';
import { exploreRoutes } from './routes/explore.ts';
import { creatorRoutes } from './routes/creators.ts';
import { sourceFile } from '../paths.ts';
import { FAVICON_PATHS, siteAssetRoutes } from './routes/site-assets.ts';
import { apiDocsRoutes } from './api-docs.ts';

export interface WebOptions {
  services: Services;
  config: Config;
  limits: WebLimits;
}

const CSS = readFileSync(sourceFile('web/static/site.css'), 'utf8');

/** Headings of error pages by status. */
const HEADINGS: Record<number, string> = {
  400: 'Something is wrong with that request',
  401: 'Not allowed',
  403: 'Not allowed',
  404: 'Page not found',
  413: 'Too much data',
  429: 'Too many attempts',
  500: 'Something went wrong',
  503: 'Too busy right now',
};

/** The path of the stylesheet, the one website path not counted against the page limit. */
const STYLESHEET = '/static/site.css';

/**
 * Sends an HTML page with the heading of `status` and `message`, in the layout, with the page
 * headers, but without the visitor's session or a CSRF token: for answers given before the session
 * is loaded (the page limit) or outside the website's routes (the 404 page).
 */
function sendBarePage(reply: FastifyReply, status: number, message: string): FastifyReply {
  const heading = HEADINGS[status] ?? HEADINGS[400]!;
  const html = renderTemplate('./error', { title: heading, heading, message, user: undefined, csrf: '', h: helpers });
  return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(html);
}

/**
 * Registers the website. Call once on the root instance, after the API (see app.ts).
 * Routes: GET / · GET/POST /signup · GET/POST /login · POST /logout · GET/POST /settings ·
 * POST /settings/budget · GET /profile/:username · GET /thing/:id · POST /thing/:id/tip ·
 * GET/POST /apps · POST /apps/:clientId/secret · POST /apps/:clientId/delete · GET /authorized ·
 * POST /authorized/:clientId/revoke · GET/POST /oauth/authorize · GET /static/site.css ·
 * GET /claim/:identity[/owner/:address] · POST /claim/:identity (src/web/routes/claim.ts) ·
 * GET/POST /password/forgot · GET/POST /password/reset/:token · POST /settings/password ·
 * POST /settings/email (src/web/routes/password.ts).
 * GET /settings/export · GET/POST /settings/delete (src/web/routes/account-data.ts).
 * GET /verify-email/:token · POST /verify-email/resend (src/web/routes/verify.ts).
 * POST /settings/notices · GET/POST /notices/unsubscribe/:token · POST /thing/:id/hide ·
 * POST /thing/:id/delete (src/web/routes/notices.ts).
 * GET /thing/:id/badge.svg · GET /thing/:id/button · GET /js/button.js (src/web/routes/embed.ts).
 * GET/POST /funds (src/web/routes/funds.ts).
 * GET /subscriptions · POST /thing/:id/subscribe|pause|resume|unsubscribe (src/web/routes/subscriptions.ts).
 * GET /submit/auto · POST /submit/auto/tip (src/web/routes/submit.ts).
 * GET /search · GET /explore · GET /category/:id · GET /tag/:tag (src/web/routes/explore.ts).
 * GET/POST /things/new · GET/POST /thing/:id/edit (src/web/routes/creators.ts).
 * GET /favicon.svg · GET /favicon.ico (src/web/routes/site-assets.ts).
 * GET /docs/api: the API's wire-format document (src/web/api-docs.ts).
 * GET /apps/:clientId/secret · GET /apps/:clientId/delete · GET /authorized/:clientId/revoke: confirmation pages.
 */
export async function webPlugin(app: FastifyInstance, opts: WebOptions): Promise<void> {
  const { services, config, limits } = opts;
  const secure = config.siteUrl.startsWith('https:');

  // Page views per client IP, before cookies, sessions or bodies cost anything.
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url === STYLESHEET || FAVICON_PATHS.has(request.routeOptions.url ?? '')) return;
    if (isMachineAutoSubmit(request)) return;
    const status = await limits.pages.hit(clientNetwork(request.ip));
    if (!status.exceeded) return;
    reply.header('retry-after', String(status.retryAfter));
    return sendBarePage(
      reply,
      429,
      `Too many pages were requested from your network in the last hour. Please try again in ${minutesText(status.retryAfter)}.`,
    );
  });

  await app.register(cookie);
  app.decorateRequest('webSession', undefined);

  const h = makeHelpers(config.currency, { funding: config.paymentProvider !== 'none' });
  const ctx: WebContext = {
    services,
    config,
    secure,
    limits,
    page: (request, reply, view, data, status) => sendPage(request, reply, view, data, { status, secure, h }),
    errorPage: (request, reply, status, heading, message) =>
      sendPage(request, reply, './error', { title: heading, heading, message }, { status, secure, h }),
    confirm: (request, reply, page, status = 200) => {
      const error = status === 400 ? 'Nothing was changed: confirm with the button below.' : undefined;
      return sendPage(request, reply, './confirm', { ...page, heading: page.title, error }, { status, secure, h });
    },
  };

  // Every website request: who is logged in; every POST: a valid CSRF token, before any route runs.
  app.addHook('preHandler', async (request) => {
    request.webSession = await loadSession(services, request);
    if (request.method === 'POST' && needsCsrf(request)) checkCsrf(request);
  });

  app.setErrorHandler((err: FastifyError | DomainError | CsrfError, request, reply) => {
    if (err instanceof CsrfError) return ctx.errorPage(request, reply, 403, 'This form has expired', err.message);
    if (err instanceof PasswordHashingBusyError) {
      reply.header('retry-after', String(err.retryAfter));
      return ctx.errorPage(request, reply, 503, HEADINGS[503]!, `${err.message}.`);
    }
    if (err instanceof DomainError) {
      const status = STATUS[err.code];
      return ctx.errorPage(request, reply, status, HEADINGS[status] ?? HEADINGS[400]!, err.message);
    }
    const status = (err as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      const message =
        status === 413 ? 'The form sent too much data.' : 'The form could not be read. Go back and try again.';
      return ctx.errorPage(request, reply, status === 413 ? 413 : 400, HEADINGS[status === 413 ? 413 : 400]!, message);
    }
    request.log.error({ err }, 'unexpected failure on a website page');
    return ctx.errorPage(
      request,
      reply,
      500,
      HEADINGS[500]!,
      'Something went wrong on our side; nothing was changed. Please try again.',
    );
  });

  /** GET /static/site.css — the one stylesheet (not counted against the page limit). */
  app.get(STYLESHEET, async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(CSS),
  );

  accountRoutes(app, ctx);
  pageRoutes(app, ctx);
  settingsRoutes(app, ctx);
  appsRoutes(app, ctx);
  authorizeRoutes(app, ctx);
  claimRoutes(app, ctx);
  passwordRoutes(app, ctx);
  accountDataRoutes(app, ctx);
  verifyRoutes(app, ctx);
  noticeRoutes(app, ctx);
  embedRoutes(app, ctx);
  fundsRoutes(app, ctx);
  subscriptionRoutes(app, ctx);
  submitRoutes(app, ctx);
  exploreRoutes(app, ctx);
  creatorRoutes(app, ctx);
  siteAssetRoutes(app);
  apiDocsRoutes(app, ctx);
}

/**
 * An HTML error page (`status`, `message`) for a request outside the API whose client prefers HTML
 * (a browser's `Accept: text/html,…`), for errors raised before any website route runs. Returns
 * undefined — leaving the API's JSON error shape — for paths under `apiPrefix` and for clients
 * that did not ask for HTML.
 */
export function sendBareErrorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  apiPrefix: string,
  status: number,
  message: string,
): FastifyReply | undefined {
  if (request.url === apiPrefix || request.url.startsWith(`${apiPrefix}/`) || request.url.startsWith(`${apiPrefix}?`))
    return undefined;
  if (!/\btext\/html\b/i.test(request.headers.accept ?? '')) return undefined;
  return sendBarePage(reply, status, message);
}
