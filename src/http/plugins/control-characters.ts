/**
 * Control characters refused once, at the edge, on every route (API, OAuth endpoints, website,
 * operations): a path parameter or a query parameter (name or value) holding a C0 control
 * character (U+0000–U+001F), DEL or a lone surrogate, or a body field (JSON at any depth, or
 * form) holding one other than tab, line feed and carriage return, is answered 400 before any
 * route code runs, and nothing is written. The error is a DomainError, so each context renders it
 * in its own form: the API's error shape (`invalid_parameters` for a query parameter,
 * `invalid_request` otherwise, in the negotiated format), RFC 6749 `invalid_request` on the OAuth
 * endpoints, an HTML error page on the website.
 * Runs in preValidation, after the API has counted the request (rate limits) and negotiated its
 * format, and after the body is parsed. HTTP Basic credentials, which arrive encoded in a header,
 * are checked where they are decoded (src/auth/oauth/token.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { hasControlCharacters } from '../../domain/input.ts';

/** Refused input: 400 `invalid_parameters` (query) or `invalid_request` (path, body), naming where. */
export class ControlCharacterError extends DomainError {
  constructor(where: 'query' | 'path' | 'body', name: string) {
    const place = where === 'query' ? 'The query parameter' : where === 'path' ? 'The path segment' : 'The field';
    super(
      where === 'query' ? 'invalid_parameters' : 'invalid_request',
      `${place} ${printable(name)} holds a control character or malformed text`,
    );
  }
}

/** A name as it may be shown in an error: quoted, control and non-ASCII characters as `?`, at most 64. */
function printable(name: string): string {
  return JSON.stringify(name.slice(0, 64).replace(/[^\x20-\x7e]/g, '?'));
}

/**
 * The first key path in `value` (a parsed JSON or form body) whose key or string value holds a
 * control character other than tab, line feed and carriage return; undefined when there is none.
 * Walks with an explicit stack, so a deeply nested body cannot exhaust the call stack.
 */
export function findControlCharacterInBody(value: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (hasControlCharacters(v, { multiLine: true })) return path;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ value: v[i], path });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const at = path === '' ? k : `${path}.${k}`;
        if (hasControlCharacters(k, { multiLine: true })) return at;
        stack.push({ value: x, path: at });
      }
    }
  }
  return undefined;
}

/**
 * Throws ControlCharacterError for the first path or query parameter, or body field, that holds
 * one. Allocates nothing for a request whose parameters are clean and that has no body.
 */
function checkRequest(request: FastifyRequest): void {
  const params = request.params as Record<string, unknown> | undefined;
  for (const name in params) {
    const v = params[name];
    if (typeof v === 'string' && hasControlCharacters(v)) throw new ControlCharacterError('path', name);
  }
  const query = request.query as Record<string, unknown> | undefined;
  for (const name in query) {
    if (hasControlCharacters(name)) throw new ControlCharacterError('query', name);
    const v = query[name];
    if (Array.isArray(v)) {
      for (const x of v)
        if (typeof x === 'string' && hasControlCharacters(x)) throw new ControlCharacterError('query', name);
    } else if (typeof v === 'string' && hasControlCharacters(v)) throw new ControlCharacterError('query', name);
  }
  if (request.body !== undefined) {
    const at = findControlCharacterInBody(request.body);
    if (at !== undefined) throw new ControlCharacterError('body', at === '' ? '(the body)' : at);
  }
}

/** Registers the check on `app` (the root instance, before any route), for every route. */
export function registerControlCharacterGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    let refused: Error | undefined;
    try {
      checkRequest(request);
    } catch (err) {
      refused = err as Error;
    }
    done(refused);
  });
}
