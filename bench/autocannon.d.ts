/**
 * The part of autocannon 8's programmatic API the bench uses (autocannon ships no types and
 * @types/autocannon is not a dependency). See node_modules/autocannon/README.md.
 */
declare module 'autocannon' {
  namespace autocannon {
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }
    interface Request extends RequestParams {
      /** Called before each request; return the request to send (may be the mutated argument). */
      setupRequest?: (req: RequestParams, context: Record<string, unknown>) => RequestParams | null | undefined;
      /** Called on each response, before the next request of the same connection is set up. */
      onResponse?: (
        status: number,
        body: string,
        context: Record<string, unknown>,
        headers: Record<string, unknown>,
      ) => void;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      pipelining?: number;
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      requests?: Request[];
      skipAggregateResult?: boolean;
      title?: string;
    }
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      [key: string]: number;
    }
    interface Result {
      title?: string;
      url: string;
      connections: number;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { total: number; sent: number };
      throughput: Histogram;
      /** present on raw results (skipAggregateResult) */
      totalCompletedRequests?: number;
    }
    interface Instance extends PromiseLike<Result> {
      stop(): void;
      on(
        event: 'response',
        listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void,
      ): Instance;
      on(event: 'start' | 'done' | 'tick', listener: (...args: unknown[]) => void): Instance;
    }
    function aggregateResult(results: unknown[], opts?: Partial<Options>): Result;
  }
  /** Starts a run; the returned tracker is thenable (resolves to the aggregated result). */
  function autocannon(opts: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
