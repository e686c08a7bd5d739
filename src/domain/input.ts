/**
 * Shared parsing of request values (JSON or form bodies, query strings), per DECISIONS.md
 * "Wire format": booleans accept true/false/1/0 in any case, unknown parameters are ignored.
 */

/** Parses a boolean parameter; undefined when the value is not one of the accepted spellings. */
export function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value !== 'string') return undefined;
  switch (value.trim().toLowerCase()) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
      return false;
    default:
      return undefined;
  }
}

/** First value of a query or form parameter that may have been repeated. */
export function single(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** True when a string holds characters no text column may store (NUL) or is not well-formed UTF-16. */
export function hasForbiddenCharacters(s: string): boolean {
  return s.includes('\u0000') || !s.isWellFormed();
}

/** C0 control characters (U+0000–U+001F) and DEL (U+007F). */
const CONTROL = /[\u0000-\u001f\u007f]/;
/** The same less tab, line feed and carriage return, which multi-line text may hold. */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * True when `s` holds a control character or is not well-formed UTF-16 (a lone surrogate).
 * @param opts.multiLine allow tab, line feed and carriage return (text such as a description).
 */
export function hasControlCharacters(s: string, opts: { multiLine?: boolean } = {}): boolean {
  return (opts.multiLine ? CONTROL_IN_TEXT : CONTROL).test(s) || !s.isWellFormed();
}
