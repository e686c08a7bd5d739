/** What route modules receive: services, URLs for presenters, and small shared helpers. */
import type { FastifyRequest } from 'fastify';
import type { Services } from '../domain/services.ts';
import type { ThingRecord, UserRecord } from '../domain/records.ts';
import { viewerState } from '../domain/things.ts';
import { getUsersByIds } from '../domain/users.ts';
import { ownerIds, presentThing, type Urls } from './presenters.ts';
import { single } from '../domain/input.ts';

export interface RouteContext {
  services: Services;
  urls: Urls;
  publicUrl: string;
}

/** Full user records for `full` renderings, or undefined when `full` is off. */
export async function fullUsers(
  ctx: RouteContext,
  full: boolean,
  ids: number[],
): Promise<Map<number, UserRecord> | undefined> {
  return full ? getUsersByIds(ctx.services, ids) : undefined;
}

/** Things in the full representation, with the caller's per-viewer fields. */
export async function presentThingsFor(
  ctx: RouteContext,
  request: FastifyRequest,
  things: ThingRecord[],
  full: boolean,
) {
  const [viewer, owners] = await Promise.all([
    viewerState(ctx.services, request.principal, things),
    fullUsers(ctx, full, ownerIds(things)),
  ]);
  return things.map((t) => presentThing(ctx.urls, t, viewer, owners));
}

/** The request body as a plain object: JSON object or form fields; anything else is treated as empty. */
export function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const b = request.body;
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}

/** The `_method` override (PATCH workaround) from the query string or the body, lower-cased. */
export function methodOverride(request: FastifyRequest): string | undefined {
  const q = single((request.query as Record<string, unknown>)._method);
  const b = single(bodyOf(request)._method);
  const v = typeof b === 'string' ? b : typeof q === 'string' ? q : undefined;
  return v?.toLowerCase();
}
