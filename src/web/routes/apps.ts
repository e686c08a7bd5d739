/**
 * "Your applications" and "Authorized applications" (DECISIONS.md "OAuth 2"): a user
 * registers client applications (name, callback domain, optional exact redirect URIs), sees their
 * client ids, sees a secret once (at registration and after each rotation; stored hashed), rotates
 * it, changes the redirect URIs, deletes a client; and sees and revokes what they granted to others'
 * applications. The OAuth domain is src/auth/oauth/clients.ts. Log-in required on every page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createClient,
  deleteClient,
  listAuthorizedApps,
  listClientsOwnedBy,
  revokeAuthorization,
  rotateClientSecret,
  setClientRedirectUris,
} from '../../auth/oauth/clients.ts';
import { SCOPE_DESCRIPTIONS } from '../../auth/oauth/authorize.ts';
import { DomainError } from '../../domain/errors.ts';
import { isScope } from '../../domain/scopes.ts';
import type { WebContext } from '../context.ts';
import { field, formOf, noticeOf, toLogin } from './form.ts';
import { redirectWithFlash } from '../flash.ts';

/** A scope in plain words (SCOPE_DESCRIPTIONS), or the scope's name for an unknown one. */
export function describeScope(scope: string): string {
  return isScope(scope) ? SCOPE_DESCRIPTIONS[scope] : scope;
}

/**
 * Registers the applications pages: GET/POST /apps, POST /apps/:clientId/redirect-uris,
 * GET/POST /apps/:clientId/{secret,delete}, GET /authorized, GET/POST /authorized/:clientId/revoke.
 * Rotating a secret, deleting a client and revoking an authorization each go through a confirmation
 * page (the GET); the POST acts only with the field `confirm` that page sends.
 */
export function appsRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /** The user's own client `clientId`, or undefined (unknown, or someone else's). */
  async function ownClient(userId: number, clientId: string) {
    return (await listClientsOwnedBy(s, userId)).find((c) => c.clientId === clientId);
  }

  function rotatePage(client: { name: string; clientId: string }) {
    const path = `/apps/${encodeURIComponent(client.clientId)}/secret`;
    return {
      title: `Rotate the secret of “${client.name}”?`,
      explanation: [
        'A new client secret is made and shown to you once. The current secret stops working at once: the application cannot get new tokens until it uses the new one.',
      ],
      action: path,
      button: 'Rotate the secret',
      cancel: '/apps',
    };
  }

  function deletePage(client: { name: string; clientId: string }) {
    const path = `/apps/${encodeURIComponent(client.clientId)}/delete`;
    return {
      title: `Delete “${client.name}”?`,
      explanation: [
        'The application is deleted and every access token issued to it is revoked: it stops working for everyone who uses it.',
        'This cannot be undone.',
      ],
      action: path,
      button: 'Delete the application',
      cancel: '/apps',
    };
  }

  function revokePage(client: { name: string; clientId: string }) {
    const path = `/authorized/${encodeURIComponent(client.clientId)}/revoke`;
    return {
      title: `Revoke the access of “${client.name}”?`,
      explanation: [
        'The application can no longer act for you: every token you granted it stops working at once. You can allow it again later if it asks.',
      ],
      action: path,
      button: 'Revoke access',
      cancel: '/authorized',
    };
  }

  /** True when the form carries the confirmation page's `confirm` field. */
  function confirmed(request: FastifyRequest): boolean {
    return field(formOf(request), 'confirm') !== '';
  }

  const notYours = (request: FastifyRequest, reply: FastifyReply) =>
    ctx.errorPage(request, reply, 404, 'Page not found', 'No such application.');

  async function renderApps(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number,
    extra: {
      error?: string;
      notice?: string;
      secret?: { name: string; clientId: string; clientSecret: string };
      form?: { name: string; callbackDomain: string; redirectUris: string };
      /** a refused change of one client's redirect URIs: its form stays open with the text sent */
      edit?: { clientId: string; redirectUris: string };
    },
    status = 200,
  ) {
    const clients = await listClientsOwnedBy(s, userId);
    return ctx.page(
      request,
      reply,
      './apps',
      { title: 'Your applications', clients, form: { name: '', callbackDomain: '', redirectUris: '' }, ...extra },
      status,
    );
  }

  /** GET /apps — the user's registered clients (name, client_id, callback domain, redirect URIs) and the registration form. */
  app.get('/apps', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    return renderApps(request, reply, request.webSession.userId, { notice: noticeOf(request) });
  });

  /**
   * POST /apps — fields name (1–100 characters), callback_domain (a host name), redirect_uris
   * (optional: exact redirect URIs, one per line; see normalizeRedirectUris), _csrf.
   * Success: 201 with the page showing the new client_id and client_secret (shown this once; the page
   * is `no-store`). Invalid: 400 with the form and the reason; nothing is written.
   */
  app.post('/apps', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/apps');
    const form = formOf(request);
    const name = field(form, 'name');
    const callbackDomain = field(form, 'callback_domain');
    const redirectUris = field(form, 'redirect_uris');
    const userId = request.webSession.userId;
    try {
      const created = await createClient(s, { name, callbackDomain, redirectUris, ownerUserId: userId });
      return renderApps(
        request,
        reply,
        userId,
        { secret: { name: created.client.name, clientId: created.clientId, clientSecret: created.clientSecret } },
        201,
      );
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation')
        return renderApps(
          request,
          reply,
          userId,
          { error: err.message, form: { name, callbackDomain, redirectUris } },
          400,
        );
      throw err;
    }
  });

  /**
   * POST /apps/:clientId/redirect-uris — fields redirect_uris (exact redirect URIs, one per line;
   * empty removes them all, so any https URI in the callback domain matches again), _csrf.
   * Success: 303 to `/apps` with the one-time notice `redirect-uris`. Invalid: 400 with the page, the reason and that
   * client's form open with the text sent; nothing changed. Not the user's client, or unknown → 404 page.
   */
  app.post<{ Params: { clientId: string } }>('/apps/:clientId/redirect-uris', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/apps');
    const userId = request.webSession.userId;
    const redirectUris = field(formOf(request), 'redirect_uris');
    try {
      await setClientRedirectUris(s, request.params.clientId, redirectUris, userId);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'validation') {
        return renderApps(
          request,
          reply,
          userId,
          { error: err.message, edit: { clientId: request.params.clientId, redirectUris } },
          400,
        );
      }
      throw err;
    }
    return redirectWithFlash(reply, '/apps', 'redirect-uris', ctx.secure);
  });

  /**
   * GET /apps/:clientId/secret — the confirmation page for rotating the client's secret (a form
   * posting `confirm` and `_csrf` to the same path). Not the user's client, or unknown → 404 page.
   */
  app.get<{ Params: { clientId: string } }>('/apps/:clientId/secret', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const client = await ownClient(request.webSession.userId, request.params.clientId);
    if (!client) return notYours(request, reply);
    return ctx.confirm(request, reply, rotatePage(client));
  });

  /**
   * POST /apps/:clientId/secret — fields confirm (from the confirmation page), _csrf. Replaces the
   * client's secret (the old one stops working) and shows the new one once. Without `confirm`: 400
   * with the confirmation page, nothing changed. Not the user's client, or unknown → 404 page.
   */
  app.post<{ Params: { clientId: string } }>('/apps/:clientId/secret', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/apps');
    const userId = request.webSession.userId;
    if (!confirmed(request)) {
      const client = await ownClient(userId, request.params.clientId);
      if (!client) return notYours(request, reply);
      return ctx.confirm(request, reply, rotatePage(client), 400);
    }
    const rotated = await rotateClientSecret(s, request.params.clientId, userId);
    const client = await ownClient(userId, rotated.clientId);
    return renderApps(request, reply, userId, { secret: { name: client?.name ?? '', ...rotated } });
  });

  /**
   * GET /apps/:clientId/delete — the confirmation page for deleting the client (a form posting
   * `confirm` and `_csrf` to the same path). Not the user's client, or unknown → 404 page.
   */
  app.get<{ Params: { clientId: string } }>('/apps/:clientId/delete', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const client = await ownClient(request.webSession.userId, request.params.clientId);
    if (!client) return notYours(request, reply);
    return ctx.confirm(request, reply, deletePage(client));
  });

  /**
   * POST /apps/:clientId/delete — fields confirm (from the confirmation page), _csrf. Deletes the
   * client and revokes every token issued to it (one transaction); 303 to `/apps` with the one-time notice `deleted`.
   * Without `confirm`: 400 with the confirmation page, nothing changed. Not the user's client, or
   * unknown → 404 page.
   */
  app.post<{ Params: { clientId: string } }>('/apps/:clientId/delete', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/apps');
    const userId = request.webSession.userId;
    if (!confirmed(request)) {
      const client = await ownClient(userId, request.params.clientId);
      if (!client) return notYours(request, reply);
      return ctx.confirm(request, reply, deletePage(client), 400);
    }
    await deleteClient(s, request.params.clientId, userId);
    return redirectWithFlash(reply, '/apps', 'deleted', ctx.secure);
  });

  /** GET /authorized — the applications the user granted access to, with the scopes in plain words. */
  app.get('/authorized', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const apps = await listAuthorizedApps(s, request.webSession.userId);
    return ctx.page(request, reply, './authorized', {
      title: 'Authorized applications',
      apps,
      describe: describeScope,
      notice: noticeOf(request),
    });
  });

  /**
   * GET /authorized/:clientId/revoke — the confirmation page for revoking what the user granted the
   * client (a form posting `confirm` and `_csrf` to the same path). A client the user has not
   * authorized, or unknown → 404 page.
   */
  app.get<{ Params: { clientId: string } }>('/authorized/:clientId/revoke', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply);
    const granted = await authorizedClient(request.webSession.userId, request.params.clientId);
    if (!granted) return notAuthorized(request, reply);
    return ctx.confirm(request, reply, revokePage(granted));
  });

  /**
   * POST /authorized/:clientId/revoke — fields confirm (from the confirmation page), _csrf. Revokes
   * every token the user granted to the client: they answer 401 from then on. 303 to
   * `/authorized` with the one-time notice `revoked`. Without `confirm`: 400 with the confirmation page (404 page when
   * the user has not authorized that client), nothing changed. Unknown client → 404 page.
   */
  app.post<{ Params: { clientId: string } }>('/authorized/:clientId/revoke', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/authorized');
    const userId = request.webSession.userId;
    if (!confirmed(request)) {
      const granted = await authorizedClient(userId, request.params.clientId);
      if (!granted) return notAuthorized(request, reply);
      return ctx.confirm(request, reply, revokePage(granted), 400);
    }
    await revokeAuthorization(s, userId, request.params.clientId);
    return redirectWithFlash(reply, '/authorized', 'revoked', ctx.secure);
  });

  /** The client `clientId` among the applications the user authorized, or undefined. */
  async function authorizedClient(userId: number, clientId: string) {
    return (await listAuthorizedApps(s, userId)).find((a) => a.client.clientId === clientId)?.client;
  }

  const notAuthorized = (request: FastifyRequest, reply: FastifyReply) =>
    ctx.errorPage(request, reply, 404, 'Page not found', 'No such application: you have not authorized it.');
}
