/**
 * The error shapes, asserted one way everywhere: the API's `{error, error_description, error_uri}`
 * (api-v2.md "Errors") and the OAuth endpoints' RFC 6749 §5.2 `{error, error_description}`.
 */
import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { json, PUBLIC_URL } from './app.ts';

/** The API's error body. */
export interface ApiError {
  error: string;
  error_description: string;
  error_uri: string;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Asserts an API error: `status`, exactly the keys error, error_description and error_uri, the
 * `code`, a non-empty description and an error_uri into the API document
 * (`{public_url}/docs/api#…`).
 * @returns the body
 */
export function expectError(res: LightMyRequestResponse, status: number, code: string): ApiError {
  expect(res.statusCode, res.body).toBe(status);
  const body = json<ApiError>(res);
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description', 'error_uri']);
  expect(body.error).toBe(code);
  expect(typeof body.error_description).toBe('string');
  expect(body.error_description.length).toBeGreaterThan(0);
  expect(body.error_uri).toMatch(new RegExp(`^${escaped(PUBLIC_URL)}/docs/api#`));
  return body;
}

/**
 * Asserts an OAuth endpoint's error (RFC 6749 §5.2): `status`, exactly the keys error and
 * error_description, the `error` code and a string description; with `noStore`, also the
 * `Cache-Control: no-store` and `Pragma: no-cache` of token responses (§5.1).
 * @returns the body
 */
export function expectOAuthError(
  res: LightMyRequestResponse,
  status: number,
  error: string,
  opts: { noStore?: boolean } = {},
): { error: string; error_description: string } {
  expect(res.statusCode, res.body).toBe(status);
  const body = json<{ error: string; error_description: string }>(res);
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  if (opts.noStore) {
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
  }
  return body;
}
