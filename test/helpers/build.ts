/**
 * Vitest global setup: brings dist/ up to date with src/ once, before any test file runs, so the
 * tests that spawn bin/tipjar.js (which rebuilds a stale dist/ itself) never rebuild it at once.
 */
import { ensureBuilt } from '../../scripts/build.mjs';

export default async function setup(): Promise<void> {
  await ensureBuilt();
}
