/**
 * A cookie-keeping website client over `app.inject`, for the web-*.test.ts suites: it remembers
 * the cookies the site sets (like a browser), fetches forms' CSRF tokens, and posts forms
 * (application/x-www-form-urlencoded).
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Services } from '../../src/domain/services.ts';
import { fundUser, registerUser } from '../../src/domain/users.ts';
import type { UserRecord } from '../../src/domain/records.ts';
import { uniqueName } from './factories.ts';

export const PASSWORD = 'correct horse battery';

export class WebClient {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly app: FastifyInstance,
    /** the client's IP as the server sees it (log-in limits count per IP) */
    readonly remoteAddress = '127.0.0.1',
  ) {}

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const expired = c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() < Date.now()) || c.value === '';
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  /** GET a page as a browser would (Accept: text/html). */
  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({
        method: 'GET',
        url,
        remoteAddress: this.remoteAddress,
        headers: { accept: 'text/html,*/*;q=0.8', ...this.cookieHeader(), ...headers },
      }),
    );
  }

  /** POST a form; `fields` go as given (include `_csrf` yourself, or use `submit`; repeated fields as URLSearchParams). */
  async post(
    url: string,
    fields: Record<string, string> | URLSearchParams,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.remoteAddress,
        headers: {
          accept: 'text/html,*/*;q=0.8',
          'content-type': 'application/x-www-form-urlencoded',
          ...this.cookieHeader(),
          ...headers,
        },
        payload: new URLSearchParams(fields).toString(),
      }),
    );
  }

  /** A valid CSRF token, read from the form on `page`. */
  async csrf(page = '/'): Promise<string> {
    const res = await this.get(page);
    return csrfOf(res.body);
  }

  /** Loads `page`, then posts `fields` with the page's CSRF token to `action`. */
  async submit(page: string, action: string, fields: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const token = await this.csrf(page);
    return this.post(action, { _csrf: token, ...fields });
  }

  /** Logs in through the form; asserts success. */
  async login(username: string, password = PASSWORD): Promise<void> {
    const res = await this.submit('/login', '/login', { username, password });
    expect(res.statusCode, res.body).toBe(303);
  }
}

/** The first `_csrf` hidden field's value on a page. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no CSRF field on the page:\n${html.slice(0, 500)}`);
  return m[1]!;
}

/** A registered user with a password (and, by default, means: balance 1000, budget 500 cents). */
export async function buildWebUser(
  s: Services,
  opts: { username?: string; funded?: boolean } = {},
): Promise<UserRecord> {
  const username = opts.username ?? uniqueName('web');
  let user = await registerUser(s, { username, email: `${username}@example.com`, password: PASSWORD });
  if (opts.funded !== false) user = await fundUser(s, { username, cents: 1000, budgetCents: 500 });
  return user;
}

/** Asserts an HTML page with the website's headers, and returns its body. */
export function html(res: LightMyRequestResponse, status = 200): string {
  expect(res.statusCode, res.body.slice(0, 2000)).toBe(status);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  return res.body;
}

/** A Set-Cookie header of `res` by cookie name (the raw header line). */
export function setCookie(res: LightMyRequestResponse, name: string): string | undefined {
  const raw = res.headers['set-cookie'];
  const lines = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return lines.find((l) => l.startsWith(`${name}=`));
}
