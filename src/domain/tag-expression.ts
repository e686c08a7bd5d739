/**
 * The `tags` expression of `GET /things/search` (api-v2.md "Things", "Search `tags` syntax";
 * DECISIONS.md "Search"): a boolean expression over tags, parsed by a tokenizer and a
 * recursive-descent parser into an AST.
 *
 * Grammar (lowest precedence first):
 * ```
 * expression  := disjunction ( "!" disjunction )*     infix "!" = "but not": left AND NOT right
 * disjunction := conjunction ( "|" conjunction )*     OR
 * conjunction := unary ( [ "&" ] unary )*             AND; a bare space between operands is AND
 * unary       := "!" unary | primary                  prefix "!" = NOT
 * primary     := TAG | "(" expression ")"
 * TAG         := one or more characters other than white space and | & ! ( ) ,
 * ```
 * AND binds tighter than OR. A `!` that follows a complete operand is the spec's "but not": it
 * applies to everything before it, so `game | games ! software` means "game or games, but not
 * software" (the spec's example meaning), while a `!` at the start, after `(`, `|`, `&` or another
 * `!` is a plain NOT of the operand after it (`a & !b`, `!b`). Tags compare case-insensitively
 * (they are stored lower-cased). Positions in error messages are 1-based character positions.
 */
import { InvalidParametersError } from './errors.ts';

/** A parsed tags expression. `tag` values are lower-cased. */
export type TagExpression =
  | { kind: 'tag'; tag: string }
  | { kind: 'not'; operand: TagExpression }
  | { kind: 'and'; operands: TagExpression[] }
  | { kind: 'or'; operands: TagExpression[] };

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 500;
/** Most tags one expression may name. */
export const MAX_EXPRESSION_TAGS = 32;
/** Deepest nesting of parentheses and prefix NOTs. */
export const MAX_EXPRESSION_DEPTH = 16;

/** Raised for a malformed expression; the HTTP layer answers 400 `invalid_parameters`. */
export class TagExpressionError extends InvalidParametersError {
  constructor(
    readonly problem: string,
    /** 1-based character position the problem was found at */
    readonly position: number,
  ) {
    super(`Invalid tags expression: ${problem} at position ${position}`, 'search');
  }
}

type TokenKind = 'tag' | 'or' | 'and' | 'not' | 'open' | 'close' | 'end';

interface Token {
  kind: TokenKind;
  /** the tag text for `tag` tokens, the operator character otherwise ('' at the end) */
  text: string;
  /** 1-based character position */
  position: number;
}

const OPERATORS: Record<string, TokenKind> = { '|': 'or', '&': 'and', '!': 'not', '(': 'open', ')': 'close' };
const SPACE = /\s/u;
/** What ends a TAG token: white space (as `String.prototype.trim` knows it), the operators and `,`. */
const TAG_DELIMITER = /[\s|&!(),]/u;

/**
 * The first character of `tag` that would end it inside an expression (white space, one of
 * `| & ! ( )` or `,`), or undefined when an expression can name the tag. A stored tag must have none
 * (DECISIONS.md "Things"), or no `tags` search could ever find it.
 */
export function tagDelimiterIn(tag: string): string | undefined {
  return TAG_DELIMITER.exec(tag)?.[0];
}

/**
 * Splits an expression into tokens.
 * @throws TagExpressionError for a comma (not an operator) or a control character.
 */
export function tokenize(input: string): Token[] {
  const chars = [...input];
  const tokens: Token[] = [];
  let i = 0;
  while (i < chars.length) {
    const c = chars[i]!;
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    const op = OPERATORS[c];
    if (op) {
      tokens.push({ kind: op, text: c, position: i + 1 });
      i++;
      continue;
    }
    if (c === ',') throw new TagExpressionError("',' is not an operator (use | for OR, & or a space for AND)", i + 1);
    if (/\p{Cc}/u.test(c)) throw new TagExpressionError('control character', i + 1);
    const start = i;
    while (i < chars.length) {
      const d = chars[i]!;
      if (TAG_DELIMITER.test(d) || /\p{Cc}/u.test(d)) break;
      i++;
    }
    tokens.push({ kind: 'tag', text: chars.slice(start, i).join(''), position: start + 1 });
  }
  tokens.push({ kind: 'end', text: '', position: chars.length + 1 });
  return tokens;
}

const describe = (t: Token): string =>
  t.kind === 'end' ? 'end of expression' : t.kind === 'tag' ? `tag "${t.text}"` : `'${t.text}'`;

class Parser {
  private index = 0;
  private depth = 0;
  private tags = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private next(): Token {
    return this.tokens[this.index++]!;
  }

  parseAll(): TagExpression {
    const e = this.expression();
    const t = this.peek();
    if (t.kind === 'close') throw new TagExpressionError("unmatched ')'", t.position);
    if (t.kind !== 'end') throw new TagExpressionError(`unexpected ${describe(t)}`, t.position);
    return e;
  }

  /** expression := disjunction ( "!" disjunction )* */
  private expression(): TagExpression {
    let left = this.disjunction();
    while (this.peek().kind === 'not') {
      this.next();
      const right = this.disjunction();
      left = and([left, { kind: 'not', operand: right }]);
    }
    return left;
  }

  /** disjunction := conjunction ( "|" conjunction )* */
  private disjunction(): TagExpression {
    const operands = [this.conjunction()];
    while (this.peek().kind === 'or') {
      this.next();
      operands.push(this.conjunction());
    }
    return operands.length === 1 ? operands[0]! : { kind: 'or', operands };
  }

  /** conjunction := unary ( [ "&" ] unary )* — juxtaposed operands (a tag or "(") are ANDed too */
  private conjunction(): TagExpression {
    const operands = [this.unary()];
    for (;;) {
      const k = this.peek().kind;
      if (k === 'and') this.next();
      else if (k !== 'tag' && k !== 'open') break;
      operands.push(this.unary());
    }
    return operands.length === 1 ? operands[0]! : and(operands);
  }

  /** unary := "!" unary | primary */
  private unary(): TagExpression {
    const t = this.peek();
    if (t.kind === 'not') {
      this.next();
      return this.nested(t, () => ({ kind: 'not', operand: this.unary() }));
    }
    return this.primary();
  }

  /** primary := TAG | "(" expression ")" */
  private primary(): TagExpression {
    const t = this.next();
    if (t.kind === 'tag') {
      if (++this.tags > MAX_EXPRESSION_TAGS)
        throw new TagExpressionError(`more than ${MAX_EXPRESSION_TAGS} tags`, t.position);
      return { kind: 'tag', tag: t.text.toLowerCase() };
    }
    if (t.kind === 'open') {
      const inner = this.nested(t, () => this.expression());
      const close = this.next();
      if (close.kind !== 'close') {
        if (close.kind === 'end')
          throw new TagExpressionError(`missing ')' for the '(' at position ${t.position}`, close.position);
        throw new TagExpressionError(`expected ')' but found ${describe(close)}`, close.position);
      }
      return inner;
    }
    if (t.kind === 'close')
      throw new TagExpressionError(this.index === 1 ? "unmatched ')'" : "expected a tag but found ')'", t.position);
    throw new TagExpressionError(`expected a tag but found ${describe(t)}`, t.position);
  }

  private nested<T>(at: Token, fn: () => T): T {
    if (++this.depth > MAX_EXPRESSION_DEPTH)
      throw new TagExpressionError(`nested deeper than ${MAX_EXPRESSION_DEPTH} levels`, at.position);
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }
}

/** AND of operands, flattening nested ANDs. */
function and(operands: TagExpression[]): TagExpression {
  return { kind: 'and', operands: operands.flatMap((o) => (o.kind === 'and' ? o.operands : [o])) };
}

/**
 * Parses a `tags` expression.
 * @param input the decoded query value, e.g. `game | games ! software`.
 * @returns the AST, or undefined when the input is empty or only white space (no tag filter).
 * @throws TagExpressionError (400 `invalid_parameters`) naming the problem and its position, for a
 *   malformed expression or one over MAX_EXPRESSION_LENGTH characters / MAX_EXPRESSION_TAGS tags /
 *   MAX_EXPRESSION_DEPTH levels.
 */
export function parseTagExpression(input: string): TagExpression | undefined {
  const length = [...input].length;
  if (length > MAX_EXPRESSION_LENGTH)
    throw new TagExpressionError(`longer than ${MAX_EXPRESSION_LENGTH} characters`, MAX_EXPRESSION_LENGTH + 1);
  const tokens = tokenize(input);
  if (tokens.length === 1) return undefined;
  return new Parser(tokens).parseAll();
}

/** Renders an AST back as a fully parenthesised expression (for logs, docs and tests). */
export function formatTagExpression(e: TagExpression): string {
  switch (e.kind) {
    case 'tag':
      return e.tag;
    case 'not':
      return `!${formatTagExpression(e.operand)}`;
    case 'and':
      return `(${e.operands.map(formatTagExpression).join(' & ')})`;
    case 'or':
      return `(${e.operands.map(formatTagExpression).join(' | ')})`;
  }
}

/** Evaluates an AST against a thing's tags (any case): the reference semantics the SQL follows. */
export function matchesTags(e: TagExpression, tags: Iterable<string>): boolean {
  const set = new Set([...tags].map((t) => t.toLowerCase()));
  const evalE = (x: TagExpression): boolean => {
    switch (x.kind) {
      case 'tag':
        return set.has(x.tag);
      case 'not':
        return !evalE(x.operand);
      case 'and':
        return x.operands.every(evalE);
      case 'or':
        return x.operands.some(evalE);
    }
  };
  return evalE(e);
}
