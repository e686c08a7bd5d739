/**
 * The API's request pipeline: ONE onRequest hook on the /rest/v2 instance does the cross-cutting
 * work of every API request, in this order (docs/adr/0023-request-pipeline.md):
 * 1. the bearer token is resolved (authenticate.ts): `request.principal`, or a 401 remembered;
 * 2. the request is counted (rate-limit.ts) against the principal or the client network, and
 *    gets its X-RateLimit-* headers — unless the route says `config.rateLimit: false` or it is
 *    the server's own warm-up (`request.warmup`);
 * 3. the JSONP callback is checked and the format negotiated (formats.ts), which installs the
 *    reply's renderer for XML, JSONP and Activity Streams;
 * 4. a request over its limit is refused (403 `rate_limit_exceeded`, before the body is read),
 *    then a bad token or header (401), each rendered in the negotiated format.
 * The hook is synchronous unless a token must be read from the database or the counters live in
 * Redis. Each route's settings (formats, XML root, whether it is rate limited) are resolved once,
 * when the route is registered, and kept in its config; unknown paths under the prefix (the
 * not-found handler) are counted, with no format to negotiate.
 */
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import type { Principal } from '../../domain/records.ts';
import type { Services } from '../../domain/services.ts';
import { resolveToken } from '../../auth/tokens.ts';
import type { RateLimiter } from '../../ratelimit/limiter.ts';
import type { RateLimitStatus } from '../../ratelimit/window.ts';
import { authenticated, bearerToken, registerAuthentication } from './authenticate.ts';
import { applyRateLimit, rateLimitRefusal, registerRateLimit } from './rate-limit.ts';
import { chooseFormat, registerFormats, routeFormats, type RouteFormats } from './formats.ts';

/** What the pipeline needs to know of a route, resolved once. */
interface RouteSettings {
  /** undefined: an unknown path, the not-found handler (no format to negotiate) */
  formats: RouteFormats | undefined;
  rateLimited: boolean;
}

/** Where a route's settings are kept in its config. */
const SETTINGS = Symbol('tipjar.api-route');
type WithSettings = FastifyContextConfig & { [SETTINGS]?: RouteSettings };

const settingsOf = (config: FastifyContextConfig): RouteSettings => ({
  formats: routeFormats(config),
  rateLimited: config.rateLimit !== false,
});

/** The settings of the not-found handler (the one route onRoute does not see): counted, no formats. */
const NOT_FOUND: RouteSettings = { formats: undefined, rateLimited: true };

/**
 * Registers the pipeline on `api` (the /rest/v2 instance, before its routes): the request
 * decorations of authenticate.ts, rate-limit.ts and formats.ts, `api.rateLimiter`, and the hook.
 */
export function registerApiPipeline(api: FastifyInstance, deps: { services: Services; limiter: RateLimiter }): void {
  const { services, limiter } = deps;
  registerAuthentication(api);
  registerRateLimit(api, limiter);
  registerFormats(api);

  api.addHook('onRoute', (route) => {
    const config: WithSettings = { ...route.config };
    config[SETTINGS] = settingsOf(config);
    route.config = config;
  });

  /** Steps 3 and 4, once the request is counted (`status`: undefined when it is not). */
  const finish = (
    request: FastifyRequest,
    reply: FastifyReply,
    settings: RouteSettings,
    status: RateLimitStatus | undefined,
    done: HookHandlerDoneFunction,
  ): void => {
    let failure: Error | undefined;
    try {
      if (status !== undefined) applyRateLimit(request, reply, status);
      chooseFormat(request, reply, settings.formats);
      failure = rateLimitRefusal(request, reply) ?? request.authFailure;
    } catch (err) {
      failure = err as Error;
    }
    done(failure);
  };

  /** Steps 2 to 4, once the token is resolved. */
  const count = (
    request: FastifyRequest,
    reply: FastifyReply,
    settings: RouteSettings,
    done: HookHandlerDoneFunction,
  ) => {
    if (!settings.rateLimited || request.warmup) return finish(request, reply, settings, undefined, done);
    let counted: RateLimitStatus | Promise<RateLimitStatus>;
    try {
      counted = limiter.count(request.principal, request.ip);
    } catch (err) {
      return done(err as Error);
    }
    if (counted instanceof Promise) {
      counted.then(
        (status) => finish(request, reply, settings, status, done),
        (err: Error) => done(err),
      );
    } else finish(request, reply, settings, counted, done);
  };

  api.addHook('onRequest', (request, reply, done) => {
    const settings = (request.routeOptions.config as WithSettings)[SETTINGS] ?? NOT_FOUND;
    const token = bearerToken(request);
    if (token === undefined) return count(request, reply, settings, done);
    resolveToken(services, token).then(
      (principal: Principal | undefined) => {
        authenticated(request, principal);
        count(request, reply, settings, done);
      },
      (err: Error) => done(err),
    );
  });
}
