/**
 * Route schemas of the OAuth 2 machine endpoints (api-v2.md "Authentication" 4–5, RFC 6749 §4.1.3
 * and §5, RFC 7009, RFC 8414; docs/api.md "OAuth 2"; docs/adr/0013-openapi.md). Errors here are
 * RFC 6749 §5.2 `{error, error_description}`; no rate-limit headers, no JSONP, no XML.
 */
import { Type } from '@sinclair/typebox';
import { documented, formBody, noContent, PUBLIC, response, stringHeader } from '../../schemas/common.ts';
import { ref } from '../../schemas/representations.ts';

const NO_STORE = {
  'Cache-Control': stringHeader('`no-store`'),
  Pragma: stringHeader('`no-cache`'),
  Expires: stringHeader('a past date'),
};
const CLIENT_AUTH: typeof PUBLIC = [{ clientBasic: [] }, {}];
const plain = { rateLimited: false, jsonp: false, formats: ['json'] as const };
const oauthErrors = {
  400: response(
    '`invalid_request`, `invalid_grant`, `unsupported_grant_type`, `invalid_client`, …',
    ref('OAuthError'),
    { ...plain, headers: NO_STORE },
  ),
  401: response('`invalid_client` when HTTP Basic was used or no client credentials were sent', ref('OAuthError'), {
    ...plain,
    headers: { ...NO_STORE, 'WWW-Authenticate': stringHeader('`Basic realm=…`') },
  }),
  413: response('`invalid_request`: the body is over 1 MiB', ref('OAuthError'), { ...plain, headers: NO_STORE }),
  429: response(
    '`invalid_request`: too many failed client authentications from this IP (docs/api.md "OAuth 2")',
    ref('OAuthError'),
    {
      ...plain,
      headers: { ...NO_STORE, 'Retry-After': stringHeader("seconds until the limit's 15-minute window ends") },
    },
  ),
  500: response('`server_error`', ref('OAuthError'), { ...plain, headers: NO_STORE }),
};
const clientFields = {
  client_id: Type.Optional(Type.String({ description: 'client_secret_post: instead of HTTP Basic' })),
  client_secret: Type.Optional(Type.String({ description: 'client_secret_post: instead of HTTP Basic' })),
};

/** POST /oauth/token */
export const tokenEndpoint = documented({
  summary: 'Exchange an authorization code for an access token',
  description:
    '`grant_type=authorization_code` with `code`, `redirect_uri` (required when the authorization request carried one, then identical) and ' +
    '`code_verifier` (PKCE), as JSON or form fields; the client authenticates with HTTP Basic or `client_id`/`client_secret` in the body ' +
    '(api-v2.md "Authentication" 4–5, RFC 6749 §4.1.3, docs/api.md "OAuth 2").',
  tags: ['oauth'],
  security: CLIENT_AUTH,
  ...formBody(
    Type.Object({
      grant_type: Type.Literal('authorization_code'),
      code: Type.String(),
      redirect_uri: Type.Optional(Type.String()),
      code_verifier: Type.Optional(Type.String({ description: 'PKCE (RFC 7636)' })),
      ...clientFields,
    }),
  ),
  response: { 200: response('The access token', ref('OAuthToken'), { ...plain, headers: NO_STORE }), ...oauthErrors },
});

/** POST /oauth/revoke */
export const revokeEndpoint = documented({
  summary: 'Revoke an access token',
  description:
    'RFC 7009: `token` (and optional `token_type_hint`), client-authenticated as at /oauth/token. 200 with an empty body whether or not the ' +
    "token was known (only the client's own live token is revoked).",
  tags: ['oauth'],
  security: CLIENT_AUTH,
  ...formBody(Type.Object({ token: Type.String(), token_type_hint: Type.Optional(Type.String()), ...clientFields })),
  response: {
    200: noContent('Revoked (or unknown): empty body', { rateLimited: false, headers: NO_STORE }),
    ...oauthErrors,
  },
});

/** GET /.well-known/oauth-authorization-server */
export const metadataEndpoint = documented({
  summary: 'Authorization server metadata',
  description: 'RFC 8414: the issuer ({auth_url}), its endpoints and what they support.',
  tags: ['oauth'],
  security: PUBLIC,
  response: {
    200: response('Metadata', ref('OAuthMetadata'), {
      ...plain,
      headers: { 'Cache-Control': stringHeader('`public, max-age=3600`') },
    }),
  },
});
