/**
 * The one error shape (api-v2.md "Errors", DECISIONS.md "Wire format"):
 * `{error, error_description, error_uri}` with the status of this table, 5xx included.
 * Unknown routes → 404 `not_found`; unexpected failures → 500 `server_error` without internals
 * (the request's transaction has already rolled back).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DomainError,
  InsufficientScopeError,
  InvalidTokenError,
  type DocsSection,
  type ErrorCode,
} from '../../domain/errors.ts';

export const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_parameters: 400,
  validation: 400,
  unauthorized: 401,
  no_means: 401,
  rate_limit_exceeded: 403,
  invalid_scope: 403,
  insufficient_scope: 403,
  tip_once: 403,
  tip_owner: 403,
  forbidden: 403,
  thing_owner: 403,
  subscribed: 403,
  not_found: 404,
  not_acceptable: 406,
  server_error: 500,
};

export interface ErrorBody {
  error: ErrorCode;
  error_description: string;
  error_uri: string;
}

/**
 * The heading id on /docs/api (docs/api.md rendered with GitHub-style ids, src/web/api-docs.ts)
 * of each docs section: the `##`/`###` heading that explains the errors of that resource.
 */
export const DOCS_ANCHORS: Record<DocsSection, string> = {
  api: 'errors',
  things: 'things',
  search: 'search',
  tips: 'tips',
  users: 'users',
  subscriptions: 'subscriptions',
  activities: 'activities',
  authentication: 'authentication',
  limits: 'rate-limits',
  verification: 'verification-and-claiming',
};

/** `error_uri`: `{publicUrl}/docs/api#<heading id>`, the section of the docs page that explains the error. */
export function errorUri(publicUrl: string, section: DocsSection): string {
  return `${publicUrl}/docs/api#${DOCS_ANCHORS[section]}`;
}

/**
 * The `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9110 §11.6.1) sent with every 401 and with
 * 403 `insufficient_scope`: `Bearer realm="tipjar"`, plus `error="invalid_token"` for an unknown,
 * revoked or malformed token, or `error="insufficient_scope", scope="<needed>"`. A 401 whose token
 * is valid (`no_means`, refused verification) or absent carries no error code (RFC 6750 §3.1).
 */
export function bearerChallenge(err: DomainError): string {
  if (err instanceof InsufficientScopeError)
    return `Bearer realm="tipjar", error="insufficient_scope", scope="${err.scope}"`;
  if (err instanceof InvalidTokenError) return `Bearer realm="tipjar", error="${err.bearerError}"`;
  return 'Bearer realm="tipjar"';
}

/**
 * Sends `err` in the error shape with its status, and `WWW-Authenticate` on every 401 (see
 * bearerChallenge) unless the caller set a challenge of its own (e.g. `/metrics`' realm).
 */
export function sendDomainError(
  reply: FastifyReply,
  publicUrl: string,
  err: DomainError,
  status = STATUS[err.code],
): FastifyReply {
  if ((status === 401 || err instanceof InsufficientScopeError) && !reply.hasHeader('www-authenticate'))
    reply.header('www-authenticate', bearerChallenge(err));
  const body: ErrorBody = {
    error: err.code,
    error_description: err.message,
    error_uri: errorUri(publicUrl, err.section),
  };
  return reply.code(status).type('application/json;charset=utf-8').send(body);
}

/** Maps Fastify's own errors (body parsing, limits, schema validation) to the spec's codes. */
function fromFastifyError(err: FastifyError): DomainError | undefined {
  if (err.validation) return new DomainError('invalid_parameters', err.message);
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DomainError(
        'invalid_request',
        'Unsupported Content-Type: send application/json or application/x-www-form-urlencoded',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('invalid_request', 'The request body is too large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new DomainError('invalid_request', 'The request body could not be parsed');
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new DomainError('invalid_request', 'The request body could not be parsed');
  }
  return undefined;
}

/**
 * Installs the root error handler (for routes outside the API, OAuth and website contexts, and
 * unknown paths) and the root not-found handler.
 * @param htmlPage the website's error page (status, message): given the chance first for a 4xx,
 *   it returns undefined to leave the request to the JSON error shape (API paths, clients that do
 *   not ask for HTML).
 */
export function registerErrorHandling(
  app: FastifyInstance,
  publicUrl: string,
  htmlPage?: (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    message: string,
  ) => FastifyReply | undefined,
): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof DomainError)
      return htmlPage?.(request, reply, STATUS[err.code], err.message) ?? sendDomainError(reply, publicUrl, err);
    const mapped = fromFastifyError(err);
    if (mapped) {
      const status = err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 413 : STATUS[mapped.code];
      return htmlPage?.(request, reply, status, mapped.message) ?? sendDomainError(reply, publicUrl, mapped, status);
    }
    request.log.error({ err }, 'unexpected failure');
    return reply
      .code(500)
      .type('application/json;charset=utf-8')
      .send({
        error: 'server_error',
        error_description: 'Something went wrong on our side; the request changed nothing. Please try again.',
        error_uri: errorUri(publicUrl, 'api'),
      } satisfies ErrorBody);
  });
  app.setNotFoundHandler(
    (request, reply) =>
      htmlPage?.(request, reply, 404, 'There is no page at this address.') ??
      sendDomainError(reply, publicUrl, new DomainError('not_found', 'The resource was not found')),
  );
}
