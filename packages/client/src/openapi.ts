/**
 * The paths and representations of the Tipjar API v2, generated from its OpenAPI document
 * (`GET /openapi.json`) by openapi-typescript. Do not edit: run `npm run client:types` after
 * changing a route schema (src/http/routes/<resource>/schemas.ts, src/http/schemas/); a test fails
 * while this file and the server's document disagree.
 */
export interface paths {
  '/oauth/token': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Exchange an authorization code for an access token
     * @description `grant_type=authorization_code` with `code`, `redirect_uri` (required when the authorization request carried one, then identical) and `code_verifier` (PKCE), as JSON or form fields; the client authenticates with HTTP Basic or `client_id`/`client_secret` in the body (api-v2.md "Authentication" 4–5, RFC 6749 §4.1.3, docs/api.md "OAuth 2").
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @enum {string} */
            grant_type: 'authorization_code';
            code: string;
            redirect_uri?: string;
            /** @description PKCE (RFC 7636) */
            code_verifier?: string;
            /** @description client_secret_post: instead of HTTP Basic */
            client_id?: string;
            /** @description client_secret_post: instead of HTTP Basic */
            client_secret?: string;
          };
          'application/x-www-form-urlencoded': {
            /** @enum {string} */
            grant_type: 'authorization_code';
            code: string;
            redirect_uri?: string;
            /** @description PKCE (RFC 7636) */
            code_verifier?: string;
            /** @description client_secret_post: instead of HTTP Basic */
            client_id?: string;
            /** @description client_secret_post: instead of HTTP Basic */
            client_secret?: string;
          };
        };
      };
      responses: {
        /** @description The access token */
        200: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthToken'];
          };
        };
        /** @description `invalid_request`, `invalid_grant`, `unsupported_grant_type`, `invalid_client`, … */
        400: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
        /** @description `invalid_client` when HTTP Basic was used or no client credentials were sent */
        401: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            /** @description `Basic realm=…` */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
        /** @description `invalid_request`: the body is over 1 MiB */
        413: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
        /** @description `invalid_request`: too many failed client authentications from this IP (docs/api.md "OAuth 2") */
        429: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            /** @description seconds until the limit's 15-minute window ends */
            'Retry-After'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
        /** @description `server_error` */
        500: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke an access token
     * @description RFC 7009: `token` (and optional `token_type_hint`), client-authenticated as at /oauth/token. 200 with an empty body whether or not the token was known (only the client's own live token is revoked).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            token: string;
            token_type_hint?: string;
            /** @description client_secret_post: instead of HTTP Basic */
            client_id?: string;
            /** @description client_secret_post: instead of HTTP Basic */
            client_secret?: string;
          };
          'application/x-www-form-urlencoded': {
            token: string;
            token_type_hint?: string;
            /** @description client_secret_post: instead of HTTP Basic */
            client_id?: string;
            /** @description client_secret_post: instead of HTTP Basic */
            client_secret?: string;
          };
        };
      };
      responses: {
        /** @description Revoked (or unknown): empty body */
        200: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description `invalid_request`, `invalid_grant`, `unsupported_grant_type`, `invalid_client`, … */
        400: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
        /** @description `invalid_client` when HTTP Basic was used or no client credentials were sent */
        401: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            /** @description `Basic realm=…` */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
        /** @description `invalid_request`: the body is over 1 MiB */
        413: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
        /** @description `invalid_request`: too many failed client authentications from this IP (docs/api.md "OAuth 2") */
        429: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            /** @description seconds until the limit's 15-minute window ends */
            'Retry-After'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
        /** @description `server_error` */
        500: {
          headers: {
            /** @description `no-store` */
            'Cache-Control'?: string;
            /** @description `no-cache` */
            Pragma?: string;
            /** @description a past date */
            Expires?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthError'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/oauth-authorization-server': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Authorization server metadata
     * @description RFC 8414: the issuer ({auth_url}), its endpoints and what they support.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Metadata */
        200: {
          headers: {
            /** @description `public, max-age=3600` */
            'Cache-Control'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['OAuthMetadata'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/things/search': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search things
     * @description Every parameter optional; empty values mean "not given"; a repeated parameter counts once; bad values → 400 `invalid_parameters` (docs/api.md "Search"). With a token, things carry the caller's per-viewer fields and the caller's hidden things match. Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description words that must all occur in title, description, tags or url */
          query?: string;
          /** @description an absolute http(s) URL: only its thing */
          url?: string;
          /** @description tag expression: `|` OR, `&` or space AND, `!` NOT / but not, parentheses (URL-encode `&` as `%26`) */
          tags?: string;
          /** @description a language id or a comma list */
          language?: string;
          /** @description a category id or a comma list */
          category?: string;
          /** @description a username: only that user's things */
          user?: string;
          sort?: 'relevance' | 'trend' | 'tips' | 'tips_month' | 'tips_week' | 'tips_day';
          /** @description items per page, 1–100 (default 30; empty `count=` too) */
          count?: number;
          /** @description page, from 1 */
          page?: number;
          /** @description bare flag (`?full`) or `1|true|full` in any case; `0|false` off: owners (and the thing in a Tip) in full */
          full?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Search result */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['SearchResult'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/users/{username}/things': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a user's things
     * @description Newest first, paged; hidden things only for their owner (api-v2.md "Endpoints / Things", docs/api.md "Lists"). 404 `not_found` for an unknown user. Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description items per page, 1–100 (default 30; empty `count=` too) */
          count?: number;
          /** @description page, from 1 */
          page?: number;
          /** @description bare flag (`?full`) or `1|true|full` in any case; `0|false` off: owners (and the thing in a Tip) in full */
          full?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a username */
          username: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Array of thing (full representation); `.as`/`.atom`: the things as `post` activities */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Thing'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/stream+json': components['schemas']['ActivityStream'];
            'application/atom+xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/user/things': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the caller's things
     * @description The caller's things, hidden ones included, newest first, paged (token, any scope). Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description items per page, 1–100 (default 30; empty `count=` too) */
          count?: number;
          /** @description page, from 1 */
          page?: number;
          /** @description bare flag (`?full`) or `1|true|full` in any case; `0|false` off: owners (and the thing in a Tip) in full */
          full?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Array of thing (full representation); `.as`/`.atom`: the things as `post` activities */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Thing'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/stream+json': components['schemas']['ActivityStream'];
            'application/atom+xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/things/lookup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Look a thing up by URL
     * @description Finds the thing of a URL, or of an auto-submit URL's inner `url` (api-v2.md "Endpoints / Things", docs/api.md "Things"): 302 with `Location` (the thing's API address) and `{message: "found", location}`, or 404 `{message: "not_found", description}` (the spec's own body, not the error shape). A `user_id` or `owner` of an auto-submit URL that does not match → 400 `validation`.
     */
    get: {
      parameters: {
        query: {
          /** @description the URL (URL-encoded); may be an auto-submit URL */
          url: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Found */
        302: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description the thing's API address */
            Location?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['LookupFound'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_request`, `validation`, `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description No thing for this URL */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['LookupMissing'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/things/{ids}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get one thing, or several by comma-separated ids
     * @description One id: the thing (full representation); several ids (`/things/1,2,3`, up to 100): an array in the order asked, 404 when any is unknown, more than 100 → 400 `invalid_parameters` (api-v2.md "Endpoints / Things"). Without a token `tipped`, `subscribed`, `last_tip_at` and `updated_at` are absent; with one `tipped` and `subscribed`; `last_tip_at` and `updated_at` for the owner only. `full` renders owners in full. Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description bare flag (`?full`) or `1|true|full` in any case; `0|false` off: owners (and the thing in a Tip) in full */
          full?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id, or up to 100 comma-separated ids (`1,2,3`) */
          ids: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A thing, or an array of things for several ids */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Thing'] | components['schemas']['Thing'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    /**
     * Update a thing (PATCH workaround)
     * @description A POST with `_method=patch` (query, form or JSON body) acts as PATCH /things/{ids} (api-v2.md conventions 6); without it → 400 `invalid_request`.
     */
    post: {
      parameters: {
        query?: {
          /** @description `patch` */
          _method?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id (positive integer) */
          ids: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': {
            /** @enum {string} */
            _method?: 'patch';
            /** @description ignored when equal to the current URL; another → 400 `validation` */
            url?: string;
            title?: string;
            description?: string;
            /** @description a category id (default `rest`) */
            category?: string;
            /** @description a language id (default `en_GB`) */
            language?: string;
            /** @description at most 50 tags of at most 64 characters, trimmed; empty ones and case-insensitive duplicates dropped. A tag holding white space or one of `& | ! ( ) ,` → 400 `validation` naming it (no tags search could find it) */
            tags?: string | string[];
            /** @description a boolean, or `true|false|1|0` in any case (default false) */
            hidden?: boolean | string;
          };
          'application/x-www-form-urlencoded': {
            /** @enum {string} */
            _method?: 'patch';
            /** @description ignored when equal to the current URL; another → 400 `validation` */
            url?: string;
            title?: string;
            description?: string;
            /** @description a category id (default `rest`) */
            category?: string;
            /** @description a language id (default `en_GB`) */
            language?: string;
            /** @description at most 50 tags of at most 64 characters, trimmed; empty ones and case-insensitive duplicates dropped. A tag holding white space or one of `& | ! ( ) ,` → 400 `validation` naming it (no tags search could find it) */
            tags?: string | string[];
            /** @description a boolean, or `true|false|1|0` in any case (default false) */
            hidden?: boolean | string;
          };
        };
      };
      responses: {
        /** @description Message body `{message: "ok", description}` */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Message'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_request`, `validation`, `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `forbidden`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    /**
     * Delete a thing
     * @description Scope `thing`, owner only (else 403 `forbidden`). 204 with an empty body; the tips stay in the ledger (docs/api.md "Things").
     */
    delete: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id (positive integer) */
          ids: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Deleted */
        204: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `forbidden`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    options?: never;
    head?: never;
    /**
     * Update a thing
     * @description Scope `thing`, owner only (else 403 `forbidden`): the fields given change, `updated_at` is set (api-v2.md "Endpoints / Things", docs/api.md "Things").
     */
    patch: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id (positive integer) */
          ids: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description ignored when equal to the current URL; another → 400 `validation` */
            url?: string;
            title?: string;
            description?: string;
            /** @description a category id (default `rest`) */
            category?: string;
            /** @description a language id (default `en_GB`) */
            language?: string;
            /** @description at most 50 tags of at most 64 characters, trimmed; empty ones and case-insensitive duplicates dropped. A tag holding white space or one of `& | ! ( ) ,` → 400 `validation` naming it (no tags search could find it) */
            tags?: string | string[];
            /** @description a boolean, or `true|false|1|0` in any case (default false) */
            hidden?: boolean | string;
          };
          'application/x-www-form-urlencoded': {
            /** @description ignored when equal to the current URL; another → 400 `validation` */
            url?: string;
            title?: string;
            description?: string;
            /** @description a category id (default `rest`) */
            category?: string;
            /** @description a language id (default `en_GB`) */
            language?: string;
            /** @description at most 50 tags of at most 64 characters, trimmed; empty ones and case-insensitive duplicates dropped. A tag holding white space or one of `& | ! ( ) ,` → 400 `validation` naming it (no tags search could find it) */
            tags?: string | string[];
            /** @description a boolean, or `true|false|1|0` in any case (default false) */
            hidden?: boolean | string;
          };
        };
      };
      responses: {
        /** @description Message body `{message: "ok", description}` */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Message'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_request`, `validation`, `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `forbidden`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    trace?: never;
  };
  '/rest/v2/things': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Register a thing
     * @description Scope `thing`. `url` required: absolute http(s), at most 2048 characters, not registered yet (api-v2.md "Endpoints / Things", docs/api.md "Things"). 201 with the creation body; `link` is the API address. Invalid fields → 400 `validation`.
     */
    post: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            url: string;
            title?: string;
            description?: string;
            /** @description a category id (default `rest`) */
            category?: string;
            /** @description a language id (default `en_GB`) */
            language?: string;
            /** @description at most 50 tags of at most 64 characters, trimmed; empty ones and case-insensitive duplicates dropped. A tag holding white space or one of `& | ! ( ) ,` → 400 `validation` naming it (no tags search could find it) */
            tags?: string | string[];
            /** @description a boolean, or `true|false|1|0` in any case (default false) */
            hidden?: boolean | string;
          };
          'application/x-www-form-urlencoded': {
            url: string;
            title?: string;
            description?: string;
            /** @description a category id (default `rest`) */
            category?: string;
            /** @description a language id (default `en_GB`) */
            language?: string;
            /** @description at most 50 tags of at most 64 characters, trimmed; empty ones and case-insensitive duplicates dropped. A tag holding white space or one of `& | ! ( ) ,` → 400 `validation` naming it (no tags search could find it) */
            tags?: string | string[];
            /** @description a boolean, or `true|false|1|0` in any case (default false) */
            hidden?: boolean | string;
          };
        };
      };
      responses: {
        /** @description Created */
        201: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Creation'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_request`, `validation`, `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/users/{username}/tips': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a user's tips
     * @description 200 `[]` when the user hides their tips or has given none; 404 `not_found` for an unknown user (api-v2.md "Endpoints / Tips"). Paged, newest first. Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description items per page, 1–100 (default 30; empty `count=` too) */
          count?: number;
          /** @description page, from 1 */
          page?: number;
          /** @description bare flag (`?full`) or `1|true|full` in any case; `0|false` off: owners (and the thing in a Tip) in full */
          full?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a username */
          username: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Array of Tip, newest first; `.as`/`.atom`: the tips as `like` activities */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Tip'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/stream+json': components['schemas']['ActivityStream'];
            'application/atom+xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/user/tips': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the caller's tips
     * @description Token, any scope; no token → 401 `unauthorized` (api-v2.md "Endpoints / Tips"). Paged, newest first. Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description items per page, 1–100 (default 30; empty `count=` too) */
          count?: number;
          /** @description page, from 1 */
          page?: number;
          /** @description bare flag (`?full`) or `1|true|full` in any case; `0|false` off: owners (and the thing in a Tip) in full */
          full?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Array of Tip, newest first; `.as`/`.atom`: the tips as `like` activities */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Tip'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/stream+json': components['schemas']['ActivityStream'];
            'application/atom+xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/things/{id}/tips': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the tips of a thing
     * @description Token required, any scope (api-v2.md "Endpoints / Tips"); tips of users who hide theirs are left out except their own. Paged, newest first. Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description items per page, 1–100 (default 30; empty `count=` too) */
          count?: number;
          /** @description page, from 1 */
          page?: number;
          /** @description bare flag (`?full`) or `1|true|full` in any case; `0|false` off: owners (and the thing in a Tip) in full */
          full?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id (positive integer) */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Array of Tip, newest first; `.as`/`.atom`: the tips as `like` activities */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Tip'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/stream+json': components['schemas']['ActivityStream'];
            'application/atom+xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/things/{id}/tip': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Tip a thing
     * @description Scope `tip`. One tip per user, thing and calendar month (UTC). Checks in order: the thing exists (404), it is not yours (403 `tip_owner`), you have means (401 `no_means`), not tipped this period (403 `tip_once`) (api-v2.md "Endpoints / Tips", docs/api.md "Tips").
     */
    post: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id (positive integer) */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description `{message: "ok", description, thing}` with the confirmation thing */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Confirmation'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_request`, `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `no_means`, `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `tip_once`, `tip_owner`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/tip': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Tip a URL
     * @description Scope `tip`. `url`: a registered thing's URL, an auto-submit URL (`{site_url}/submit/auto?url=…&user_id=…` or `owner=<identity>`; an unregistered inner URL is created and tipped in one transaction), or a URL whose page links an auto-submit URL with `rel="payment"` (api-v2.md "Endpoints / Tips", docs/api.md "Tips", "Discovery"). Another URL → 404; a missing or malformed one → 400 `invalid_request`.
     */
    post: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description a tippable URL */
            url: string;
          };
          'application/x-www-form-urlencoded': {
            /** @description a tippable URL */
            url: string;
          };
        };
      };
      responses: {
        /** @description `{message: "ok", description, thing}` with the confirmation thing */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Confirmation'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_request`, `validation`, `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `no_means`, `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `tip_once`, `tip_owner`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/user/subscriptions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the caller's subscriptions
     * @description Scope `tip`. Active and paused, newest first, not paged (api-v2.md "Endpoints / Subscriptions"). Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Array of Subscription */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Subscription'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/things/{id}/subscriptions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Pause or restart a subscription
     * @description Scope `tip`. Toggles: active → `{message: "paused"}`, paused → `{message: "started"}` (api-v2.md "States and transitions"). The body is ignored.
     */
    put: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id (positive integer) */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Message body, message `started` or `paused` */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Message'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    /**
     * Subscribe to a thing
     * @description Scope `tip`. Subscribes and tips the thing for the current period unless already tipped (api-v2.md "Endpoints / Subscriptions", docs/api.md "Subscriptions"). 403 `thing_owner` for your own thing, 403 `subscribed` when already subscribed.
     */
    post: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id (positive integer) */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description `{message: "ok", description, thing}` with the confirmation thing */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Confirmation'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `thing_owner`, `subscribed`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    /**
     * Unsubscribe from a thing
     * @description Scope `tip`. 204 with an empty body; 404 `not_found` without a subscription (api-v2.md "Endpoints / Subscriptions").
     */
    delete: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a thing id (positive integer) */
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Unsubscribed */
        204: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `insufficient_scope`, `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only) */
            'WWW-Authenticate'?: string;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/users/{username}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a user
     * @description The public User (api-v2.md "Endpoints / Users", "User"); 404 `not_found` for an unknown user. Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a username */
          username: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description User */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['User'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/user': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get the current user
     * @description The caller's User; with scope `extendedread` also `email`, `email_verified` (an extension), `registered_at` and the budget (api-v2.md "Endpoints / Users"; docs/api.md "Users"). Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description User */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['User'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/categories': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the categories
     * @description The seven categories `{id, name}` in the spec's order (api-v2.md "Reference data and limits", "Category"). Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Array of Category */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Category'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/languages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the languages
     * @description The 44 languages `{id, text}`, English first (api-v2.md "Reference data and limits", "Language"). Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Array of Language */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Language'][];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/users/{username}/activities': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A user's activity feed
     * @description Public; hidden things only for their owner; 404 `not_found` for an unknown user (api-v2.md "Endpoints / Activities"). Formats: `.as` / `Accept: application/stream+json` (default) or `.atom` / `Accept: application/atom+xml`; JSON and XML → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description `outgoing` (what the user did, default) or `incoming` (what others did to their things), in any case; else 400 `invalid_parameters` */
          type?: 'outgoing' | 'incoming';
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a username */
          username: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The newest 100 activities: Activity Streams (`.as`, the default) or Atom (`.atom`) */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/stream+json': components['schemas']['ActivityStream'];
            'application/atom+xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_found` */
        404: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/user/activities': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller's activity feed
     * @description Token, any scope (api-v2.md "Endpoints / Activities"). Formats: `.as` / `Accept: application/stream+json` (default) or `.atom` / `Accept: application/atom+xml`; JSON and XML → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description `outgoing` (what the user did, default) or `incoming` (what others did to their things), in any case; else 400 `invalid_parameters` */
          type?: 'outgoing' | 'incoming';
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The newest 100 activities: Activity Streams (`.as`, the default) or Atom (`.atom`) */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/stream+json': components['schemas']['ActivityStream'];
            'application/atom+xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/user/verify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Verify a partner-side identity of the caller
     * @description With a token issued to a partner's client: associates `identity` (body or query) with the token's user and claims its pending things (api-v2.md "Partner verification"). 401 `unauthorized` when not logged in, not a partner's token, the identity is malformed, outside the partner's namespace, or verified by another user.
     */
    post: {
      parameters: {
        query?: {
          /** @description the partner-side identity, `partner:<namespace>:<id>` (or `email:<hash>`, `twitter:user:id:<id>`) */
          identity?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': {
            /** @description the partner-side identity, `partner:<namespace>:<id>` (or `email:<hash>`, `twitter:user:id:<id>`) */
            identity?: string;
          };
          'application/x-www-form-urlencoded': {
            /** @description the partner-side identity, `partner:<namespace>:<id>` (or `email:<hash>`, `twitter:user:id:<id>`) */
            identity?: string;
          };
        };
      };
      responses: {
        /** @description `{message: "ok", description}`; the pending things of the identity are claimed */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Message'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/users/{username}/verify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Verify a partner-side identity of a user
     * @description As POST /user/verify; the token's user must be `username` (else 401 `unauthorized`).
     */
    post: {
      parameters: {
        query?: {
          /** @description the partner-side identity, `partner:<namespace>:<id>` (or `email:<hash>`, `twitter:user:id:<id>`) */
          identity?: string;
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path: {
          /** @description a username */
          username: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': {
            /** @description the partner-side identity, `partner:<namespace>:<id>` (or `email:<hash>`, `twitter:user:id:<id>`) */
            identity?: string;
          };
          'application/x-www-form-urlencoded': {
            /** @description the partner-side identity, `partner:<namespace>:<id>` (or `email:<hash>`, `twitter:user:id:<id>`) */
            identity?: string;
          };
        };
      };
      responses: {
        /** @description `{message: "ok", description}`; the pending things of the identity are claimed */
        200: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Message'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `rate_limit_exceeded` */
        403: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            /** @description seconds until the rate-limit window ends (rate_limit_exceeded only) */
            'Retry-After'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            /** @description requests allowed in the hourly window */
            'X-RateLimit-Limit'?: number;
            /** @description requests left in the window */
            'X-RateLimit-Remaining'?: number;
            /** @description requests made in the window, this one included */
            'X-RateLimit-Current'?: number;
            /** @description Unix seconds at which the window ends */
            'X-RateLimit-Reset'?: number;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/rest/v2/rate_limit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller's rate-limit window
     * @description With a valid token the window of the token's (user, client), else of the client IP (api-v2.md "Limits", docs/api.md "Rate limits"). This resource is not rate limited: not counted, no X-RateLimit headers. Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.
     */
    get: {
      parameters: {
        query?: {
          /** @description JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript` */
          jsonp?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Rate-limit body */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['RateLimit'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `invalid_parameters` */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `unauthorized` */
        401: {
          headers: {
            /** @description `Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token */
            'WWW-Authenticate'?: string;
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `not_acceptable` */
        406: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/javascript;charset=utf-8': string;
          };
        };
        /** @description Error: `server_error` */
        500: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json;charset=utf-8': components['schemas']['Error'];
            'application/xml;charset=utf-8': string;
            'text/xml;charset=utf-8': string;
            'application/javascript;charset=utf-8': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** User summary */
    UserSummary: {
      /** @enum {string} */
      type: 'user';
      /** @description API address of the user */
      resource: string;
      /** @description website address of the user (profile page) */
      link: string;
      username: string;
    };
    /** User */
    User: {
      /** @enum {string} */
      type: 'user';
      /** @description API address of the user */
      resource: string;
      /** @description website address of the user (profile page) */
      link: string;
      username: string;
      /** @description may be empty */
      firstname: string;
      /** @description may be empty */
      lastname: string;
      /** @description URL of the avatar; may be empty */
      avatar: string;
      /** @description may be empty */
      about: string;
      /** @description may be empty */
      city: string;
      /** @description may be empty */
      country: string;
      /** @description the user's own web site; may be empty */
      url: string;
      /** @description only for the own user with scope `extendedread` */
      email?: string;
      /** @description extension, only for the own user with scope `extendedread`: whether `email` was verified through the link mailed to it (or by the operator); false without an address */
      email_verified?: boolean;
      /** @description only for the own user with scope `extendedread` (Unix seconds) */
      registered_at?: number;
      /** @description only for the own user with scope `extendedread`: the monthly budget setting, in cents */
      budget_cents?: number;
      /** @description only for the own user with scope `extendedread`: the current period's budget in cents, fixed at the user's first tip in it (a later change of the setting applies from the next period) */
      period_budget_cents?: number;
    };
    /**
     * Thing owner
     * @description A User summary; with `full` the full User; for a pending thing empty `resource`, `link`, `username` plus `identity`.
     */
    Owner: {
      /** @enum {string} */
      type: 'user';
      /** @description API address of the user */
      resource: string;
      /** @description website address of the user (profile page) */
      link: string;
      username: string;
      /** @description may be empty */
      firstname?: string;
      /** @description may be empty */
      lastname?: string;
      /** @description URL of the avatar; may be empty */
      avatar?: string;
      /** @description may be empty */
      about?: string;
      /** @description may be empty */
      city?: string;
      /** @description may be empty */
      country?: string;
      /** @description the user's own web site; may be empty */
      url?: string;
      /** @description pending things only: the partner-side identity, e.g. `email:<hash>` */
      identity?: string;
      /** @description inside a Subscription only: the owner's user id as a string ("" for a pending thing) */
      id?: string;
    };
    /** Thing (full representation) */
    Thing: {
      /** @enum {string} */
      type: 'thing';
      /** @description API address of the thing */
      resource: string;
      /** @description website address of the thing */
      link: string;
      /** @description thing identifier */
      id: number;
      /** @description the URL the thing stands for */
      url: string;
      /** @description language id `xx_YY` (see Language) */
      language: string;
      /** @description category id (see Category) */
      category: string;
      owner: components['schemas']['Owner'];
      hidden: boolean;
      /** @description image URL; may be empty */
      image: string;
      /** @description registration time (Unix seconds) */
      created_at: number;
      tags: string[];
      /** @description number of tips the thing has received */
      tips: number;
      /** @description number of distinct users who tipped it */
      tips_user_count: number;
      description: string;
      title: string;
      /** @description only for the owner: last tip, 0 when never (Unix seconds) */
      last_tip_at?: number;
      /** @description only for the owner: last update, 0 when never (Unix seconds) */
      updated_at?: number;
      /** @description only with a token: the caller tipped it in the current period */
      tipped?: boolean;
      /** @description only with a token: the caller subscribes to it */
      subscribed?: boolean;
    };
    /** Thing (confirmation representation) */
    ThingConfirmation: {
      /** @enum {string} */
      type: 'thing';
      /** @description API address of the thing */
      resource: string;
      /** @description website address of the thing */
      link: string;
      /** @description thing identifier */
      id: number;
      tips: number;
      /** @description the URL the thing stands for */
      url: string;
      title: string;
      image: string;
    };
    /** Thing (short representation) */
    ThingShort: {
      /** @enum {string} */
      type: 'thing';
      /** @description API address of the thing */
      resource: string;
      /** @description website address of the thing */
      link: string;
      /** @description thing identifier */
      id: number;
      /** @description the URL the thing stands for */
      url: string;
      title: string;
      image: string;
      tips: number;
      owner: components['schemas']['Owner'];
    };
    /** Tip */
    Tip: {
      /** @enum {string} */
      type: 'tip';
      /** @description short thing; the full thing with `full` */
      thing: components['schemas']['ThingShort'] | components['schemas']['Thing'];
      /** @description the tipper: User summary; the full User with `full` */
      owner: components['schemas']['UserSummary'] | components['schemas']['User'];
      /** @description when the tip was given (Unix seconds) */
      created_at: number;
    };
    /** Subscription */
    Subscription: {
      /** @enum {string} */
      type: 'subscription';
      /** @description false while paused */
      active: boolean;
      /** @description when subscribed (Unix seconds) */
      created_at: number;
      /** @description when (re)started (Unix seconds) */
      started_at: number;
      thing: components['schemas']['Thing'];
    };
    /** Category */
    Category: {
      /** @example text */
      id: string;
      /** @example Text */
      name: string;
    };
    /** Language */
    Language: {
      /**
       * @description form `xx_YY`
       * @example en_GB
       */
      id: string;
      /** @example English */
      text: string;
    };
    /** Search result */
    SearchResult: {
      /** @description matches over all pages */
      total_items: number;
      /** @description things on this page */
      items: number;
      /** @description the page, from 1 */
      page: number;
      things: components['schemas']['Thing'][];
    };
    /** Activity stream */
    ActivityStream: {
      items: {
        /** @description ISO 8601 date-time with offset, e.g. `2012-01-04T10:07:12+00:00` */
        published: string;
        title: string;
        actor: {
          displayName: string;
          url: string;
          /** @enum {string} */
          objectType: 'person';
        };
        /** @description `like` a tip, `post` a thing registered, `follow` a subscription */
        verb: 'like' | 'post' | 'follow';
        object: {
          displayName: string;
          url: string;
          /** @enum {string} */
          objectType: 'bookmark';
        };
        /** @description tag URI, `tag:{host},{YYYY-MM-DD}:{username}/{verb}/{thing_id}/{item_id}`, unique per item */
        id: string;
      }[];
    };
    /** Message body */
    Message: {
      /** @example ok */
      message: string;
      description: string;
    };
    /** Creation body */
    Creation: {
      id: number;
      /** @description API address of the new thing */
      link: string;
      /** @enum {string} */
      message: 'ok';
      description: string;
    };
    /** Tip or subscription confirmation */
    Confirmation: {
      /** @enum {string} */
      message: 'ok';
      description: string;
      thing: components['schemas']['ThingConfirmation'];
    };
    /** Lookup found body */
    LookupFound: {
      /** @enum {string} */
      message: 'found';
      /** @description the thing's API address (as in Location) */
      location: string;
    };
    /** Lookup missing body */
    LookupMissing: {
      /** @enum {string} */
      message: 'not_found';
      description: string;
    };
    /** Rate-limit body */
    RateLimit: {
      hourly_limit: number;
      remaining_hits: number;
      current_hits: number;
      /** @description absolute time at which the window ends (= X-RateLimit-Reset), not a countdown (Unix seconds) */
      reset_time_in_seconds: number;
      /** @description the same instant as an HTTP-date, e.g. `Tue, 17 Jul 2012 11:00:00 GMT` */
      reset_time: string;
    };
    /** Error body */
    Error: {
      error:
        | 'invalid_request'
        | 'invalid_parameters'
        | 'validation'
        | 'unauthorized'
        | 'no_means'
        | 'rate_limit_exceeded'
        | 'invalid_scope'
        | 'insufficient_scope'
        | 'tip_once'
        | 'tip_owner'
        | 'forbidden'
        | 'thing_owner'
        | 'subscribed'
        | 'not_found'
        | 'not_acceptable'
        | 'server_error';
      error_description: string;
      /** @description the section of /docs/api that explains the error */
      error_uri: string;
    };
    /** OAuth token response */
    OAuthToken: {
      access_token: string;
      /** @enum {string} */
      token_type: 'bearer';
      /** @description granted scopes, space-separated (may be empty) */
      scope: string;
    };
    /** OAuth error (RFC 6749 §5.2) */
    OAuthError: {
      /** @example invalid_grant */
      error: string;
      error_description: string;
    };
    /** Authorization server metadata (RFC 8414) */
    OAuthMetadata: {
      issuer: string;
      authorization_endpoint: string;
      token_endpoint: string;
      revocation_endpoint: string;
      response_types_supported: string[];
      response_modes_supported: string[];
      grant_types_supported: string[];
      scopes_supported: string[];
      code_challenge_methods_supported: string[];
      token_endpoint_auth_methods_supported: string[];
      revocation_endpoint_auth_methods_supported: string[];
      service_documentation: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
