/**
 * The errors the client raises: every refusal of the API or of the OAuth endpoints becomes a
 * `TipjarError` carrying the API's own code (api-v2.md "Errors"); a refusal for going over a rate
 * limit is a `RateLimitError` with the seconds to wait (api-v2.md "Limits").
 */
import type { components } from './openapi.ts';

/** The API's error codes (api-v2.md "Errors", with DECISIONS.md's additions). */
export type ApiErrorCode = components['schemas']['Error']['error'];

/**
 * The OAuth endpoints' codes (RFC 6749 §4.1.2.1 and §5.2) and the two the client gives itself:
 * `state_mismatch` (the redirect's `state` is not the one sent) and `unexpected_response` (an
 * answer that is neither a success nor an error body, e.g. a proxy's HTML page).
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable';

/** Every code a `TipjarError` may carry; other strings are possible from a newer server. */
export type ErrorCode = ApiErrorCode | OAuthErrorCode | 'state_mismatch' | 'unexpected_response' | (string & {});

/**
 * The `X-RateLimit-*` headers of a response (api-v2.md "Limits" 1), each absent when the response
 * did not carry it (`GET /rate_limit`, the OAuth endpoints).
 */
export interface RateLimitHeaders {
  /** `X-RateLimit-Limit`: requests allowed in the hourly window */
  limit?: number;
  /** `X-RateLimit-Remaining`: requests left in the window */
  remaining?: number;
  /** `X-RateLimit-Current`: requests made in the window, this one included */
  current?: number;
  /** `X-RateLimit-Reset`: when the window ends, in Unix seconds */
  reset?: number;
}

/** An integer header, or undefined when absent or not an integer. */
function integerHeader(headers: Headers, name: string): number | undefined {
  const value = headers.get(name);
  if (value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

/** The `X-RateLimit-*` headers of `headers` (api-v2.md "Limits" 1). */
export function rateLimitHeaders(headers: Headers): RateLimitHeaders {
  const out: RateLimitHeaders = {};
  const limit = integerHeader(headers, 'X-RateLimit-Limit');
  const remaining = integerHeader(headers, 'X-RateLimit-Remaining');
  const current = integerHeader(headers, 'X-RateLimit-Current');
  const reset = integerHeader(headers, 'X-RateLimit-Reset');
  if (limit !== undefined) out.limit = limit;
  if (remaining !== undefined) out.remaining = remaining;
  if (current !== undefined) out.current = current;
  if (reset !== undefined) out.reset = reset;
  return out;
}

/** What a `TipjarError` is made of. */
export interface TipjarErrorInit {
  /** the HTTP status; 0 for an error the authorization server returned through a redirect */
  status: number;
  code: ErrorCode;
  description: string;
  /** the API's `error_uri`: the section of the server's /docs/api explaining the error */
  uri?: string;
  rateLimit?: RateLimitHeaders;
}

/**
 * A refusal by the API or the OAuth endpoints (api-v2.md "Errors"; RFC 6749 §5.2 for
 * /oauth/token and /oauth/revoke).
 */
export class TipjarError extends Error {
  /** the HTTP status (e.g. 403); 0 when the error came back in an authorization redirect */
  readonly status: number;
  /** the API's `error` (`tip_once`, `no_means`, `not_found`, …) or the OAuth `error` (`invalid_grant`, …) */
  readonly code: ErrorCode;
  /** the API's `error_description`: a sentence for people */
  readonly description: string;
  /** the API's `error_uri` (absent on OAuth errors) */
  readonly uri: string | undefined;
  /** the response's `X-RateLimit-*` headers (api-v2.md "Limits" 1); `{}` when it carried none */
  readonly rateLimit: RateLimitHeaders;

  constructor(init: TipjarErrorInit) {
    super(`${init.code}: ${init.description}`);
    this.name = 'TipjarError';
    this.status = init.status;
    this.code = init.code;
    this.description = init.description;
    this.uri = init.uri;
    this.rateLimit = init.rateLimit ?? {};
  }
}

/**
 * Over a rate limit: the API's 403 `rate_limit_exceeded` (api-v2.md "Limits" 2), or the OAuth
 * endpoints' 429 after too many failed client authentications. `retryAfter` is the response's
 * `Retry-After`: seconds until the window ends and requests are answered again.
 */
export class RateLimitError extends TipjarError {
  /** seconds to wait before trying again (`Retry-After`) */
  readonly retryAfter: number;

  constructor(init: TipjarErrorInit & { retryAfter: number }) {
    super(init);
    this.name = 'RateLimitError';
    this.retryAfter = init.retryAfter;
  }
}

/**
 * The error an unsuccessful response stands for: its body's `error`, `error_description` and
 * `error_uri` when it is the API's (or RFC 6749's) error shape, else `server_error` for a 5xx and
 * `unexpected_response` otherwise. A `RateLimitError` when the code is `rate_limit_exceeded` or
 * the status is 429, with `Retry-After` (0 when the response lacked it).
 * @param body the parsed JSON body, or its text when it was not JSON
 */
export function errorFromResponse(response: Response, body: unknown): TipjarError {
  const shaped =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? (body as { error: string; error_description?: unknown; error_uri?: unknown })
      : undefined;
  const code = shaped?.error ?? (response.status >= 500 ? 'server_error' : 'unexpected_response');
  const description =
    typeof shaped?.error_description === 'string'
      ? shaped.error_description
      : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const init: TipjarErrorInit = {
    status: response.status,
    code,
    description,
    uri: typeof shaped?.error_uri === 'string' ? shaped.error_uri : undefined,
    rateLimit: rateLimitHeaders(response.headers),
  };
  if (code === 'rate_limit_exceeded' || response.status === 429) {
    return new RateLimitError({ ...init, retryAfter: integerHeader(response.headers, 'Retry-After') ?? 0 });
  }
  return new TipjarError(init);
}
