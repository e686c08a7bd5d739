/**
 * The wire parsers of path and query parameters (src/http/schemas/wire.ts `x-wire`), per
 * DECISIONS.md "Pagination and `full`" and "Things":
 * - `count` (default 30, 1–100), `page` (1-based, default 1): whole numbers; empty (`count=`) is
 *   the default; else 400 `invalid_parameters`;
 * - `full`: a bare flag (`?full`), `full`, or a boolean in any case (`1|true|0|false`, `False`);
 *   else 400 `invalid_parameters`;
 * - a thing id in a path: a positive integer of at most MAX_ID_DIGITS digits, else 404 `not_found`;
 *   `GET /things/:id,:id` takes up to MAX_MULTI_GET comma-separated ids (empty parts ignored).
 * A repeated parameter counts by its first value.
 */
import { InvalidParametersError, NotFoundError, type DocsSection } from '../domain/errors.ts';
import { parseBoolean, single } from '../domain/input.ts';
import type { PageRequest, ThingId } from '../domain/records.ts';
import { MAX_MULTI_GET } from '../domain/things.ts';
import { defineWire } from './schemas/wire.ts';

export const DEFAULT_COUNT = 30;
export const MAX_COUNT = 100;
const MAX_PAGE = 1_000_000;

function positiveInt(name: string, raw: unknown, dflt: number, max: number): number {
  const v = single(raw);
  if (v === undefined || v === '' || v === dflt) return dflt;
  if (typeof v !== 'string' || !/^\d{1,9}$/.test(v.trim()))
    throw new InvalidParametersError(`${name} must be a whole number from 1 to ${max}`);
  const n = Number(v.trim());
  if (n < 1 || n > max) throw new InvalidParametersError(`${name} must be a whole number from 1 to ${max}`);
  return n;
}

/** `count`: items per page. @throws InvalidParametersError */
export const parseCount = (raw: unknown): number => positiveInt('count', raw, DEFAULT_COUNT, MAX_COUNT);
/** `page`: from 1. @throws InvalidParametersError */
export const parsePageNumber = (raw: unknown): number => positiveInt('page', raw, 1, MAX_PAGE);

/** `full`: absent → false. @throws InvalidParametersError */
export function parseFull(raw: unknown): boolean {
  if (raw === undefined || raw === false) return false;
  const v = single(raw);
  if (v === '' || (typeof v === 'string' && v.toLowerCase() === 'full')) return true;
  const b = parseBoolean(v);
  if (b === undefined) throw new InvalidParametersError('full must be a flag: full, 1, true, 0 or false');
  return b;
}

/** Digits of the longest path id parseId accepts (leading zeros included). */
export const MAX_ID_DIGITS = 15;
const ID = new RegExp(`^\\d{1,${MAX_ID_DIGITS}}$`);

/** A path id: a positive integer of at most MAX_ID_DIGITS digits, else undefined. */
export function parseId(raw: string): ThingId | undefined {
  if (!ID.test(raw)) return undefined;
  const n = Number(raw);
  return n > 0 ? n : undefined;
}

/** The `:id` of a thing path. @throws NotFoundError ("Thing not found", in the docs `section`) */
export function parseThingId(raw: unknown, section: DocsSection = 'things'): ThingId {
  const id = typeof raw === 'string' ? parseId(raw) : undefined;
  if (id === undefined) throw new NotFoundError('Thing not found', section);
  return id;
}

/** How many ids a `GET /things/:id,:id` segment names (empty parts ignored). */
export const idCount = (raw: string): number => raw.split(',').filter(Boolean).length;

/**
 * The `:ids` of `GET /things/:id,:id`: one id (no comma), or the ids in the order given, duplicates
 * once (DECISIONS.md "Things").
 * @throws InvalidParametersError beyond MAX_MULTI_GET ids (duplicates count; checked first),
 *   NotFoundError for a part that is not an id ("Thing not found" for a single id).
 */
export function parseThingIds(raw: unknown): ThingId | ThingId[] {
  const s = typeof raw === 'string' ? raw : '';
  if (!s.includes(',')) return parseThingId(s);
  const parts = s.split(',').filter(Boolean);
  if (parts.length > MAX_MULTI_GET)
    throw new InvalidParametersError(
      `At most ${MAX_MULTI_GET} ids, comma-separated; ${parts.length} were given`,
      'things',
    );
  const ids = parts.map(parseId);
  if (ids.some((id) => id === undefined)) throw new NotFoundError('Thing(s) could not be found', 'things');
  return [...new Set(ids as ThingId[])];
}

/** A text parameter: its first value when repeated (a query string's value is text, or absent). */
export const parseText = (raw: unknown): string | undefined => {
  const v = single(raw);
  return typeof v === 'string' ? v : undefined;
};

/** `x-wire` names of these parsers. */
export const WIRE = {
  count: defineWire('count', parseCount),
  page: defineWire('page', parsePageNumber),
  full: defineWire('full', parseFull),
  thingId: defineWire('thingId', (raw) => parseThingId(raw)),
  tipThingId: defineWire('thingId.tips', (raw) => parseThingId(raw, 'tips')),
  subscriptionThingId: defineWire('thingId.subscriptions', (raw) => parseThingId(raw, 'subscriptions')),
  thingIds: defineWire('thingIds', parseThingIds),
  text: defineWire('text', parseText),
};

/** The parsed query of a paged list. */
export interface ListQuery extends PageRequest {
  full: boolean;
}

/** The page part of a parsed list query. */
export const pageOf = (q: ListQuery): PageRequest => ({ count: q.count, page: q.page });
