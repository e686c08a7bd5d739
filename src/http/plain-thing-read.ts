/**
 * The plain anonymous read of one thing, `GET /rest/v2/things/<id>`, answered beside Fastify's
 * router (docs/adr/0043): the API's most frequent request (widgets and pages showing a thing's
 * counts ask it without a token) costs the least a conforming answer needs — one read, the
 * presenter, JSON, the rate-limit count — and none of the routing, hooks and
 * reply machinery that every other request goes through.
 *
 * It answers only when its answer is the one the route would give, byte for byte but the `Date`
 * header (test/integration/plain-thing-read.test.ts compares them):
 * - GET of exactly `<api prefix>/things/<id>` (api-v2.md "Endpoints / Things"; the id as parseId
 *   reads it): no query string, suffix, trailing slash or comma list;
 * - no `Authorization` header, no request body (`Content-Length` or `Transfer-Encoding`), and an
 *   `Accept` header absent or negotiated to JSON (src/formats/negotiation.ts);
 * - the thing exists (a live thing, hidden or not, as getThing reads it);
 * - the caller is within its rate limit after this request is counted (api-v2.md "Limits").
 * Anything else — a missing thing, a refusal, a database error, another format — goes to Fastify
 * untouched, which answers as it always does; the request is counted there, not here, so nothing
 * is counted twice (a request found over its limit here is counted once more by the route, which
 * changes no header: `current` is capped at the limit and `remaining` is 0 either way).
 * Requests are observed in the request metrics under the route's own pattern.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { Services } from '../domain/services.ts';
import { findThingNow } from '../domain/things.ts';
import type { ThingRecord } from '../domain/records.ts';
import { negotiate, RESOURCE_FORMATS } from '../formats/negotiation.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { RateLimitStatus } from '../ratelimit/window.ts';
import { parseId } from './params.ts';
import { presentThing, type Thing, type Urls } from './presenters.ts';

/** Answers the request and returns true, or returns false (at once or later) for Fastify to answer it. */
export type PlainThingRead = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

export interface PlainThingReadDeps {
  services: Services;
  urls: Urls;
  /** the API's path prefix, e.g. `/rest/v2` */
  apiPrefix: string;
  limiter: RateLimiter;
  /** Fastify's `trustProxy` setting: the client address is taken as Fastify's `request.ip` takes it */
  trustProxy: boolean | number | string[];
  /** the CORS headers every API response carries (`access-control-*`), as @fastify/cors sets them */
  corsHeaders: Readonly<Record<string, string>>;
  /** content type of the API's JSON answers */
  jsonType: string;
  /** counts one answered request in the request metrics: its status and duration in seconds */
  observe: (status: number, seconds: number) => void;
}

/** Most distinct `Accept` values whose negotiation is remembered. */
const ACCEPT_CACHE_SIZE = 256;

/** The function that answers plain thing reads; see the module comment. */
export function plainThingRead(deps: PlainThingReadDeps): PlainThingRead {
  const { services, urls, limiter, corsHeaders, jsonType, observe } = deps;
  const pathPrefix = `${deps.apiPrefix}/things/`;
  const clientIp = clientAddress(deps.trustProxy);
  const cors = Object.entries(corsHeaders).flat();
  const acceptsJson = new Map<string, boolean>([['*/*', true]]);
  const isJson = (accept: string | undefined): boolean => {
    if (accept === undefined) return true;
    let json = acceptsJson.get(accept);
    if (json === undefined) {
      json = negotiate(RESOURCE_FORMATS, undefined, accept)?.format === 'json';
      if (acceptsJson.size >= ACCEPT_CACHE_SIZE) acceptsJson.clear();
      acceptsJson.set(accept, json);
    }
    return json;
  };

  const answer = (res: ServerResponse, thing: Thing, status: RateLimitStatus, started: number): boolean => {
    // The presenter's Thing holds exactly the schema's fields, in its order, so JSON.stringify
    // writes what the route's compiled serializer writes (the test compares them), faster.
    const body = JSON.stringify(thing);
    // A flat list of names and values: no header object is built per answer.
    res.writeHead(200, [
      ...cors,
      'x-ratelimit-limit',
      String(status.limit),
      'x-ratelimit-remaining',
      String(status.remaining),
      'x-ratelimit-current',
      String(status.current),
      'x-ratelimit-reset',
      String(status.reset),
      'content-type',
      jsonType,
      'content-length',
      String(Buffer.byteLength(body)),
    ]);
    res.end(body);
    observe(200, (performance.now() - started) / 1000);
    return true;
  };

  const counted = (
    req: IncomingMessage,
    res: ServerResponse,
    thing: Thing,
    started: number,
  ): boolean | Promise<boolean> => {
    const status = limiter.count(undefined, clientIp(req));
    if (status instanceof Promise) return status.then((s) => !s.exceeded && answer(res, thing, s, started));
    return !status.exceeded && answer(res, thing, status, started);
  };

  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(pathPrefix)) return false;
    const id = parseId(url.slice(pathPrefix.length));
    const headers = req.headers;
    if (
      id === undefined ||
      headers.authorization !== undefined ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      !isJson(headers.accept)
    )
      return false;
    const started = performance.now();
    let found: ThingRecord | undefined | Promise<ThingRecord | undefined>;
    try {
      found = findThingNow(services, id);
    } catch {
      return false; // a failed read: the route answers with the error's answer
    }
    // A missing thing (the route's 404) or a failed read: the route answers.
    if (found instanceof Promise)
      return found.then(
        (record) => record !== undefined && counted(req, res, presentThing(urls, record), started),
        () => false,
      );
    return found !== undefined && counted(req, res, presentThing(urls, found), started);
  };
}

/** The client address of a request as Fastify's `request.ip` gives it under `trustProxy`. */
function clientAddress(trustProxy: boolean | number | string[]): (req: IncomingMessage) => string {
  if (trustProxy === false) return (req) => req.socket.remoteAddress ?? '';
  let trust: (address: string, hop: number) => boolean;
  if (trustProxy === true) trust = () => true;
  else if (typeof trustProxy === 'number') trust = (_address, hop) => hop < trustProxy;
  else trust = proxyAddr.compile(trustProxy);
  const trusted = (address: string | undefined, hop: number) => address != null && trust(address, hop);
  return (req) => {
    const chain = proxyAddr.all(req, trusted);
    return chain[chain.length - 1] ?? '';
  };
}

/**
 * Puts `read()` in front of `server`'s request listener (Fastify's, the only one): each request is
 * offered to the plain read when it is set (undefined until the app is built, or when the plain
 * read is off) and goes on to that listener when the plain read leaves it.
 * @throws Error when the server has no request listener or more than one
 */
export function offerToPlainThingRead(server: Server, read: () => PlainThingRead | undefined): void {
  const listeners = server.listeners('request') as RequestListener[];
  const handler = listeners[0];
  if (handler === undefined || listeners.length !== 1) {
    throw new Error(`the plain thing read expects one request listener, found ${listeners.length}`);
  }
  server.removeListener('request', handler);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const plain = read();
    const taken = plain ? plain(req, res) : false;
    if (taken === false) handler(req, res);
    else if (taken !== true)
      taken.then(
        (done) => done || handler(req, res),
        () => handler(req, res),
      );
  });
}
