/** The route table of the API under /rest/v2. */
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../context.ts';
import { thingRoutes } from './things/index.ts';
import { tipRoutes } from './tips/index.ts';
import { userRoutes } from './users/index.ts';
import { referenceRoutes } from './reference/index.ts';
import { subscriptionRoutes } from './subscriptions/index.ts';
import { activityRoutes } from './activities/index.ts';
import { partnerRoutes } from './partners/index.ts';
import { rateLimitRoutes } from './rate-limit/index.ts';
import { searchRoutes } from './search/index.ts';

export function apiRoutes(app: FastifyInstance, ctx: RouteContext): void {
  searchRoutes(app, ctx);
  thingRoutes(app, ctx);
  tipRoutes(app, ctx);
  subscriptionRoutes(app, ctx);
  userRoutes(app, ctx);
  referenceRoutes(app);
  activityRoutes(app, ctx);
  partnerRoutes(app, ctx);
  rateLimitRoutes(app);
}
