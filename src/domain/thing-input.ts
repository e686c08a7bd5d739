/**
 * Validation of the fields a client may send for a thing (DECISIONS.md "Things"):
 * `url` (create only), `title` (≤ 100), `description` (≤ 1000), `category` (default `rest`),
 * `language` (default `en_GB`), `tags` (comma-separated string or array), `hidden` (default false).
 * Every failure is a ValidationError naming the field; nothing is written before validation passes.
 */
import { ValidationError } from './errors.ts';
import { hasControlCharacters, parseBoolean } from './input.ts';
import { DEFAULT_CATEGORY, DEFAULT_LANGUAGE, isCategory, isLanguage } from './reference.ts';
import { checkThingUrl } from './urls.ts';
import { tagDelimiterIn } from './tag-expression.ts';

export const MAX_TITLE = 100;
export const MAX_DESCRIPTION = 1000;
export const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 64;

export interface ThingFields {
  title: string;
  description: string;
  category: string;
  language: string;
  tags: string[];
  hidden: boolean;
}

export interface NewThing extends ThingFields {
  url: string;
  urlKey: string;
}

/**
 * A text field, trimmed, of at most `max` characters; without control characters (in `multiLine`
 * text tab and line breaks are allowed). @throws ValidationError
 */
function text(
  body: Record<string, unknown>,
  field: string,
  max: number,
  opts: { multiLine?: boolean } = {},
): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw new ValidationError(`Invalid ${field}: must be a string`);
  const s = String(v).trim();
  if (hasControlCharacters(s, opts))
    throw new ValidationError(`Invalid ${field}: contains characters that are not allowed`);
  if ([...s].length > max) throw new ValidationError(`Invalid ${field}: at most ${max} characters`);
  return s;
}

/**
 * Why `tag` (trimmed, non-empty) cannot be a tag, or undefined when it can: NUL or ill-formed
 * UTF-16, more than MAX_TAG_LENGTH characters, or a character that would end it inside a `tags`
 * search expression (white space, `,` or one of `& | ! ( )`: no search could find such a tag).
 * The reason names the tag.
 */
export function tagProblem(tag: string): string | undefined {
  const delimiter = tagDelimiterIn(tag);
  if (delimiter !== undefined) {
    const what = /\s/u.test(delimiter) ? 'white space' : `'${delimiter}'`;
    return `the tag ${JSON.stringify(tag)} holds ${what}; a tag cannot hold white space or any of & | ! ( ) , (a tags search could never find it)`;
  }
  if (hasControlCharacters(tag)) return `the tag ${JSON.stringify(tag)} holds characters that are not allowed`;
  if ([...tag].length > MAX_TAG_LENGTH)
    return `the tag ${JSON.stringify(tag)} is longer than ${MAX_TAG_LENGTH} characters`;
  return undefined;
}

/**
 * Parses `tags` (DECISIONS.md "Things"): a comma-separated string (split on its commas) or an array
 * of strings (one tag each). Tags are trimmed, case kept; empty ones and case-insensitive duplicates
 * are dropped; at most MAX_TAGS remain.
 * @throws ValidationError naming the first tag that tagProblem refuses, or the count.
 */
export function parseTags(v: unknown): string[] {
  let parts: unknown[];
  if (typeof v === 'string') parts = v.split(',');
  else if (Array.isArray(v)) parts = v;
  else throw new ValidationError('Invalid tags: must be a comma-separated string or an array of strings');
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of parts) {
    if (typeof p !== 'string') throw new ValidationError('Invalid tags: every tag must be a string');
    const tag = p.trim();
    if (!tag) continue;
    const problem = tagProblem(tag);
    if (problem) throw new ValidationError(`Invalid tags: ${problem}`);
    const k = tag.toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(tag);
  }
  if (out.length > MAX_TAGS) throw new ValidationError(`Invalid tags: at most ${MAX_TAGS} tags`);
  return out;
}

function category(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !isCategory(v.trim()))
    throw new ValidationError('Invalid category: see GET /categories');
  return v.trim();
}

function language(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !isLanguage(v.trim())) throw new ValidationError('Invalid language: see GET /languages');
  return v.trim();
}

function hidden(v: unknown): boolean | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const b = parseBoolean(v);
  if (b === undefined) throw new ValidationError('Invalid hidden: must be true, false, 1 or 0');
  return b;
}

/**
 * Validates a create body (`POST /things`, auto-submit metadata).
 * @throws ValidationError
 */
export function parseNewThing(body: Record<string, unknown>): NewThing {
  const { url, key } = checkThingUrl(body.url);
  return {
    url,
    urlKey: key,
    title: text(body, 'title', MAX_TITLE) ?? '',
    description: text(body, 'description', MAX_DESCRIPTION, { multiLine: true }) ?? '',
    category: category(body.category) ?? DEFAULT_CATEGORY,
    language: language(body.language) ?? DEFAULT_LANGUAGE,
    tags: body.tags === undefined || body.tags === null ? [] : parseTags(body.tags),
    hidden: hidden(body.hidden) ?? false,
  };
}

/**
 * Validates an update body (`PATCH /things/:id`): only the fields present are returned.
 * A `url` equal to the thing's current one is ignored; a different one is refused.
 * @throws ValidationError
 */
export function parseThingChanges(body: Record<string, unknown>, currentUrl: string): Partial<ThingFields> {
  if (body.url !== undefined && body.url !== null && (typeof body.url !== 'string' || body.url.trim() !== currentUrl)) {
    throw new ValidationError('Invalid url: the url of a thing cannot be changed');
  }
  const changes: Partial<ThingFields> = {};
  const title = text(body, 'title', MAX_TITLE);
  if (title !== undefined) changes.title = title;
  const description = text(body, 'description', MAX_DESCRIPTION, { multiLine: true });
  if (description !== undefined) changes.description = description;
  const c = category(body.category);
  if (c !== undefined) changes.category = c;
  const l = language(body.language);
  if (l !== undefined) changes.language = l;
  if (body.tags !== undefined && body.tags !== null) changes.tags = parseTags(body.tags);
  const h = hidden(body.hidden);
  if (h !== undefined) changes.hidden = h;
  return changes;
}
