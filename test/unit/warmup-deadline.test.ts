/**
 * The warm-up's deadline (src/warmup.ts): a server is ready once WARMUP_SECONDS have passed even
 * when a warm-up request is still being answered (a slow first search on a cold database); that
 * request still completes afterwards.
 */
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerWarmup, warmUp } from '../../src/warmup.ts';

describe('warm-up deadline', () => {
  const app = Fastify();
  afterEach(async () => app.close());

  it('ends at its deadline while a request is still in flight, which then completes', async () => {
    let answered = 0;
    registerWarmup(app);
    // The warm-up's first request (the newest things) takes 1.5 s: far past a 0.2 s warm-up.
    app.get('/rest/v2/things/search', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      answered++;
      return { things: [] };
    });
    await app.ready();

    const started = performance.now();
    const report = await warmUp(app, { seconds: 0.2, apiPrefix: '/rest/v2' });
    const took = performance.now() - started;
    expect(app.warmedUp).toBe(true);
    expect(took).toBeGreaterThanOrEqual(199);
    expect(took).toBeLessThan(1200);
    expect(report.ms).toBeLessThan(1200);
    expect(answered).toBe(0);

    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(answered).toBe(1);
  });
});
