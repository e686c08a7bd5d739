/**
 * The words of a search `query` (src/domain/search queryWords) and the FTS5 MATCH string built
 * from them (src/db/repositories/search.ts fts5Query): user input is never FTS5 syntax.
 */
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_LENGTH, MAX_QUERY_WORDS, queryWords } from '../../src/domain/search/index.ts';
import { fts5Query } from '../../src/db/repositories/search.ts';
import { InvalidParametersError } from '../../src/domain/errors.ts';

describe('queryWords', () => {
  it('absent or blank: no full-text condition', () => {
    expect(queryWords(undefined)).toBeUndefined();
    expect(queryWords('')).toBeUndefined();
    expect(queryWords(' \t\n')).toBeUndefined();
  });

  it('splits on everything but letters, digits and combining marks', () => {
    expect(queryWords('json-schema  parser!')).toEqual(['json', 'schema', 'parser']);
    expect(queryWords('"NEAR(a b)" title:x -y *z')).toEqual(['NEAR', 'a', 'b', 'title', 'x', 'y', 'z']);
    expect(queryWords('Ünïcödé 日本語 हिन्दी')).toEqual(['Ünïcödé', '日本語', 'हिन्दी']);
    expect(queryWords('a\u0000b')).toEqual(['a', 'b']);
  });

  it('no words at all: an empty list (nothing matches)', () => {
    expect(queryWords('!!! *** "')).toEqual([]);
  });

  it('limits length and word count with invalid_parameters', () => {
    expect(() => queryWords('x'.repeat(MAX_QUERY_LENGTH + 1))).toThrow(InvalidParametersError);
    expect(() => queryWords('x'.repeat(MAX_QUERY_LENGTH + 1))).toThrow(
      `query must be at most ${MAX_QUERY_LENGTH} characters`,
    );
    expect(queryWords('x'.repeat(MAX_QUERY_LENGTH))).toHaveLength(1);
    const many = Array.from({ length: MAX_QUERY_WORDS + 1 }, (_, i) => `w${i}`).join(' ');
    expect(() => queryWords(many)).toThrow(`query must have at most ${MAX_QUERY_WORDS} words`);
  });
});

describe('fts5Query', () => {
  it('quotes every word, so operators are plain words, all required', () => {
    expect(fts5Query(['parser', 'OR', 'NEAR'])).toBe('"parser" "OR" "NEAR"');
  });

  it('doubles quotes inside a word', () => {
    expect(fts5Query(['a"b'])).toBe('"a""b"');
  });
});
