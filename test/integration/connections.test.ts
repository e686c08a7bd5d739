/**
 * Connection deadlines (src/http/server-options.ts, docs/operations.md "Connections"): the real
 * server listening on 127.0.0.1 cuts off clients that send headers a byte at a time, trickle a
 * body, say nothing, or hold a kept-alive connection, after the configured seconds, while a
 * normal request still works. No database is involved beyond the app's start-up, so one engine.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.ts';

/** What a raw TCP client saw: the bytes the server sent, and when (ms after connecting) and by whom the connection ended. */
interface Exchange {
  data: string;
  closedAfterMs: number;
  closedBy: 'server' | 'client';
}

/**
 * Opens a raw connection, lets `talk` write to it, and waits until the server closes it or
 * `giveUpMs` passes (then the client closes it).
 */
function exchange(port: number, talk: (socket: net.Socket) => void, giveUpMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = Date.now();
    let data = '';
    let closedBy: 'server' | 'client' = 'server';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', () => {});
    const giveUp = setTimeout(() => {
      closedBy = 'client';
      socket.destroy();
    }, giveUpMs);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ data, closedAfterMs: Date.now() - started, closedBy });
    });
    socket.on('connect', () => talk(socket));
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes (or the text runs out). */
function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

/** The 408 answer in the error shape, exactly. */
function expect408(data: string): void {
  const [head, body] = data.split('\r\n\r\n');
  expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
  expect(head).toContain('\r\nContent-Type: application/json;charset=utf-8');
  expect(head).toContain('\r\nConnection: close');
  expect(JSON.parse(body!)).toEqual({
    error: 'invalid_request',
    error_description: 'The request did not arrive in time',
    error_uri: `${PUBLIC_URL}/docs/api#errors`,
  });
}

async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as AddressInfo).port;
}

// Deadlines are enforced to within a second (the server checks every second); slack on a busy machine.
const SLACK_MS = 2500;

describe('headers and request deadlines on a real server', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await buildTestApp('sqlite', {
      env: {
        HEADERS_TIMEOUT_SECONDS: '1',
        REQUEST_TIMEOUT_SECONDS: '3',
        IDLE_TIMEOUT_SECONDS: '20',
        KEEP_ALIVE_TIMEOUT_SECONDS: '20',
      },
    });
    port = await listen(t);
  });
  afterAll(async () => t.close());

  it('cuts off headers sent a byte at a time and never finished, after HEADERS_TIMEOUT_SECONDS, with 408', async () => {
    const headers = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(500)}`;
    const seen = await exchange(port, (s) => trickle(s, headers, 50), 10_000);
    expect(seen.closedBy).toBe('server');
    expect(seen.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(seen.closedAfterMs).toBeLessThan(1000 + SLACK_MS);
    expect408(seen.data);
  });

  it('cuts off a body trickled slowly, after REQUEST_TIMEOUT_SECONDS, with 408', async () => {
    const body = 'grant_type=password&username=someone&password=secret'.padEnd(400, '&');
    const seen = await exchange(
      port,
      (s) => {
        s.write(
          `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        trickle(s, body, 50);
      },
      12_000,
    );
    expect(seen.closedBy).toBe('server');
    expect(seen.closedAfterMs).toBeGreaterThanOrEqual(2900);
    expect(seen.closedAfterMs).toBeLessThan(3000 + SLACK_MS);
    expect408(seen.data);
  });

  it('answers a normal request, and a kept-alive connection may idle longer than the headers deadline before its next request', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    const form = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=nothing',
    });
    expect(form.status).toBe(400); // credentials in the body: RFC 6749 §5.2 invalid_client without Basic
    expect(((await form.json()) as { error: string }).error).toBe('invalid_client');

    const request = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const seen = await exchange(
      port,
      (s) => {
        s.write(request);
        setTimeout(() => s.write(request), 1800);
        setTimeout(() => s.end(), 2600);
      },
      8000,
    );
    expect(seen.data.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  });

  it('answers bytes that are not HTTP with 400 in the error shape', async () => {
    const seen = await exchange(port, (s) => s.write('HELLO\r\n\r\n'), 5000);
    expect(seen.closedBy).toBe('server');
    const [head, body] = seen.data.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(body!)).toEqual({
      error: 'invalid_request',
      error_description: 'The request is not valid HTTP',
      error_uri: `${PUBLIC_URL}/docs/api#errors`,
    });
  });

  it('answers headers over 16 KiB with 431 in the error shape', async () => {
    const seen = await exchange(
      port,
      (s) => s.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`),
      5000,
    );
    expect(seen.closedBy).toBe('server');
    const [head, body] = seen.data.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(body!)).toEqual({
      error: 'invalid_request',
      error_description: 'The request headers are too large',
      error_uri: `${PUBLIC_URL}/docs/api#errors`,
    });
  });
});

describe('idle and keep-alive deadlines on a real server', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await buildTestApp('sqlite', {
      env: {
        HEADERS_TIMEOUT_SECONDS: '5',
        REQUEST_TIMEOUT_SECONDS: '5',
        IDLE_TIMEOUT_SECONDS: '1',
        KEEP_ALIVE_TIMEOUT_SECONDS: '1',
      },
    });
    port = await listen(t);
  });
  afterAll(async () => t.close());

  it('closes a connection that sends nothing after IDLE_TIMEOUT_SECONDS', async () => {
    const seen = await exchange(port, () => {}, 10_000);
    expect(seen.closedBy).toBe('server');
    expect(seen.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(seen.closedAfterMs).toBeLessThan(1000 + SLACK_MS);
    expect(seen.data).toBe('');
  });

  it('closes a kept-alive connection KEEP_ALIVE_TIMEOUT_SECONDS after its answer, and says so', async () => {
    const seen = await exchange(port, (s) => s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'), 10_000);
    expect(seen.closedBy).toBe('server');
    expect(seen.data.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(seen.data).toMatch(/\r\nkeep-alive: timeout=1\r\n/i);
    expect(seen.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(seen.closedAfterMs).toBeLessThan(1000 + SLACK_MS);
  });
});
