/**
 * The OAuth 2 machine endpoints, at the root of `{auth_url}` (outside /rest/v2):
 *   POST /oauth/token                           RFC 6749 §4.1.3, §5 (api-v2.md "Authentication" 4–5)
 *   POST /oauth/revoke                          RFC 7009
 *   GET  /.well-known/oauth-authorization-server  RFC 8414
 * `GET /oauth/authorize` belongs to the website (src/web), which calls src/auth/oauth/authorize.ts.
 * Errors here are in the RFC's form `{error, error_description}`, not the API's error shape: this
 * plugin has its own error handler, so bodies that do not parse are `invalid_request` too (400),
 * and bodies over the limit (1 MiB) are `invalid_request` with 413.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { OAuthError } from '../../../auth/oauth/errors.ts';
import { DomainError } from '../../../domain/errors.ts';
import { STATUS } from '../../plugins/errors.ts';
import { GRANT_TYPES, revokeRequest, tokenRequest } from '../../../auth/oauth/token.ts';
import { CODE_CHALLENGE_METHODS } from '../../../auth/oauth/authorize.ts';
import { SCOPES } from '../../../domain/scopes.ts';
import type { Services } from '../../../domain/services.ts';
import type { FailureLimits } from '../../../ratelimit/failures.ts';
import * as docs from './schemas.ts';

export interface OAuthRouteContext {
  services: Services;
  /** origin of the authorization server (AUTH_URL, default PUBLIC_URL), no trailing slash */
  authUrl: string;
  /** where the OAuth section of docs/api.md is served */
  docsUrl: string;
  /** failed client authentications per (client_id, IP) and per IP (client-auth-limits.ts) */
  clientAuthLimits: FailureLimits;
}

/** A past date for `Expires`, as the original API sent (api-v2.md "Authentication" 5). */
export const PAST_EXPIRES = 'Thu, 19 Nov 1981 08:52:00 GMT';

/** RFC 6749 §5.1: token responses (and their errors) must not be cached. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').header('expires', PAST_EXPIRES);
}

/** Sends an OAuthError as `{error, error_description}` with its status (and 401 challenge, Retry-After). */
function sendOAuthError(reply: FastifyReply, err: OAuthError): FastifyReply {
  if (err.status === 401 && err.wwwAuthenticate) reply.header('www-authenticate', err.wwwAuthenticate);
  if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
  return noStore(reply).code(err.status).type('application/json;charset=utf-8').send(err.toJSON());
}

/**
 * Registers the endpoints on `app`, which must be an encapsulated plugin context: it installs an
 * error handler that answers in the RFC 6749 §5.2 form.
 */
export function oauthRoutes(app: FastifyInstance, ctx: OAuthRouteContext): void {
  const s = ctx.services;

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof OAuthError) return sendOAuthError(reply, err);
    // Refused at the edge (e.g. control characters): the same words, in the RFC's shape.
    if (err instanceof DomainError && STATUS[err.code] === 400)
      return sendOAuthError(reply, new OAuthError('invalid_request', err.message));
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendOAuthError(
        reply,
        new OAuthError('invalid_request', 'Send application/x-www-form-urlencoded or application/json'),
      );
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendOAuthError(reply, new OAuthError('invalid_request', 'The request body is too large', 413));
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendOAuthError(reply, new OAuthError('invalid_request', 'The request body could not be parsed'));
    }
    request.log.error({ err }, 'unexpected failure at an OAuth endpoint');
    return sendOAuthError(
      reply,
      new OAuthError('server_error', 'Something went wrong on our side; please try again', 500),
    );
  });

  /**
   * POST /oauth/token — `grant_type=authorization_code` with `code`, `redirect_uri` (required when
   * the authorization request carried one, then identical) and `code_verifier` (PKCE), as JSON or
   * form fields; client authentication by HTTP Basic or `client_id`/`client_secret` in the body.
   * 200 `{access_token, token_type: "bearer", scope}` with `Cache-Control: no-store`,
   * `Pragma: no-cache` and a past `Expires`. Errors (RFC 6749 §5.2): 400 `{error,
   * error_description}` — invalid_request, invalid_grant, unsupported_grant_type, invalid_client
   * (401 with `WWW-Authenticate: Basic` when Basic was used or no credentials were sent);
   * 413 invalid_request for a body over 1 MiB; 429 invalid_request with `Retry-After` (seconds)
   * when the client IP is over the limits on failed client authentications (client-auth-limits.ts).
   */
  app.post('/oauth/token', docs.tokenEndpoint, async (request, reply) => {
    const body = await tokenRequest(
      s,
      { authorization: request.headers.authorization, body: request.body, ip: request.ip },
      ctx.clientAuthLimits,
    );
    return noStore(reply).code(200).type('application/json;charset=utf-8').send(body);
  });

  /**
   * POST /oauth/revoke — RFC 7009: `token` (and optional `token_type_hint`), client-authenticated
   * like the token endpoint. 200 with an empty body whether or not the token was known or the
   * client's own (only the client's own live token is revoked). Errors as at /oauth/token, with
   * the same limits on failed client authentications (shared counts).
   */
  app.post('/oauth/revoke', docs.revokeEndpoint, async (request, reply) => {
    await revokeRequest(
      s,
      { authorization: request.headers.authorization, body: request.body, ip: request.ip },
      ctx.clientAuthLimits,
    );
    return noStore(reply).code(200).send();
  });

  /**
   * GET /.well-known/oauth-authorization-server — RFC 8414 metadata: issuer ({auth_url}), the
   * endpoints, and what they support.
   */
  app.get('/.well-known/oauth-authorization-server', docs.metadataEndpoint, async (_request, reply) => {
    const base = ctx.authUrl;
    return reply
      .header('cache-control', 'public, max-age=3600')
      .type('application/json;charset=utf-8')
      .send({
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
        response_types_supported: ['code', 'token'],
        response_modes_supported: ['query', 'fragment'],
        grant_types_supported: [...GRANT_TYPES, 'implicit'],
        scopes_supported: [...SCOPES],
        code_challenge_methods_supported: [...CODE_CHALLENGE_METHODS],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        service_documentation: ctx.docsUrl,
      });
  });
}
