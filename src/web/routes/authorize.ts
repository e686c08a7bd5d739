/**
 * The authorization endpoint's pages, `GET {auth_url}/oauth/authorize` and its consent POST
 * (api-v2.md "Authentication" 3, DECISIONS.md "OAuth 2", RFC 6749 §4.1.1–§4.1.2.1, §4.2.1).
 * The checks and the grant are the OAuth domain's (src/auth/oauth/authorize.ts); this file decides
 * what the browser sees:
 *   - an invalid client or redirect_uri → an error page (400), never a redirect;
 *   - any other invalid request → a redirect to the client with `error` (and `state`);
 *   - a visitor who is not logged in → the log-in page, then back to the same authorize URL;
 *   - otherwise the consent page: the app's name and each requested scope in plain words,
 *     Approve / Deny (POST with CSRF).
 * The consent form carries the request's parameters signed with HMAC-SHA256 under a key derived
 * from the session's secret, with the user id and the time: it cannot be altered, replayed by
 * another session, or used after CONSENT_TTL. The POST checks the signature, validates the request
 * again (the client may have been deleted meanwhile) and redirects (303) to approveAuthorization's
 * or denyAuthorization's URL.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  approveAuthorization,
  AuthorizationRequestError,
  denyAuthorization,
  SCOPE_DESCRIPTIONS,
  validateAuthorizationRequest,
  type AuthorizationRequest,
} from '../../auth/oauth/authorize.ts';
import type { WebContext } from '../context.ts';
import type { WebSession } from '../sessions.ts';
import { field, formOf, toLogin } from './form.ts';

/** How long a consent page may be answered, in seconds (1 hour). */
export const CONSENT_TTL = 3600;

/** The signed content of a consent form. */
interface ConsentPayload {
  /** the authorization request's query parameters, as received */
  q: Record<string, unknown>;
  /** users.id of the session that saw the page */
  u: number;
  /** Unix seconds when the page was rendered */
  t: number;
}

function mac(session: WebSession, payload: string): Buffer {
  const key = createHmac('sha256', session.csrfSecret).update('tipjar consent v1').digest();
  return createHmac('sha256', key).update(payload).digest();
}

/** `base64url(JSON).base64url(HMAC)` of the payload, bound to the session. */
export function signConsent(session: WebSession, payload: ConsentPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(session, body).toString('base64url')}`;
}

/** The payload of a signed consent value, or undefined when it was altered, is not this session's or has expired. */
export function verifyConsent(session: WebSession, value: string, now: number): ConsentPayload | undefined {
  const [body, sig, extra] = value.split('.');
  if (!body || !sig || extra !== undefined || value.length > 100_000) return undefined;
  const given = Buffer.from(sig, 'base64url');
  const expected = mac(session, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let p: ConsentPayload;
  try {
    p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ConsentPayload;
  } catch {
    return undefined;
  }
  if (
    !p ||
    typeof p !== 'object' ||
    typeof p.q !== 'object' ||
    p.q === null ||
    p.u !== session.userId ||
    typeof p.t !== 'number'
  )
    return undefined;
  if (now - p.t > CONSENT_TTL || p.t > now + 60) return undefined;
  return p;
}

/** Registers GET /oauth/authorize (consent page) and POST /oauth/authorize (Approve / Deny) on the website plugin. */
export function authorizeRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  /**
   * Validates, answering a refused request as RFC 6749 §4.1.2.1 says (page or redirect).
   * @returns the validated request, or undefined when the refusal has been sent. (Never the reply
   *   itself: a Fastify reply is thenable, so awaiting it would not give the reply back.)
   */
  async function validate(
    request: FastifyRequest,
    reply: FastifyReply,
    query: Record<string, unknown>,
    redirectStatus: 302 | 303,
  ): Promise<AuthorizationRequest | undefined> {
    try {
      return await validateAuthorizationRequest(s, query);
    } catch (err) {
      if (err instanceof AuthorizationRequestError) {
        refuse(request, reply, err, redirectStatus);
        return undefined;
      }
      throw err;
    }
  }

  function refuse(
    request: FastifyRequest,
    reply: FastifyReply,
    err: AuthorizationRequestError,
    redirectStatus: 302 | 303,
  ): FastifyReply {
    if (err.redirectUrl !== undefined)
      return reply.code(redirectStatus).header('cache-control', 'no-store').redirect(err.redirectUrl);
    return ctx.errorPage(
      request,
      reply,
      400,
      'This application link is not valid',
      `${err.description} (${err.error}). Tell the application's developer; you were not sent anywhere.`,
    );
  }

  /**
   * GET /oauth/authorize — query response_type (code | token), client_id, redirect_uri, scope
   * (space- or comma-separated), state, code_challenge + code_challenge_method (S256).
   * 400 error page (invalid client / redirect_uri); 302 to the client with `error` (other invalid
   * requests); 302 to `/login?return_to=…` (not logged in); 200 consent page.
   */
  app.get('/oauth/authorize', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const validated = await validate(request, reply, query, 302);
    if (!validated) return reply;
    if (!request.webSession) return toLogin(request, reply);
    const session = request.webSession;
    const signedRequest = signConsent(session, { q: query, u: session.userId, t: s.clock.now() });
    return ctx.page(request, reply, './consent', {
      title: `Allow ${validated.client.name}?`,
      clientName: validated.client.name,
      scopes: validated.scopes.map((sc) => SCOPE_DESCRIPTIONS[sc]),
      redirectHost: new URL(validated.redirectUri).host,
      signedRequest,
    });
  });

  /**
   * POST /oauth/authorize — fields request (the signed request from the consent page), decision
   * (approve | deny), _csrf. approve → 303 to the client with `code` (or `#access_token` for
   * response_type=token) and `state`; deny → 303 with `error=access_denied` and `state`.
   * An altered, foreign or expired signed request, or another decision → 400 error page, nothing
   * issued. Not logged in → the log-in page.
   */
  app.post('/oauth/authorize', async (request, reply) => {
    if (!request.webSession) return toLogin(request, reply, '/');
    const session = request.webSession;
    const form = formOf(request);
    const payload = verifyConsent(session, field(form, 'request'), s.clock.now());
    if (!payload) {
      return ctx.errorPage(
        request,
        reply,
        400,
        'This consent page has expired',
        'The authorization request was altered or is too old. Go back to the application and start again.',
      );
    }
    const decision = field(form, 'decision');
    if (decision !== 'approve' && decision !== 'deny')
      return ctx.errorPage(request, reply, 400, 'Please choose', 'Choose Approve or Deny.');
    const validated = await validate(request, reply, payload.q, 303);
    if (!validated) return reply;
    if (decision === 'deny')
      return reply.code(303).header('cache-control', 'no-store').redirect(denyAuthorization(validated));
    let target: string;
    try {
      target = await approveAuthorization(s, validated, session.userId);
    } catch (err) {
      if (err instanceof AuthorizationRequestError) return refuse(request, reply, err, 303);
      throw err;
    }
    return reply.code(303).header('cache-control', 'no-store').redirect(target);
  });
}
