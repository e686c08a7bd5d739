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
 * text tab and line breaks are allowed); a number is taken as its decimal text.
 * @returns undefined when absent (undefined or null). @throws ValidationError naming `field`
 */
function text(v: unknown, field: string, max: number, opts: { multiLine?: boolean } = {}): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw new ValidationError(`Invalid ${field}: must be a string`);
  const s = String(v).trim();
  if (hasControlCharacters(s, opts))
    throw new ValidationError(`Invalid ${field}: contains characters that are not allowed`);
  if ([...s].length > max) throw new ValidationError(`Invalid ${field}: at most ${max} characters`);
  return s;
}

/** `title` (≤ MAX_TITLE characters, one line). @throws ValidationError */
export const parseTitle = (v: unknown): string | undefined => text(v, 'title', MAX_TITLE);
/** `description` (≤ MAX_DESCRIPTION characters, line breaks allowed). @throws ValidationError */
export const parseDescription = (v: unknown): string | undefined =>
  text(v, 'description', MAX_DESCRIPTION, { multiLine: true });

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
export function parseTags(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
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

/** `category`: a category id (GET /categories); empty → undefined. @throws ValidationError */
export function parseCategory(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !isCategory(v.trim()))
    throw new ValidationError('Invalid category: see GET /categories');
  return v.trim();
}

/** `language`: a language id (GET /languages); empty → undefined. @throws ValidationError */
export function parseLanguage(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !isLanguage(v.trim())) throw new ValidationError('Invalid language: see GET /languages');
  return v.trim();
}

/** `hidden`: a boolean, or true/false/1/0 in any case; empty → undefined. @throws ValidationError */
export function parseHidden(v: unknown): boolean | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const b = parseBoolean(v);
  if (b === undefined) throw new ValidationError('Invalid hidden: must be true, false, 1 or 0');
  return b;
}

/** `url` of a new thing: absolute http(s), ≤ 2048 characters, trimmed, with its key. @throws ValidationError */
export const parseNewThingUrl = (v: unknown): { url: string; key: string } => checkThingUrl(v);

/**
 * `url` in an update: absent (undefined or null) or a string, trimmed; the domain accepts only the
 * thing's current URL. @throws ValidationError for any other value
 */
export function parseUnchangedUrl(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ValidationError('Invalid url: the url of a thing cannot be changed');
  return v.trim();
}

/** The fields of a create or update body, each parsed by its parser above (absent ones undefined). */
export interface ThingBody {
  title?: string;
  description?: string;
  category?: string;
  language?: string;
  tags?: string[];
  hidden?: boolean;
}

/** The changes of an update (`PATCH /things/:id`): only the fields given; `url` must be the thing's own. */
export interface ThingChanges extends Partial<ThingFields> {
  url?: string;
}

/** A new thing from its checked URL and parsed fields, with the defaults of the fields left out. */
export function newThing(url: { url: string; key: string }, body: ThingBody): NewThing {
  return {
    url: url.url,
    urlKey: url.key,
    title: body.title ?? '',
    description: body.description ?? '',
    category: body.category ?? DEFAULT_CATEGORY,
    language: body.language ?? DEFAULT_LANGUAGE,
    tags: body.tags ?? [],
    hidden: body.hidden ?? false,
  };
}

/** The changes of an update body: the fields given, none of the absent ones. */
export function thingChanges(url: string | undefined, body: ThingBody): ThingChanges {
  const changes: ThingChanges = {};
  if (url !== undefined) changes.url = url;
  for (const k of ['title', 'description', 'category', 'language', 'tags', 'hidden'] as const)
    if (body[k] !== undefined) (changes as Record<string, unknown>)[k] = body[k];
  return changes;
}

/**
 * Validates a create body given as raw fields (auto-submit metadata, the import command), in
 * field order: url, title, description, category, language, tags, hidden.
 * @throws ValidationError
 */
export function parseNewThing(body: Record<string, unknown>): NewThing {
  const url = parseNewThingUrl(body.url);
  return newThing(url, {
    title: parseTitle(body.title),
    description: parseDescription(body.description),
    category: parseCategory(body.category),
    language: parseLanguage(body.language),
    tags: parseTags(body.tags),
    hidden: parseHidden(body.hidden),
  });
}
