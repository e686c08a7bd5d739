/**
 * Bearer-token authentication (api-v2.md "Authentication" 6–8, RFC 6750). A request with an
 * `Authorization: Bearer` header gets `request.principal`; an unknown, revoked or malformed token
 * is 401 `unauthorized` on every route (InvalidTokenError: RFC 6750 `invalid_token`), and so is an
 * Authorization header of another scheme (UnauthorizedError: no error code in the challenge, RFC
 * 6750 §3.1). Routes then call `requireToken` / `requireScope`.
 * The token is resolved once, in an onRequest hook, so the rate limiter (registered next) can key
 * by principal; a bad header or token is only remembered there (`request.authFailure`) and raised
 * in preHandler, after the request has been counted and given its rate-limit headers.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InsufficientScopeError, InvalidTokenError, UnauthorizedError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/records.ts';
import type { Scope } from '../../domain/scopes.ts';
import type { Services } from '../../domain/services.ts';
import { resolveToken } from '../../auth/tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
    /** the 401 to raise in preHandler when the Authorization header or token is invalid */
    authFailure: UnauthorizedError | undefined;
  }
}

export function registerAuthentication(app: FastifyInstance, services: Services): void {
  app.decorateRequest('principal', undefined);
  app.decorateRequest('authFailure', undefined);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined) return;
    const m = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
    if (!m) {
      const message = 'The Authorization header must be "Bearer <access token>"';
      request.authFailure = /^Bearer(\s|$)/i.test(header)
        ? new InvalidTokenError(message)
        : new UnauthorizedError(message);
      return;
    }
    const principal = await resolveToken(services, m[1]!);
    if (!principal) request.authFailure = new InvalidTokenError('The access token is invalid or has been revoked');
    else request.principal = principal;
  });
  app.addHook('preHandler', async (request) => {
    if (request.authFailure) throw request.authFailure;
  });
}

/** The caller's principal. @throws UnauthorizedError (401) without a token. */
export function requireToken(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError();
  return request.principal;
}

/** The caller's principal, whose token must carry `scope`. @throws UnauthorizedError, InsufficientScopeError */
export function requireScope(request: FastifyRequest, scope: Scope): Principal {
  const p = requireToken(request);
  if (!p.scopes.has(scope)) throw new InsufficientScopeError(scope);
  return p;
}
