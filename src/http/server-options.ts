/**
 * The HTTP listener's defences against clients that hold a connection without finishing a request
 * (slow-loris headers, a trickled body, a client that stops reading): Fastify and Node server
 * options built from the settings HEADERS_TIMEOUT_SECONDS, REQUEST_TIMEOUT_SECONDS,
 * IDLE_TIMEOUT_SECONDS and KEEP_ALIVE_TIMEOUT_SECONDS (docs/operations.md "Connections").
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config/index.ts';
import { errorUri, type ErrorBody } from './plugins/errors.ts';

/**
 * How often Node looks for requests past their headers or request deadline, in milliseconds.
 * Node's own default (30 s) would let a connection outlive its deadline by up to 30 s.
 */
const DEADLINE_CHECK_INTERVAL_MS = 1000;

/** The timeout settings, in seconds. */
export type TimeoutSettings = Pick<
  Config,
  'headersTimeoutSeconds' | 'requestTimeoutSeconds' | 'idleTimeoutSeconds' | 'keepAliveTimeoutSeconds'
>;

/**
 * Options for `Fastify({...})` that bound how long a client may hold a connection:
 * - headers: the whole header block within `headersTimeoutSeconds` of the connection opening (of
 *   the first byte of the next request on a kept-alive connection), else 408 and close;
 * - request: headers and body within `requestTimeoutSeconds`, else 408 and close;
 * - idle: no byte in either direction for `idleTimeoutSeconds` while a request is under way: the
 *   socket is closed (no answer can be delivered to a client that does not read);
 * - keep-alive: a connection waiting for its next request is closed after
 *   `keepAliveTimeoutSeconds` (and says so in `Keep-Alive: timeout=N`).
 * Deadlines are enforced to within a second. Connections that fail at the HTTP level are answered
 * in the error shape (`clientErrorHandler`).
 * @param publicUrl origin for the error's `error_uri`.
 */
export function serverOptions(
  settings: TimeoutSettings,
  publicUrl: string,
): Pick<FastifyServerOptions, 'connectionTimeout' | 'keepAliveTimeout' | 'requestTimeout' | 'clientErrorHandler'> & {
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    connectionTimeout: settings.idleTimeoutSeconds * 1000,
    keepAliveTimeout: settings.keepAliveTimeoutSeconds * 1000,
    requestTimeout: settings.requestTimeoutSeconds * 1000,
    http: {
      headersTimeout: settings.headersTimeoutSeconds * 1000,
      connectionsCheckingInterval: DEADLINE_CHECK_INTERVAL_MS,
    },
    clientErrorHandler: clientErrorResponder(publicUrl),
  };
}

/**
 * Answers a connection whose request cannot reach a route (Node's `clientError`), in the error
 * shape `{error: "invalid_request", error_description, error_uri}`, then closes it:
 * 408 when the headers or the request did not arrive in time, 431 when the headers are too large,
 * 400 when the bytes are not HTTP. Nothing is written when an answer has already begun on the
 * connection, or the peer is gone.
 */
export function clientErrorResponder(publicUrl: string): (err: Error & { code?: string }, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, description] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request did not arrive in time']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'The request headers are too large']
          : [400, 'The request is not valid HTTP'];
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const body: ErrorBody = {
        error: 'invalid_request',
        error_description: description,
        error_uri: errorUri(publicUrl, 'api'),
      };
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json;charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy(err);
  };
}
