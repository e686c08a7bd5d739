/**
 * Bearer-token authentication (api-v2.md "Authentication" 6–8, RFC 6750). A request with an
 * `Authorization: Bearer` header gets `request.principal`; an unknown, revoked or malformed token
 * is 401 `unauthorized` on every route (InvalidTokenError: RFC 6750 `invalid_token`), and so is an
 * Authorization header of another scheme (UnauthorizedError: no error code in the challenge, RFC
 * 6750 §3.1). Routes then call `requireToken` / `requireScope`.
 * The token is resolved once, first in the API's onRequest hook (api-pipeline.ts), so the rate
 * limiter can key by principal; a bad header or token is only remembered (`request.authFailure`)
 * and raised at the end of that hook, after the request has been counted and given its rate-limit
 * headers.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InsufficientScopeError, InvalidTokenError, UnauthorizedError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/records.ts';
import type { Scope } from '../../domain/scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
    /** the 401 to raise once the request is counted, when the Authorization header or token is invalid */
    authFailure: UnauthorizedError | undefined;
  }
}

const BEARER = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i;

/** Decorates requests with `principal` and `authFailure` (both undefined until the API's hook sets them). */
export function registerAuthentication(app: FastifyInstance): void {
  app.decorateRequest('principal', undefined);
  app.decorateRequest('authFailure', undefined);
}

/**
 * The bearer token of the request's Authorization header; undefined without the header, or when
 * it is malformed or of another scheme, in which case `request.authFailure` is set.
 */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const m = BEARER.exec(header);
  if (m) return m[1]!;
  const message = 'The Authorization header must be "Bearer <access token>"';
  request.authFailure = /^Bearer(\s|$)/i.test(header) ? new InvalidTokenError(message) : new UnauthorizedError(message);
  return undefined;
}

/** Records the outcome of resolving the request's token: its principal, or the 401 to raise. */
export function authenticated(request: FastifyRequest, principal: Principal | undefined): void {
  if (principal) request.principal = principal;
  else request.authFailure = new InvalidTokenError('The access token is invalid or has been revoked');
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
