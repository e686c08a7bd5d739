/**
 * Bearer-token authentication (api-v2.md "Authentication" 6–8, RFC 6750). A request with an
 * `Authorization: Bearer` header gets `request.principal`; an unknown or revoked token is
 * 401 `unauthorized` on every route. Routes then call `requireToken` / `requireScope`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InsufficientScopeError, UnauthorizedError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/records.ts';
import type { Scope } from '../../domain/scopes.ts';
import type { Services } from '../../domain/services.ts';
import { resolveToken } from '../../domain/tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

export function registerAuthentication(app: FastifyInstance, services: Services): void {
  app.decorateRequest('principal', undefined);
  app.addHook('preHandler', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined) return;
    const m = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
    if (!m) throw new UnauthorizedError('The Authorization header must be "Bearer <access token>"');
    const principal = await resolveToken(services, m[1]!);
    if (!principal) throw new UnauthorizedError('The access token is invalid or has been revoked');
    request.principal = principal;
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
