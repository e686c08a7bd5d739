/**
 * Rate limiting of every API route (api-v2.md "Limits", DECISIONS.md "Rate limits",
 * docs/api.md "Rate limits"). Counted in the API's onRequest hook (api-pipeline.ts), after the
 * token is resolved and before the format is negotiated, so that:
 * - each request is counted once against its token's (user, client) or, without a valid token,
 *   its client IP (`request.ip`, see TRUST_PROXY) — requests with an invalid token, unknown
 *   paths, 406s, bad JSONP callbacks, unparsable bodies and 204s included;
 * - every counted response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`,
 *   `X-RateLimit-Current` and `X-RateLimit-Reset` (Unix seconds of the window's end);
 * - a request over the limit is refused at the end of that hook (after format negotiation, so the
 *   error is rendered in the asked format; before the body is read) with 403
 *   `rate_limit_exceeded` and `Retry-After` (seconds to the reset).
 * Routes with `config: { rateLimit: false }` (only `GET /rate_limit`) and the server's own warm-up
 * requests (`request.warmup`, src/warmup.ts) are neither counted nor given the headers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../../ratelimit/limiter.ts';
import { RateLimitExceededError } from '../../ratelimit/errors.ts';
import type { RateLimitStatus } from '../../ratelimit/window.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route is not rate limited (not counted, no X-RateLimit headers) */
    rateLimit?: boolean;
  }
  interface FastifyInstance {
    /** the API's rate limiter (inside the /rest/v2 plugin) */
    rateLimiter: RateLimiter;
  }
  interface FastifyRequest {
    /** the caller's window after counting this request; undefined on routes not limited */
    rateLimit: RateLimitStatus | undefined;
  }
}

/** Decorates the API instance with its limiter and requests with `rateLimit`; closes the limiter with the app. */
export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  app.decorate('rateLimiter', limiter);
  app.decorateRequest('rateLimit', undefined);
  app.addHook('onClose', async () => limiter.close());
}

/** Keeps the request's window and sets its X-RateLimit-* headers. */
export function applyRateLimit(request: FastifyRequest, reply: FastifyReply, status: RateLimitStatus): void {
  request.rateLimit = status;
  reply.header('x-ratelimit-limit', status.limit);
  reply.header('x-ratelimit-remaining', status.remaining);
  reply.header('x-ratelimit-current', status.current);
  reply.header('x-ratelimit-reset', status.reset);
}

/** The 403 for a request over its limit, with `Retry-After` set on `reply`; undefined when within it. */
export function rateLimitRefusal(request: FastifyRequest, reply: FastifyReply): RateLimitExceededError | undefined {
  const status = request.rateLimit;
  if (!status?.exceeded) return undefined;
  reply.header('retry-after', status.retryAfter);
  return new RateLimitExceededError(status.limit, status.reset);
}
