/** GET /rate_limit (api-v2.md "Reference data and limits", "Limits" 3; DECISIONS.md "Rate limits"). */
import type { FastifyInstance } from 'fastify';
import { subjectOf } from '../../../ratelimit/limiter.ts';
import { httpDate } from '../../../ratelimit/window.ts';
import * as docs from './schemas.ts';
import { withConfig } from '../../schemas/common.ts';

/** The rate-limit body: the caller's current window. `remaining_hits + current_hits = hourly_limit`. */
export interface RateLimitBody {
  hourly_limit: number;
  remaining_hits: number;
  current_hits: number;
  /** ABSOLUTE Unix seconds at which the window ends (= X-RateLimit-Reset), not a countdown */
  reset_time_in_seconds: number;
  /** the same instant as an HTTP-date (RFC 7231), e.g. `Tue, 17 Jul 2012 11:00:00 GMT` */
  reset_time: string;
}

/** Needs `registerRateLimit` on the same instance (it provides `app.rateLimiter`). */
export function rateLimitRoutes(app: FastifyInstance): void {
  /**
   * GET /rate_limit — the caller's window: with a valid token the token's (user, client) window,
   * else the client IP's. Not rate limited: not counted and no X-RateLimit headers. JSON or XML
   * (`<rate_limit>`). An invalid token → 401 `unauthorized`, like every route.
   */
  app.get(
    '/rate_limit',
    withConfig(docs.getRateLimit, { rateLimit: false, xmlRoot: 'rate_limit' }),
    async (request): Promise<RateLimitBody> => {
      const status = await app.rateLimiter.peek(subjectOf(request.principal, request.ip));
      return {
        hourly_limit: status.limit,
        remaining_hits: status.remaining,
        current_hits: status.current,
        reset_time_in_seconds: status.reset,
        reset_time: httpDate(status.reset),
      };
    },
  );
}
