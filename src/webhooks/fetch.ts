/**
 * Outgoing HTTP through the URL guard (src/webhooks/guard.ts), for webhook deliveries and
 * discovery: one overall deadline (connect, headers and body together), a cap on the body read,
 * and redirects followed only when asked, each hop checked by the guard again.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pinnedLookup, resolveTarget, UnsafeUrlError, type PrivateAllowance, type Resolver } from './guard.ts';

export interface GuardedRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** overall deadline in milliseconds, from the first connection to the last body byte */
  timeoutMs: number;
  /** bytes of body to read at most; more is `tooLarge` (the rest is not read) */
  maxBytes: number;
  /** redirects to follow (GET only); 0 returns the 3xx response itself */
  maxRedirects?: number;
  /** let private, loopback and link-local addresses through (operator's explicit allowance) */
  allowPrivate?: PrivateAllowance;
  resolver?: Resolver;
}

export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** the body was longer than `maxBytes` (only the first `maxBytes` are in `body`) */
  tooLarge: boolean;
  /** the URL that answered, after redirects */
  finalUrl: string;
}

/** Why a guarded request did not get a response. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly kind: 'refused' | 'timeout' | 'network' | 'redirects',
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

/**
 * Sends one request through the guard, following up to `maxRedirects` redirects (GET only).
 * @throws FetchError: 'refused' (the guard), 'timeout', 'network', 'redirects' (too many).
 */
export async function guardedRequest(req: GuardedRequest): Promise<GuardedResponse> {
  const deadline = Date.now() + req.timeoutMs;
  let url = req.url;
  for (let hop = 0; ; hop++) {
    const res = await requestOnce({ ...req, url }, deadline);
    const location = res.headers.location;
    if (req.method === 'GET' && res.status >= 300 && res.status < 400 && location && (req.maxRedirects ?? 0) > 0) {
      if (hop >= (req.maxRedirects ?? 0)) throw new FetchError(`more than ${req.maxRedirects} redirects`, 'redirects');
      url = new URL(location, url).href;
      continue;
    }
    return res;
  }
}

async function requestOnce(req: GuardedRequest, deadline: number): Promise<GuardedResponse> {
  let target;
  try {
    target = await resolveTarget(req.url, { allowPrivate: req.allowPrivate, resolver: req.resolver });
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw new FetchError(err.message, 'refused');
    throw err;
  }
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new FetchError('timed out', 'timeout');
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<GuardedResponse>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const request = client.request(
      target.url,
      {
        method: req.method,
        headers: {
          ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}),
          ...req.headers,
        },
        lookup: pinnedLookup(target),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (tooLarge: boolean) =>
          finish(() => {
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
              tooLarge,
              finalUrl: target.url.href,
            });
          });
        response.on('data', (chunk: Buffer) => {
          if (settled) return;
          const room = req.maxBytes - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            size = req.maxBytes;
            done(true);
            request.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () => done(false));
        response.on('error', (err) => finish(() => reject(new FetchError(err.message, 'network'))));
      },
    );
    const timer = setTimeout(() => {
      finish(() => reject(new FetchError(`timed out after ${req.timeoutMs} ms`, 'timeout')));
      request.destroy();
    }, deadline - Date.now());
    request.on('error', (err) => finish(() => reject(new FetchError(err.message, 'network'))));
    request.end(req.body);
  });
}
