/**
 * Typed domain errors. Each carries the spec's error code (api-v2.md "Errors" and DECISIONS.md
 * "Wire format"); http/plugins/errors.ts maps codes to HTTP statuses and the
 * `{error, error_description, error_uri}` body in one table.
 */
export type ErrorCode =
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

/**
 * Docs section an error's `error_uri` points at: a section of docs/api.md; DOCS_ANCHORS in
 * http/plugins/errors.ts gives its heading id on /docs/api (`api` is the Errors section).
 */
export type DocsSection =
  | 'api'
  | 'things'
  | 'search'
  | 'tips'
  | 'users'
  | 'subscriptions'
  | 'activities'
  | 'authentication'
  | 'limits'
  | 'verification';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly section: DocsSection = 'api',
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidRequestError extends DomainError {
  constructor(message: string, section: DocsSection = 'api') {
    super('invalid_request', message, section);
  }
}
export class InvalidParametersError extends DomainError {
  constructor(message: string, section: DocsSection = 'api') {
    super('invalid_parameters', message, section);
  }
}
export class ValidationError extends DomainError {
  constructor(message: string, section: DocsSection = 'things') {
    super('validation', message, section);
  }
}
export class UnauthorizedError extends DomainError {
  constructor(message = 'You are unauthorized to access the resource', section: DocsSection = 'authentication') {
    super('unauthorized', message, section);
  }
}
/**
 * A bearer token that is unknown, revoked or malformed (401 `unauthorized`): RFC 6750 §3.1
 * `invalid_token`, which the `WWW-Authenticate` challenge names.
 */
export class InvalidTokenError extends UnauthorizedError {
  /** the RFC 6750 §3.1 error code of the challenge */
  readonly bearerError = 'invalid_token';
}
export class InsufficientScopeError extends DomainError {
  constructor(readonly scope: string) {
    super('insufficient_scope', `The access token lacks the "${scope}" scope`, 'authentication');
  }
}
export class InvalidScopeError extends DomainError {
  constructor(scope: string) {
    super('invalid_scope', `Unknown scope "${scope}"`, 'authentication');
  }
}
export class NotFoundError extends DomainError {
  constructor(message = 'The resource was not found', section: DocsSection = 'api') {
    super('not_found', message, section);
  }
}
export class ForbiddenError extends DomainError {
  constructor(message: string, section: DocsSection = 'things') {
    super('forbidden', message, section);
  }
}
export class TipOnceError extends DomainError {
  constructor() {
    super('tip_once', 'You may not tip this thing more than once this period', 'tips');
  }
}
export class TipOwnerError extends DomainError {
  constructor() {
    super('tip_owner', 'You may not tip your own thing', 'tips');
  }
}
export class NoMeansError extends DomainError {
  constructor() {
    super('no_means', "You don't have any money to tip with", 'tips');
  }
}
export class ThingOwnerError extends DomainError {
  constructor() {
    super('thing_owner', 'You are not allowed to subscribe to your own thing', 'subscriptions');
  }
}
export class SubscribedError extends DomainError {
  constructor() {
    super('subscribed', 'User already subscribed to thing', 'subscriptions');
  }
}
/** A period that has not ended yet cannot be settled. */
export class PeriodNotEndedError extends DomainError {
  constructor(period: string) {
    super(
      'invalid_parameters',
      `Period ${period} has not ended yet; it can be settled from the first second of the next month (UTC)`,
    );
  }
}
