/**
 * The warm-up of a starting server (docs/operations.md "Health and readiness", docs/adr/0020): for
 * WARMUP_SECONDS after `tipjar serve` starts, the app sends itself a fixed, representative set of
 * anonymous reads through `app.inject` — the same routes, hooks, queries and serializers as a
 * client's requests, without a socket — so that V8 has compiled the request paths (and optimised
 * the hottest), the search read threads run and the search cache holds the popular searches before
 * any client is sent there. Until it ends `GET /readyz` answers
 * 503 (`app.warmedUp` is false); `GET /healthz` answers 200 throughout.
 *
 * The warm-up's requests leave no trace: they only read (GET, and a tip without a token, refused
 * with 401 before anything is written), are not counted by the API's rate limits and are not in the
 * request metrics (`request.warmup`, see `registerWarmup`). They do fill the search cache (that is
 * their purpose), so the cache's hit and miss counts on GET /metrics include them.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SEARCH_SORTS } from './domain/search/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** false while the app warms itself up (`warmUp`): GET /readyz answers 503 meanwhile */
    warmedUp: boolean;
  }
  interface FastifyRequest {
    /** true for a request `warmUp` sent: not rate limited, not in the request metrics */
    warmup: boolean;
  }
}

/** The header that marks the warm-up's requests; only the process's own secret value counts. */
const WARMUP_HEADER = 'x-tipjar-warmup';
/** Each app's secret for WARMUP_HEADER (random per app, never sent outside the process). */
const secrets = new WeakMap<FastifyInstance, Buffer>();

/**
 * Decorates `app` with `warmedUp` (true: an app that never warms up is ready at once) and each
 * request with `warmup`, set by an onRequest hook (added here, so before the API's hooks) when the
 * request carries WARMUP_HEADER with this app's secret. The header is removed from every request,
 * so a client that sends one is an ordinary client.
 */
export function registerWarmup(app: FastifyInstance): void {
  const secret = randomBytes(32);
  secrets.set(app, secret);
  app.decorate('warmedUp', true);
  app.decorateRequest('warmup', false);
  app.addHook('onRequest', (request, _reply, done) => {
    const presented = request.headers[WARMUP_HEADER];
    if (presented !== undefined) {
      const value = Buffer.from(String(presented), 'hex');
      request.warmup = value.length === secret.length && timingSafeEqual(value, secret);
      delete request.headers[WARMUP_HEADER];
    }
    done();
  });
}

/** What a warm-up did. */
export interface WarmupReport {
  /** requests sent (discovery included) */
  requests: number;
  /** responses with a 5xx status (a sign that something is wrong; the warm-up goes on) */
  serverErrors: number;
  /** the popular words searched (see `popularWords`) */
  words: string[];
  /** distinct popular searches (words × sorts), and how many of them were asked twice in time */
  popularSearches: number;
  popularFilled: number;
  /** things read by id */
  things: number;
  /** milliseconds from start to end */
  ms: number;
}

/** Things read to estimate the catalogue's words: this many, spread evenly over the ids. */
const SAMPLE_SIZE = 400;
/** Most ids in one `GET /things/:id,:id,…` (DECISIONS.md "Things"). */
const IDS_PER_REQUEST = 100;
/** Popular words searched with every sort. */
const POPULAR_WORDS = 10;
/** Requests in flight at once in each stream of the warm-up (so the search read threads work beside the main thread, as under load). */
const CONCURRENCY = 8;

/**
 * The most frequent words of the sampled things' titles and tags (lower case, at least three
 * letters, not all digits), leaving out those in more than half of them: a word in nearly every
 * thing (`npm` in a catalogue of npm packages) is the catalogue's name, not a search.
 * @param things search-result things (`title`, `tags`)
 * @param count most words returned, most frequent first
 */
export function popularWords(things: { title?: unknown; tags?: unknown }[], count: number): string[] {
  const seen = new Map<string, number>();
  for (const thing of things) {
    const text = [typeof thing.title === 'string' ? thing.title : '', ...(Array.isArray(thing.tags) ? thing.tags : [])]
      .join(' ')
      .toLowerCase();
    for (const word of new Set(text.match(/[\p{L}\p{M}\p{N}]+/gu) ?? [])) {
      if (word.length >= 3 && !/^\d+$/.test(word)) seen.set(word, (seen.get(word) ?? 0) + 1);
    }
  }
  return [...seen]
    .filter(([, n]) => n > 1 && n <= things.length / 2)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([word]) => word);
}

/**
 * Warms `app` up for `seconds` (see the file comment); `app.warmedUp` is false from the call until
 * it resolves, whatever happens. In order:
 * 1. samples the catalogue: the 100 newest things (`GET {api}/things/search?count=100`, which also
 *    gives the highest id), then SAMPLE_SIZE things with ids spread evenly up to it
 *    (`GET {api}/things/:id,:id,…`, 100 a request; a request naming a deleted id answers 404 and
 *    is left out);
 * 2. then, side by side until the time is up, three streams of requests:
 *    - each popular search asked twice — the sample's most frequent words (`popularWords`), each
 *      with every sort — so they move into the search cache's protected segment and, on SQLite,
 *      are kept rendered;
 *    - a cycle of those searches again, a search for a word of one sampled thing's title with a
 *      rotating sort (mostly computed, not cached: the long tail), `GET {api}/things/:id` and
 *      `/things/:id,:id,…` of sampled things, and `POST {api}/things/:id/tip` without a token (401);
 *    - a cycle of requests answered on the event loop alone (the newest things' search, now
 *      cached, sampled things by id, a refused tip), many more of them than the searches allow:
 *      V8 optimises the request path's code before the first clients come, not under their load.
 * Every step stops at the deadline, and the app is ready then even while requests are in flight
 * (they finish in the background); an empty database only shortens the set. Each stream runs
 * CONCURRENCY requests at a time, with a turn of the event loop after each.
 * @param app an app built by buildApp (registerWarmup ran), not necessarily listening
 * @param options.seconds how long the whole warm-up runs (WARMUP_SECONDS), from this call
 * @param options.apiPrefix the API's path prefix (`/rest/v2`)
 * @returns what was sent and answered by the time it ended; never rejects (a failing request is
 *   counted, a closed app ends it)
 */
export async function warmUp(
  app: FastifyInstance,
  options: { seconds: number; apiPrefix: string },
): Promise<WarmupReport> {
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const secret = secrets.get(app);
  if (!secret) throw new Error('warmUp: registerWarmup was not called on this app');
  const headers = { [WARMUP_HEADER]: secret.toString('hex') };
  const api = options.apiPrefix;
  app.warmedUp = false;
  const report: WarmupReport = {
    requests: 0,
    serverErrors: 0,
    words: [],
    popularSearches: 0,
    popularFilled: 0,
    things: 0,
    ms: 0,
  };
  let stopped = false;
  const send = async (url: string, method: 'GET' | 'POST' = 'GET') => {
    report.requests++;
    try {
      const res = await app.inject({ method, url, headers });
      if (res.statusCode >= 500) report.serverErrors++;
      return res;
    } catch {
      // The app is closing (SIGTERM during the warm-up): stop.
      stopped = true;
      return undefined;
    }
  };
  const timeLeft = () => !stopped && performance.now() < deadline;
  /** Runs `next()` requests CONCURRENCY at a time until it returns undefined or the time is up. */
  const pump = async (next: () => { url: string; method?: 'GET' | 'POST'; then?: () => void } | undefined) => {
    const worker = async () => {
      for (let r = next(); r && timeLeft(); r = next()) {
        if ((await send(r.url, r.method)) && r.then) r.then();
        // A turn of the event loop between requests: an answer from the statement cache resolves in
        // microtasks alone, and the warm-up must not keep clients (GET /healthz) waiting.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };

  const work = async () => {
    type Sampled = { id?: unknown; title?: unknown; tags?: unknown };
    const sampled: Sampled[] = [];
    const newest = await send(`${api}/things/search?count=100`);
    if (newest?.statusCode === 200) sampled.push(...((newest.json() as { things?: Sampled[] }).things ?? []));
    const highest = Math.max(0, ...sampled.map((t) => (Number.isInteger(t.id) ? (t.id as number) : 0)));
    const spread = [
      ...new Set(Array.from({ length: SAMPLE_SIZE }, (_, k) => Math.ceil((highest * (k + 0.5)) / SAMPLE_SIZE))),
    ].filter((id) => id > 0);
    for (let from = 0; from < spread.length && timeLeft(); from += IDS_PER_REQUEST) {
      const res = await send(`${api}/things/${spread.slice(from, from + IDS_PER_REQUEST).join(',')}`);
      const body = res?.statusCode === 200 ? (res.json() as Sampled[] | Sampled) : [];
      sampled.push(...(Array.isArray(body) ? body : [body])); // one id: one thing, not a list
    }
    // Each thing once (the newest may be in the spread too).
    const things = [...new Map(sampled.filter((t) => Number.isInteger(t.id)).map((t) => [t.id as number, t])).values()];
    const ids = things.map((t) => t.id as number);
    const titleWords = [
      ...new Set(
        things.flatMap((t) =>
          typeof t.title === 'string' ? (t.title.toLowerCase().match(/[\p{L}\p{M}\p{N}]{3,}/gu) ?? []) : [],
        ),
      ),
    ];
    report.words = popularWords(things, POPULAR_WORDS);
    report.things = ids.length;

    const search = (query: string, extra = '') => `${api}/things/search?query=${encodeURIComponent(query)}${extra}`;
    const popular = report.words.flatMap((word) =>
      SEARCH_SORTS.map((sort) => search(word, sort === 'relevance' ? '' : `&sort=${sort}`)),
    );
    report.popularSearches = popular.length;
    // The second round starts once the first is sent; a search is filled when its second answer is in.
    let i = 0;
    const popularAsked = pump(() => {
      if (i >= popular.length * 2) return undefined;
      const url = popular[i++ % popular.length]!;
      return { url, then: i > popular.length ? () => report.popularFilled++ : undefined };
    });

    const pick = <T>(xs: T[], k: number) => xs[k % xs.length]!;
    type Next = { url: string; method?: 'GET' | 'POST' };
    /** Requests answered on the event loop alone: a sampled thing, five of them, a refused tip. */
    const onTheEventLoop = (k: number): Next => {
      const at = ids.length ? k % ids.length : 0;
      switch (k % 3) {
        case 0:
          return { url: `${api}/things/${ids.length ? ids[at] : 1}` };
        case 1:
          return { url: `${api}/things/${ids.length ? ids.slice(at, at + 5).join(',') : 1}` };
        default:
          return { url: `${api}/things/${ids.length ? ids[at] : 1}/tip`, method: 'POST' };
      }
    };
    let n = 0;
    const mixed = (): Next => {
      const k = n++;
      switch (k % 4) {
        case 0:
          return { url: popular.length ? pick(popular, k) : search('warmup') };
        case 1:
          return {
            url: titleWords.length
              ? search(pick(titleWords, k), `&sort=${pick([...SEARCH_SORTS], k)}`)
              : search('warmup', '&sort=trend'),
          };
        default:
          return onTheEventLoop(k);
      }
    };
    let q = 0;
    const newestSearch = `${api}/things/search?count=100`;
    const quick = (): Next => {
      const k = q++;
      return k % 4 === 0 ? { url: newestSearch } : onTheEventLoop(k);
    };
    await Promise.all([popularAsked, pump(mixed), pump(quick)]);
  };

  // Ready at the deadline at the latest: requests still in flight then (a slow first search of a
  // cold database) finish in the background, filling the caches all the same.
  // (A timer may fire a little before performance.now() reaches its time: wait again until it has.)
  let timer: NodeJS.Timeout | undefined;
  const deadlineReached = (async () => {
    for (let left = deadline - performance.now(); left > 0; left = deadline - performance.now())
      await new Promise((resolve) => (timer = setTimeout(resolve, Math.ceil(left))));
  })();
  try {
    await Promise.race([work().catch(() => undefined), deadlineReached]);
  } finally {
    clearTimeout(timer);
    report.ms = Math.round(performance.now() - started);
    app.warmedUp = true;
  }
  return { ...report, words: [...report.words] };
}
