/**
 * OAuth 2 protocol errors (RFC 6749 §4.1.2.1, §4.2.2.1, §5.2; RFC 7009 §2.2.1). These are not the
 * API's DomainErrors: the OAuth endpoints answer in the RFC's own shape `{error, error_description}`
 * (token, revoke) or by redirecting to the client (authorize), so they carry the RFC's codes.
 */

/** The error codes of RFC 6749 §4.1.2.1 / §5.2 and RFC 7009 that this server emits. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error';

/**
 * An OAuth error with its HTTP status (token and revocation endpoints: 400, or 401 for
 * `invalid_client` when the client tried HTTP Basic, RFC 6749 §5.2; 413 for a body over the
 * limit; 429 `invalid_request` with `Retry-After` for too many failed client authentications).
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    /** the WWW-Authenticate challenge to send with a 401, e.g. `Basic realm="tipjar"` */
    readonly wwwAuthenticate?: string,
    /** seconds to send as `Retry-After` (with a 429) */
    readonly retryAfter?: number,
  ) {
    super(description);
    this.name = new.target.name;
  }

  /** The RFC 6749 §5.2 body: exactly `{error, error_description}`. */
  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
