/**
 * The `tags` expression parser of GET /things/search (src/domain/tag-expression.ts): tokens,
 * precedence (AND over OR, infix "!" = "but not" lowest), prefix NOT, spaces as AND, and errors
 * that name the problem and its 1-based position.
 */
import { describe, expect, it } from 'vitest';
import {
  formatTagExpression,
  matchesTags,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LENGTH,
  MAX_EXPRESSION_TAGS,
  parseTagExpression,
  TagExpressionError,
  tagDelimiterIn,
  tokenize,
} from '../../src/domain/tag-expression.ts';
import fc from 'fast-check';

const show = (s: string) => {
  const e = parseTagExpression(s);
  return e === undefined ? undefined : formatTagExpression(e);
};

const failure = (s: string): { message: string; position: number; code: string } => {
  try {
    parseTagExpression(s);
  } catch (err) {
    if (err instanceof TagExpressionError) return { message: err.message, position: err.position, code: err.code };
    throw err;
  }
  throw new Error(`expected "${s}" to be rejected`);
};

describe('tokenize', () => {
  it('splits tags and operators and records 1-based positions', () => {
    expect(tokenize('ab|(c& !d)')).toEqual([
      { kind: 'tag', text: 'ab', position: 1 },
      { kind: 'or', text: '|', position: 3 },
      { kind: 'open', text: '(', position: 4 },
      { kind: 'tag', text: 'c', position: 5 },
      { kind: 'and', text: '&', position: 6 },
      { kind: 'not', text: '!', position: 8 },
      { kind: 'tag', text: 'd', position: 9 },
      { kind: 'close', text: ')', position: 10 },
      { kind: 'end', text: '', position: 11 },
    ]);
  });

  it('counts positions in characters, not UTF-16 units', () => {
    const tokens = tokenize('😀x | b');
    expect(tokens[0]).toEqual({ kind: 'tag', text: '😀x', position: 1 });
    expect(tokens[1]).toEqual({ kind: 'or', text: '|', position: 4 });
  });
});

describe('parseTagExpression', () => {
  it('a single tag, lower-cased', () => {
    expect(parseTagExpression('Ruby')).toEqual({ kind: 'tag', tag: 'ruby' });
  });

  it('empty or blank input means no filter', () => {
    expect(parseTagExpression('')).toBeUndefined();
    expect(parseTagExpression('   \t ')).toBeUndefined();
  });

  it('AND binds tighter than OR', () => {
    expect(show('a | b & c')).toBe('(a | (b & c))');
    expect(show('a & b | c')).toBe('((a & b) | c)');
    expect(show('a & b | c & d')).toBe('((a & b) | (c & d))');
  });

  it('a bare space between operands is AND, with the same precedence as &', () => {
    expect(show('a b')).toBe('(a & b)');
    expect(show('a b | c')).toBe('((a & b) | c)');
    expect(show('a | b c')).toBe('(a | (b & c))');
    expect(show('a (b | c)')).toBe('(a & (b | c))');
    expect(show('photos & travel & iphone')).toBe('(photos & travel & iphone)');
  });

  it('prefix ! is NOT of the operand after it', () => {
    expect(show('!a')).toBe('!a');
    expect(show('a & !b')).toBe('(a & !b)');
    expect(show('a | !b')).toBe('(a | !b)');
    expect(show('!!a')).toBe('!!a');
    expect(show('!(a | b)')).toBe('!(a | b)');
    expect(show('(!a)')).toBe('!a');
  });

  it('infix ! means "but not" and applies to everything before it (the spec example)', () => {
    expect(show('game | games ! software')).toBe('((game | games) & !software)');
    expect(show('game|games!software')).toBe('((game | games) & !software)');
    expect(show('photo & flickr ! illustrations')).toBe('(photo & flickr & !illustrations)');
    expect(show('photos & travel & iphone !flickr')).toBe('(photos & travel & iphone & !flickr)');
    expect(show('a ! b ! c')).toBe('(a & !b & !c)');
    expect(show('a ! b | c')).toBe('(a & !(b | c))');
    expect(show('(a | b ! c) | d')).toBe('(((a | b) & !c) | d)');
  });

  it('the spec example selects game or games but not software', () => {
    const e = parseTagExpression('game | games ! software')!;
    expect(matchesTags(e, ['game'])).toBe(true);
    expect(matchesTags(e, ['Games', 'fun'])).toBe(true);
    expect(matchesTags(e, ['game', 'software'])).toBe(false);
    expect(matchesTags(e, ['software'])).toBe(false);
    expect(matchesTags(e, [])).toBe(false);
  });

  it('parentheses group', () => {
    expect(show('(a | b) & c')).toBe('((a | b) & c)');
    expect(show('((a))')).toBe('a');
  });

  it('tags may hold any character but white space, operators and commas', () => {
    expect(show('c++ | node.js | über-tag')).toBe('(c++ | node.js | über-tag)');
  });

  it.each([
    ['|', "Invalid tags expression: expected a tag but found '|' at position 1", 1],
    ['a |', 'Invalid tags expression: expected a tag but found end of expression at position 4', 4],
    ['a | | b', "Invalid tags expression: expected a tag but found '|' at position 5", 5],
    ['a & & b', "Invalid tags expression: expected a tag but found '&' at position 5", 5],
    ['a !', 'Invalid tags expression: expected a tag but found end of expression at position 4', 4],
    ['!', 'Invalid tags expression: expected a tag but found end of expression at position 2', 2],
    ['(a | b', "Invalid tags expression: missing ')' for the '(' at position 1 at position 7", 7],
    ['a)', "Invalid tags expression: unmatched ')' at position 2", 2],
    [')', "Invalid tags expression: unmatched ')' at position 1", 1],
    ['()', "Invalid tags expression: expected a tag but found ')' at position 2", 2],
    ['a,b', "Invalid tags expression: ',' is not an operator (use | for OR, & or a space for AND) at position 2", 2],
    ['a\u0001', 'Invalid tags expression: control character at position 2', 2],
  ])('rejects %j with a message naming the problem and position', (input, message, position) => {
    expect(failure(input)).toEqual({ message, position, code: 'invalid_parameters' });
  });

  it('rejects over-long, over-wide and over-deep expressions', () => {
    expect(failure('a'.repeat(MAX_EXPRESSION_LENGTH + 1)).message).toBe(
      `Invalid tags expression: longer than ${MAX_EXPRESSION_LENGTH} characters at position ${MAX_EXPRESSION_LENGTH + 1}`,
    );
    const wide = Array.from({ length: MAX_EXPRESSION_TAGS + 1 }, (_, i) => `t${i}`).join('|');
    expect(failure(wide).message).toMatch(
      new RegExp(`^Invalid tags expression: more than ${MAX_EXPRESSION_TAGS} tags at position \\d+$`),
    );
    const deep = '('.repeat(MAX_EXPRESSION_DEPTH + 1) + 'a' + ')'.repeat(MAX_EXPRESSION_DEPTH + 1);
    expect(failure(deep)).toMatchObject({ position: MAX_EXPRESSION_DEPTH + 1 });
    expect(show('('.repeat(MAX_EXPRESSION_DEPTH) + 'a' + ')'.repeat(MAX_EXPRESSION_DEPTH))).toBe('a');
  });
});

describe('tagDelimiterIn', () => {
  it('names the first character that would end a tag: white space and & | ! ( ) ,', () => {
    expect(tagDelimiterIn('rock&roll')).toBe('&');
    expect(tagDelimiterIn('a(b)|c')).toBe('(');
    expect(tagDelimiterIn('two words')).toBe(' ');
    expect(tagDelimiterIn('no\u00a0break')).toBe('\u00a0');
    expect(tagDelimiterIn('a,b')).toBe(',');
    expect(tagDelimiterIn('c++')).toBeUndefined();
    expect(tagDelimiterIn('été-2024')).toBeUndefined();
  });

  it('a text without one (nor control characters) is exactly one tag of an expression (property)', () => {
    const char = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.constantFrom('&', '|', '!', '(', ')', ',', ' ', '\u3000'),
    );
    const text = fc
      .array(char, { minLength: 1, maxLength: 20 })
      .map((cs) => cs.join(''))
      .filter((s) => !/\p{Cc}/u.test(s));
    fc.assert(
      fc.property(text, (s) => {
        if (tagDelimiterIn(s) === undefined) {
          expect(tokenize(s).map((x) => [x.kind, x.text])).toEqual([
            ['tag', s],
            ['end', ''],
          ]);
          expect(matchesTags(parseTagExpression(s)!, [s])).toBe(true);
        } else {
          // Read as more than one token, or refused (a comma is no operator).
          let tokens: ReturnType<typeof tokenize> = [];
          try {
            tokens = tokenize(s);
          } catch (err) {
            expect(err).toBeInstanceOf(TagExpressionError);
          }
          expect(tokens.some((x) => x.kind === 'tag' && x.text === s)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});
