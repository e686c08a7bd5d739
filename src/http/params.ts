/**
 * Query parameters shared by list endpoints (DECISIONS.md "Pagination and `full`"):
 * `count` (default 30, 1–100), `page` (1-based), `full` (bare flag, 1/true/full; 0/false off).
 * Bad values → 400 `invalid_parameters`.
 */
import { InvalidParametersError } from '../domain/errors.ts';
import { parseBoolean, single } from '../domain/input.ts';
import type { PageRequest } from '../domain/records.ts';

export type Query = Record<string, unknown>;

function positiveInt(name: string, raw: unknown, dflt: number, max: number): number {
  const v = single(raw);
  if (v === undefined || v === '') return dflt;
  if (typeof v !== 'string' || !/^\d{1,9}$/.test(v.trim()))
    throw new InvalidParametersError(`${name} must be a whole number from 1 to ${max}`);
  const n = Number(v.trim());
  if (n < 1 || n > max) throw new InvalidParametersError(`${name} must be a whole number from 1 to ${max}`);
  return n;
}

export const DEFAULT_COUNT = 30;
export const MAX_COUNT = 100;
const MAX_PAGE = 1_000_000;

export function parsePage(query: Query): PageRequest {
  return {
    count: positiveInt('count', query.count, DEFAULT_COUNT, MAX_COUNT),
    page: positiveInt('page', query.page, 1, MAX_PAGE),
  };
}

export function parseFull(query: Query): boolean {
  if (!('full' in query)) return false;
  const v = single(query.full);
  if (v === '' || (typeof v === 'string' && v.toLowerCase() === 'full')) return true;
  const b = parseBoolean(v);
  if (b === undefined) throw new InvalidParametersError('full must be a flag: full, 1, true, 0 or false');
  return b;
}

/** Digits of the longest path id parseId accepts (leading zeros included). */
export const MAX_ID_DIGITS = 15;
const ID = new RegExp(`^\\d{1,${MAX_ID_DIGITS}}$`);

/** A path id: a positive integer of at most MAX_ID_DIGITS digits, else undefined (the caller answers 404). */
export function parseId(raw: string): number | undefined {
  if (!ID.test(raw)) return undefined;
  const n = Number(raw);
  return n > 0 ? n : undefined;
}

/**
 * The ids of a `GET /things/:id,:id` segment, in the order given (DECISIONS.md "Things"):
 * comma-separated, empty parts ignored (`1,2,`); a part that is not an id is -1, which the lookup
 * answers with 404 `not_found`.
 */
export function parseIdList(raw: string): number[] {
  return raw
    .split(',')
    .filter(Boolean)
    .map((p) => parseId(p) ?? -1);
}
