/**
 * Rate limiting of every API route (api-v2.md "Limits", DECISIONS.md "Rate limits",
 * docs/api.md "Rate limits"). Registered after authentication (which resolves the bearer token in
 * its own onRequest hook) and before formats, so that:
 * - each request is counted once, in onRequest, against its token's (user, client) or, without a
 *   valid token, its client IP (`request.ip`, see TRUST_PROXY) — requests with an invalid token,
 *   unknown paths, 406s, bad JSONP callbacks, unparsable bodies and 204s included;
 * - every counted response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`,
 *   `X-RateLimit-Current` and `X-RateLimit-Reset` (Unix seconds of the window's end);
 * - a request over the limit is refused in preParsing (after format negotiation, so the error is
 *   rendered in the asked format; before the body is read) with 403 `rate_limit_exceeded` and
 *   `Retry-After` (seconds to the reset).
 * Routes with `config: { rateLimit: false }` (only `GET /rate_limit`) and the server's own warm-up
 * requests (`request.warmup`, src/warmup.ts) are neither counted nor given the headers.
 */
import type { FastifyInstance } from 'fastify';
import type { RateLimiter } from '../../ratelimit/limiter.ts';
import { subjectOf } from '../../ratelimit/limiter.ts';
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

/** Registers the limiter's hooks on the API instance and closes the limiter with the app. */
export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  app.decorate('rateLimiter', limiter);
  app.decorateRequest('rateLimit', undefined);
  app.addHook('onClose', async () => limiter.close());

  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.rateLimit === false || request.warmup) return;
    const status = await limiter.hit(subjectOf(request.principal, request.ip));
    request.rateLimit = status;
    reply.headers({
      'x-ratelimit-limit': status.limit,
      'x-ratelimit-remaining': status.remaining,
      'x-ratelimit-current': status.current,
      'x-ratelimit-reset': status.reset,
    });
  });

  app.addHook('preParsing', async (request, reply, payload) => {
    const status = request.rateLimit;
    if (status?.exceeded) {
      reply.header('retry-after', status.retryAfter);
      throw new RateLimitExceededError(status.limit, status.reset);
    }
    return payload;
  });
}
