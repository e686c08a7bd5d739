/**
 * Tags (DECISIONS.md "Things", "Search"), on every engine: every tag a thing accepts can be found
 * by a `tags` search expression naming it, and a tag no expression could name (white space or one
 * of `& | ! ( ) ,`) is refused with 400 `validation` naming it. Property-based (fast-check).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';

/** What a tags expression reads as the end of a tag: white space and `| & ! ( ) ,`. */
const DELIMITER = /[\s|&!(),]/u;
const MAX_TAG_LENGTH = 64;

/**
 * One character of a generated tag: any code point but control characters that are not white
 * space (they are not tag characters of this property), with the delimiters, Unicode white space
 * and characters whose case mapping changes their length or form drawn often.
 */
const tagChar = fc.oneof(
  // other control characters than tab and line breaks are refused at the edge (control-characters.test.ts)
  {
    weight: 4,
    arbitrary: fc
      .string({ unit: 'binary', minLength: 1, maxLength: 1 })
      .filter((c) => !/\p{Cc}/u.test(c) || /[\t\n\r]/.test(c)),
  },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '&',
      '|',
      '!',
      '(',
      ')',
      ',',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u2028',
      '\u3000',
      '\ufeff',
      '%',
      '+',
      '#',
      '"',
      "'",
      '\\',
      '*',
      ':',
      '-',
      '_',
      '.',
      '/',
      '?',
      '=',
      ';',
      'İ',
      'ß',
      'ſ',
      'K',
      'Σ',
      'ς',
      'ǅ',
      '\u0301',
      '\u200b',
      '🎉',
    ),
  },
);
const tagText = fc.array(tagChar, { minLength: 0, maxLength: 70 }).map((cs) => cs.join(''));
const tagList = fc.array(
  fc.oneof({ weight: 5, arbitrary: tagText.filter((t) => t.length <= 12) }, { weight: 1, arbitrary: tagText }),
  { minLength: 1, maxLength: 4 },
);

/** The first given tag (trimmed) that must be refused, or undefined when all may be stored. */
function firstRefused(tags: string[]): string | undefined {
  return tags.map((t) => t.trim()).find((t) => t !== '' && (DELIMITER.test(t) || [...t].length > MAX_TAG_LENGTH));
}

/** The tags stored for `tags`: trimmed, empty ones and case-insensitive duplicates dropped. */
function expectedTags(tags: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tags.map((x) => x.trim())) {
    if (t === '' || seen.has(t.toLowerCase())) continue;
    seen.add(t.toLowerCase());
    out.push(t);
  }
  return out;
}

describe.each(ENGINES)('tags on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await buildTestApp(engine);
    owner = await buildUser(t.services);
  });
  afterAll(async () => t.close());

  const create = (tags: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `${API}/things`,
      headers: bearer(owner.token),
      payload: { url: `https://example.com/${uniqueName('tagged')}`, tags },
    });
  const searchIds = async (expression: string): Promise<number[]> => {
    const res = await t.app.inject({ url: `${API}/things/search?count=100&tags=${encodeURIComponent(expression)}` });
    expect(res.statusCode, `${JSON.stringify(expression)}: ${res.body}`).toBe(200);
    return json(res).things.map((x: { id: number }) => x.id);
  };

  it('every accepted tag is found by an expression naming it; every other tag is refused naming it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(tagList, fc.boolean(), async (tags, asString) => {
        // A comma-separated string is split on its commas: send it that way only when no tag holds one.
        const payload = asString && !tags.some((x) => x.includes(',')) ? tags.join(',') : tags;
        const res = await create(payload);
        const refused = firstRefused(tags);
        if (refused !== undefined) {
          expect(res.statusCode, res.body).toBe(400);
          const body = json(res);
          expect(body.error).toBe('validation');
          expect(body.error_description).toContain(JSON.stringify(refused));
          return;
        }
        expect(res.statusCode, res.body).toBe(201);
        const id = json(res).id as number;
        const stored = json(await t.app.inject({ url: `${API}/things/${id}` })).tags as string[];
        expect(stored).toEqual(expectedTags(tags));
        for (const tag of stored) expect(await searchIds(tag), JSON.stringify(tag)).toContain(id);
        if (stored.length > 1) expect(await searchIds(stored.join(' & '))).toContain(id);
      }),
      { numRuns: 120 },
    );
  });
});
