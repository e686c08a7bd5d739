/**
 * Tipjar's settings: one TypeBox schema of every environment variable, parsed once at start-up.
 * Every bad setting is reported at once, each by its name (`ConfigError`).
 * The list here is the list in `tipjar --help`, the README and docs/operations.md.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { isIP } from 'node:net';

export const SettingsSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'TCP port to listen on' }),
  HOST: Type.String({ minLength: 1, default: 'localhost', description: 'interface to listen on (0.0.0.0 for all)' }),
  HEADERS_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 10,
    description:
      "a connection that has not sent a request's complete headers this long after it opened (or after its first byte on a kept-alive connection) gets 408 and is closed, in seconds (at most REQUEST_TIMEOUT_SECONDS)",
  }),
  REQUEST_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 30,
    description:
      'a request whose headers and body have not all arrived this long after it began gets 408 and its connection is closed, in seconds',
  }),
  IDLE_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 60,
    description:
      'a connection on which no byte moves in either direction this long, other than while kept alive between requests (e.g. a client that stops reading its answer), is closed, in seconds',
  }),
  KEEP_ALIVE_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 72,
    description:
      "a kept-alive connection waiting for its next request is closed after this long, in seconds; behind a load balancer keep it above the balancer's idle timeout (60 s on most)",
  }),
  DATABASE_URL: Type.String({
    minLength: 1,
    default: 'sqlite:./data/tipjar.db',
    description: 'sqlite:<path> (embedded, the default) or postgres://user@host:port/db',
  }),
  PUBLIC_URL: Type.Optional(
    Type.String({ description: 'origin of every API `resource`/`link` (default http://localhost:<PORT>)' }),
  ),
  SITE_URL: Type.Optional(Type.String({ description: 'origin of the website (default PUBLIC_URL)' })),
  AUTH_URL: Type.Optional(
    Type.String({ description: 'origin of the OAuth authorization server (default PUBLIC_URL)' }),
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'warn', description: 'request logging halves throughput, so warn by default' },
  ),
  SQLITE_SYNCHRONOUS: Type.Union([Type.Literal('NORMAL'), Type.Literal('FULL')], {
    default: 'NORMAL',
    description: 'SQLite WAL sync mode: NORMAL survives a process crash, FULL also survives power loss',
  }),
  SQLITE_CACHE_MB: Type.Integer({
    minimum: 2,
    maximum: 4096,
    default: 8,
    description:
      "SQLite page cache of the server's connection, in MiB (each search read thread keeps SQLite's default 2 MiB)",
  }),
  SQLITE_READ_THREADS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description:
      'SQLite: threads that run searches beside the event loop, each with its own read-only connection, sharing one queue; with 2 one slow search does not hold up the others; the second one costs ≈ 20–40 MB at peak',
  }),
  DATABASE_POOL_SIZE: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 10,
    description: 'PostgreSQL connections per process',
  }),
  PG_BIN: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "PostgreSQL: the folder of pg_dump, pg_restore and psql for `tipjar backup` and `tipjar restore`, of the server's major version (default: the PATH, then /usr/lib/postgresql/<server's major version>/bin)",
    }),
  ),
  REDIS_URL: Type.Optional(
    Type.String({
      description:
        'redis://host:port/db: rate-limit counters and the discovery cache, shared by every instance (default: in memory, one process)',
    }),
  ),
  RATE_LIMIT_ANONYMOUS: Type.Integer({
    minimum: 1,
    default: 1000,
    description: 'requests per hour without a token, per client IP',
  }),
  RATE_LIMIT_AUTHENTICATED: Type.Integer({
    minimum: 1,
    default: 5000,
    description: "requests per hour with a token, per token's user and client",
  }),
  RATE_LIMIT_KEY_PREFIX: Type.String({
    minLength: 1,
    default: 'tipjar:ratelimit',
    description:
      'prefix of every key in Redis: rate-limit counters and the discovery cache (one per deployment sharing a Redis)',
  }),
  RATE_LIMIT_PAGES: Type.Integer({
    minimum: 1,
    default: 1000,
    description:
      'website requests (pages and forms; not the stylesheet) per hour, per client IP; then 429 with Retry-After until the hour ends',
  }),
  RATE_LIMIT_PASSWORD_FORMS: Type.Integer({
    minimum: 1,
    default: 100,
    description:
      'log-in, sign-up and new-verification-link form submissions per hour, per client IP; then 429 with Retry-After until the hour ends',
  }),
  RATE_LIMIT_SIGNUPS: Type.Integer({
    minimum: 1,
    default: 20,
    description: 'accounts created through the sign-up form per hour, per client IP',
  }),
  LOGIN_FAILURES_PER_USER_AND_IP: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      'failed log-ins per (username, client IP) per 15 minutes; then that pair is refused, even with the right password, until the quarter hour ends (a successful log-in starts the count again)',
  }),
  LOGIN_FAILURES_PER_USER: Type.Integer({
    minimum: 1,
    default: 100,
    description:
      'failed log-ins per username per hour from all IPs together; then the username is refused from everywhere until the hour ends',
  }),
  CLIENT_AUTH_FAILURES_PER_CLIENT_AND_IP: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      'failed OAuth client authentications (/oauth/token, /oauth/revoke) per (client_id, client IP) per 15 minutes; then 429 for that pair, even with the right secret, until the quarter hour ends',
  }),
  CLIENT_AUTH_FAILURES_PER_IP: Type.Integer({
    minimum: 1,
    default: 30,
    description:
      'failed OAuth client authentications per client IP per 15 minutes, whatever the client_id; then 429 until the quarter hour ends',
  }),
  PASSWORD_HASH_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description: 'password hashes (scrypt, 64 MiB and ≈ 0.3 s each) computed at once per process',
  }),
  PASSWORD_HASH_QUEUE: Type.Integer({
    minimum: 0,
    maximum: 10000,
    default: 20,
    description:
      'password hashes allowed to wait for a free slot; past that a log-in or sign-up is answered 503 with Retry-After',
  }),
  SCHEDULER: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      'run settlement and subscription renewal inside the server after each month ends (off: run `tipjar settle` and `tipjar subscriptions renew` from cron)',
  }),
  SCHEDULER_INTERVAL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 60,
    description: 'how often the scheduler checks for a month that has ended, in seconds',
  }),
  WEBHOOKS: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      'run the webhook dispatcher inside the server (off: run `tipjar webhooks deliver` from cron, or another instance)',
  }),
  WEBHOOKS_INTERVAL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 5,
    description: 'how often the webhook dispatcher looks for due deliveries, in seconds',
  }),
  WEBHOOKS_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 60,
    default: 10,
    description: 'deadline of one webhook attempt (connect, send, answer), in seconds',
  }),
  WEBHOOKS_CLAIM_SECONDS: Type.Integer({
    minimum: 2,
    maximum: 3600,
    default: 60,
    description:
      'how long a dispatcher holds a claimed delivery; one that died is retried by another after this (must exceed WEBHOOKS_TIMEOUT_SECONDS)',
  }),
  SMTP_URL: Type.Optional(
    Type.String({
      description:
        'outgoing mail server: smtp://user:pass@host:port (STARTTLS when offered) or smtps://… (TLS); unset: messages are written as .eml files under MAIL_DIR and their links logged',
    }),
  ),
  MAIL_FROM: Type.Optional(
    Type.String({
      minLength: 3,
      description:
        'From: of every message, e.g. "Tipjar <no-reply@tipjar.example>" (default Tipjar <no-reply@host of SITE_URL>)',
    }),
  ),
  MAIL_DIR: Type.String({
    minLength: 1,
    default: './data/mail',
    description: 'without SMTP_URL: the folder the .eml files are written to',
  }),
  MAIL: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      'run the mail dispatcher inside the server (off: run `tipjar mail deliver` from cron, or another instance)',
  }),
  MAIL_INTERVAL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 5,
    description:
      'how often the mail dispatcher looks for due messages, in seconds (messages queued by this instance go at once)',
  }),
  MAIL_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 300,
    default: 20,
    description: "deadline of the SMTP server's greeting and of each command, in seconds",
  }),
  DISCOVERY: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'POST /tip of an unregistered URL fetches it and looks for a rel="payment" auto-submit link',
  }),
  DISCOVERY_ALLOW_PRIVATE: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'off',
    description: 'let discovery fetch private, loopback and link-local addresses (for tests only; never in production)',
  }),
  SEARCH_CACHE_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 3600,
    default: 10,
    description:
      "how long a search result may be served from the cache, in seconds (0: off); writes made by this process show at once, and on a shared PostgreSQL other instances' writes to things too; their tips change the tip sorts within this time",
  }),
  SEARCH_CACHE_ENTRIES: Type.Integer({
    minimum: 2,
    maximum: 1_000_000,
    default: 10_000,
    description:
      'most search results the cache keeps; four fifths are kept for searches asked more than once (segmented LRU)',
  }),
  WARMUP_SECONDS: Type.Number({
    minimum: 0,
    maximum: 60,
    default: 0.5,
    description:
      'serve: how long the server sends itself a fixed set of anonymous reads (things, popular searches with every sort) after it starts, in seconds (fractions allowed; 0: off); GET /readyz answers 503 until it ends',
  }),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 32,
      description:
        'bearer token a Prometheus scraper must send (Authorization: Bearer <token>) for GET /metrics; at least 32 characters (e.g. `openssl rand -hex 32`); unset: /metrics is not served on the public port',
    }),
  ),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description:
        'serve GET /metrics only on this port, on its own listener at METRICS_HOST (the public port then answers 404); unset: no such listener',
    }),
  ),
  METRICS_HOST: Type.String({
    minLength: 1,
    default: '127.0.0.1',
    description: 'interface of the METRICS_PORT listener (loopback by default: only this machine can scrape)',
  }),
  PAYMENT_PROVIDER: Type.Union([Type.Literal('demo'), Type.Literal('none')], {
    default: 'demo',
    description:
      'how money enters balances on the website: demo (the /funds page credits at once, and every money page says the money is simulated) or none (no funding on the website; the operator funds with `tipjar users fund`)',
  }),
  CURRENCY: Type.String({
    minLength: 3,
    maxLength: 3,
    default: 'EUR',
    description:
      'ISO 4217 code of the one currency balances and budgets are kept in (hundredths of its unit), for showing amounts on the website and in mail',
  }),
  TRUST_PROXY: Type.String({
    minLength: 1,
    default: 'false',
    description:
      'take the client IP from X-Forwarded-For: false, true (any proxy), a hop count, or proxy addresses/CIDRs, comma-separated',
  }),
});

export type Settings = Static<typeof SettingsSchema>;

/** Settings whose values are never repeated in an error message. */
const SECRETS = new Set(['METRICS_TOKEN', 'SMTP_URL']);

/** The parsed configuration the application runs with. URLs have no trailing slash. */
export interface Config {
  port: number;
  host: string;
  /** seconds a client has for a request's headers, for the whole request, for a pause in the
   * middle of an exchange, and between requests on a kept-alive connection */
  headersTimeoutSeconds: number;
  requestTimeoutSeconds: number;
  idleTimeoutSeconds: number;
  keepAliveTimeoutSeconds: number;
  databaseUrl: string;
  /** Origin of the API, e.g. `http://localhost:3000`; the API root is `${publicUrl}/rest/v2`. */
  publicUrl: string;
  siteUrl: string;
  authUrl: string;
  logLevel: string;
  sqliteSynchronous: 'NORMAL' | 'FULL';
  /** MiB of SQLite page cache per connection */
  sqliteCacheMb: number;
  /** threads running searches on SQLite */
  sqliteReadThreads: number;
  databasePoolSize: number;
  /** Redis for shared rate-limit counters; undefined counts in memory */
  /** PG_BIN: folder of pg_dump, pg_restore and psql (undefined: the PATH, then Debian's folder of the server's version) */
  pgBin: string | undefined;
  redisUrl: string | undefined;
  /** requests per hour: anonymous (per IP) and with a token (per user and client) */
  rateLimitAnonymous: number;
  rateLimitAuthenticated: number;
  rateLimitKeyPrefix: string;
  /** bearer token for GET /metrics; undefined asks for none (and keeps /metrics off the public port) */
  metricsToken: string | undefined;
  /** port and interface of the separate metrics listener; undefined: none */
  metricsPort: number | undefined;
  metricsHost: string;
  /** website requests per hour per client IP */
  rateLimitPages: number;
  /** log-in and sign-up submissions, and accounts created, per hour per client IP */
  rateLimitPasswordForms: number;
  rateLimitSignups: number;
  /** failed log-ins: per (username, IP) per 15 minutes, per username per hour */
  loginFailuresPerUserAndIp: number;
  loginFailuresPerUser: number;
  /** failed OAuth client authentications: per (client_id, IP) and per IP, per 15 minutes */
  clientAuthFailuresPerClientAndIp: number;
  clientAuthFailuresPerIp: number;
  /** scrypt hashes at once, and waiting, per process */
  passwordHashConcurrency: number;
  passwordHashQueue: number;
  /** Fastify `trustProxy`: false, true, a hop count, or proxy addresses/CIDRs */
  trustProxy: boolean | number | string[];
  /** run settlement and renewal inside `serve` (SCHEDULER=on) */
  scheduler: boolean;
  /** seconds between the scheduler's checks */
  schedulerIntervalSeconds: number;
  /** run the webhook dispatcher inside `serve` (WEBHOOKS=on) */
  webhooks: boolean;
  /** seconds between dispatcher rounds, per-attempt deadline, claim lease */
  webhooksIntervalSeconds: number;
  webhooksTimeoutSeconds: number;
  webhooksClaimSeconds: number;
  /** outgoing mail server (smtp: or smtps: URL, credentials included); undefined: .eml files in mailDir */
  smtpUrl: string | undefined;
  /** the From: header of every message */
  mailFrom: string;
  mailDir: string;
  /** run the mail dispatcher inside `serve` (MAIL=on); seconds between its rounds; SMTP deadline */
  mail: boolean;
  mailIntervalSeconds: number;
  mailTimeoutSeconds: number;
  /** discovery of rel="payment" links for POST /tip (DISCOVERY=on) */
  discovery: boolean;
  /** discovery may fetch private addresses (tests only) */
  discoveryAllowPrivate: boolean;
  /** seconds a search result may be served from the cache (0: off), and most entries kept */
  searchCacheSeconds: number;
  searchCacheEntries: number;
  /** seconds `tipjar serve` warms itself up before GET /readyz answers 200 (0: off; src/warmup.ts) */
  warmupSeconds: number;
  /** how the website's /funds page adds money: `demo` (simulated, credited at once) or `none` (off) */
  paymentProvider: 'demo' | 'none';
  /** ISO 4217 code amounts are shown in (upper case, known to Intl) */
  currency: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function checkOrigin(name: string, value: string, problems: string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${name}: "${value}" is not an absolute URL`);
    return value;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`${name}: must be an http or https URL`);
  if (url.search || url.hash) problems.push(`${name}: must not carry a query or fragment`);
  return value.replace(/\/+$/, '');
}

/**
 * Parses the environment into a `Config`.
 * @param env usually `process.env`; empty strings count as unset.
 * @throws ConfigError listing every invalid setting by name.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(SettingsSchema.properties)) {
    const v = env[key];
    if (v !== undefined && v !== '') raw[key] = v.trim();
  }
  const withDefaults = Value.Default(SettingsSchema, raw);
  const converted = Value.Convert(SettingsSchema, withDefaults) as Record<string, unknown>;
  const problems: string[] = [];
  for (const e of Value.Errors(SettingsSchema, converted)) {
    const name = e.path.replace(/^\//, '');
    if (problems.some((p) => p.startsWith(`${name}:`))) continue;
    const schema = SettingsSchema.properties[name as keyof Settings] as { anyOf?: { const: string }[] };
    const expected = schema.anyOf
      ? `one of ${schema.anyOf.map((a) => a.const).join(', ')}`
      : e.message.replace(/^Expected/, 'expected');
    problems.push(SECRETS.has(name) ? `${name}: ${expected}` : `${name}: ${expected} (got "${String(raw[name])}")`);
  }
  const s = converted as Settings;
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(s.DATABASE_URL)) {
    problems.push(`DATABASE_URL: must start with sqlite: or postgres:// (got "${s.DATABASE_URL}")`);
  }
  const publicUrl = s.PUBLIC_URL
    ? checkOrigin('PUBLIC_URL', s.PUBLIC_URL, problems)
    : `http://localhost:${Number.isInteger(s.PORT) ? s.PORT : 3000}`;
  const siteUrl = s.SITE_URL ? checkOrigin('SITE_URL', s.SITE_URL, problems) : publicUrl;
  const authUrl = s.AUTH_URL ? checkOrigin('AUTH_URL', s.AUTH_URL, problems) : publicUrl;
  if (s.REDIS_URL !== undefined && !/^rediss?:\/\/[^/]/.test(s.REDIS_URL)) {
    problems.push(`REDIS_URL: must start with redis:// or rediss:// (got "${s.REDIS_URL}")`);
  }
  const trustProxy = parseTrustProxy(s.TRUST_PROXY, problems);
  if (s.SMTP_URL !== undefined && !/^smtps?:\/\/[^/]/.test(s.SMTP_URL)) {
    problems.push('SMTP_URL: must start with smtp:// or smtps://');
  }
  if (s.MAIL_FROM !== undefined && !/@[^\s@>]+>?$/.test(s.MAIL_FROM)) {
    problems.push(`MAIL_FROM: expected an address, e.g. "Tipjar <no-reply@example.org>" (got "${s.MAIL_FROM}")`);
  }
  if (s.METRICS_PORT !== undefined && s.METRICS_PORT === s.PORT)
    problems.push(`METRICS_PORT: must differ from PORT (${s.PORT})`);
  if (s.HEADERS_TIMEOUT_SECONDS > s.REQUEST_TIMEOUT_SECONDS) {
    problems.push(`HEADERS_TIMEOUT_SECONDS: must not exceed REQUEST_TIMEOUT_SECONDS (${s.REQUEST_TIMEOUT_SECONDS})`);
  }
  if (s.WEBHOOKS_CLAIM_SECONDS <= s.WEBHOOKS_TIMEOUT_SECONDS) {
    problems.push(`WEBHOOKS_CLAIM_SECONDS: must exceed WEBHOOKS_TIMEOUT_SECONDS (${s.WEBHOOKS_TIMEOUT_SECONDS})`);
  }
  const currency = String(s.CURRENCY).toUpperCase();
  if (!problems.some((p) => p.startsWith('CURRENCY:')) && !isKnownCurrency(currency)) {
    problems.push(`CURRENCY: expected an ISO 4217 code such as EUR or USD (got "${s.CURRENCY}")`);
  }
  if (problems.length) throw new ConfigError(problems);
  return {
    port: s.PORT,
    host: s.HOST,
    headersTimeoutSeconds: s.HEADERS_TIMEOUT_SECONDS,
    requestTimeoutSeconds: s.REQUEST_TIMEOUT_SECONDS,
    idleTimeoutSeconds: s.IDLE_TIMEOUT_SECONDS,
    keepAliveTimeoutSeconds: s.KEEP_ALIVE_TIMEOUT_SECONDS,
    databaseUrl: s.DATABASE_URL,
    publicUrl,
    siteUrl,
    authUrl,
    logLevel: s.LOG_LEVEL,
    sqliteSynchronous: s.SQLITE_SYNCHRONOUS,
    sqliteCacheMb: s.SQLITE_CACHE_MB,
    sqliteReadThreads: s.SQLITE_READ_THREADS,
    databasePoolSize: s.DATABASE_POOL_SIZE,
    pgBin: s.PG_BIN,
    redisUrl: s.REDIS_URL,
    rateLimitAnonymous: s.RATE_LIMIT_ANONYMOUS,
    rateLimitAuthenticated: s.RATE_LIMIT_AUTHENTICATED,
    rateLimitKeyPrefix: s.RATE_LIMIT_KEY_PREFIX,
    rateLimitPages: s.RATE_LIMIT_PAGES,
    rateLimitPasswordForms: s.RATE_LIMIT_PASSWORD_FORMS,
    rateLimitSignups: s.RATE_LIMIT_SIGNUPS,
    loginFailuresPerUserAndIp: s.LOGIN_FAILURES_PER_USER_AND_IP,
    loginFailuresPerUser: s.LOGIN_FAILURES_PER_USER,
    clientAuthFailuresPerClientAndIp: s.CLIENT_AUTH_FAILURES_PER_CLIENT_AND_IP,
    clientAuthFailuresPerIp: s.CLIENT_AUTH_FAILURES_PER_IP,
    passwordHashConcurrency: s.PASSWORD_HASH_CONCURRENCY,
    passwordHashQueue: s.PASSWORD_HASH_QUEUE,
    trustProxy,
    metricsToken: s.METRICS_TOKEN,
    metricsPort: s.METRICS_PORT,
    metricsHost: s.METRICS_HOST,
    scheduler: s.SCHEDULER === 'on',
    schedulerIntervalSeconds: s.SCHEDULER_INTERVAL_SECONDS,
    webhooks: s.WEBHOOKS === 'on',
    webhooksIntervalSeconds: s.WEBHOOKS_INTERVAL_SECONDS,
    webhooksTimeoutSeconds: s.WEBHOOKS_TIMEOUT_SECONDS,
    webhooksClaimSeconds: s.WEBHOOKS_CLAIM_SECONDS,
    smtpUrl: s.SMTP_URL,
    mailFrom: s.MAIL_FROM ?? `Tipjar <no-reply@${safeHostname(siteUrl)}>`,
    mailDir: s.MAIL_DIR,
    mail: s.MAIL === 'on',
    mailIntervalSeconds: s.MAIL_INTERVAL_SECONDS,
    mailTimeoutSeconds: s.MAIL_TIMEOUT_SECONDS,
    discovery: s.DISCOVERY === 'on',
    discoveryAllowPrivate: s.DISCOVERY_ALLOW_PRIVATE === 'on',
    searchCacheSeconds: s.SEARCH_CACHE_SECONDS,
    searchCacheEntries: s.SEARCH_CACHE_ENTRIES,
    warmupSeconds: s.WARMUP_SECONDS,
    paymentProvider: s.PAYMENT_PROVIDER,
    currency,
  };
}

/** True for a three-letter ISO 4217 code that Intl.NumberFormat knows (e.g. `EUR`). */
function isKnownCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && Intl.supportedValuesOf('currency').includes(code);
}

/** The host name of an origin, or `localhost` when it has none. */
function safeHostname(origin: string): string {
  try {
    return new URL(origin).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

/**
 * TRUST_PROXY: `false` (default: the socket address is the client), `true` (trust every proxy),
 * a hop count (`1`: one proxy in front), or proxy addresses/CIDRs and proxy-addr's names
 * (`loopback`, `linklocal`, `uniquelocal`), comma-separated.
 */
function parseTrustProxy(value: string, problems: string[]): boolean | number | string[] {
  const v = value.toLowerCase();
  if (v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const names = new Set(['loopback', 'linklocal', 'uniquelocal']);
  const bad = entries.filter((e) => {
    if (names.has(e)) return false;
    const [addr, bits, extra] = e.split('/');
    return extra !== undefined || isIP(addr ?? '') === 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits));
  });
  if (entries.length === 0 || bad.length) {
    problems.push(`TRUST_PROXY: expected false, true, a hop count or addresses/CIDRs (got "${value}")`);
  }
  return entries;
}

/** One line per setting, for `tipjar --help` and the docs. */
export function describeSettings(): string {
  return Object.entries(SettingsSchema.properties)
    .map(([k, v]) => {
      const d = (v as { description?: string; default?: unknown }).default;
      return `  ${k.padEnd(20)} ${(v as { description?: string }).description ?? ''}${d !== undefined ? ` [default: ${String(d)}]` : ''}`;
    })
    .join('\n');
}
