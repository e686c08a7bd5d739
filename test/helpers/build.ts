/**
 * Vitest global setup: brings dist/ up to date with src/ once, before any test file runs, so the
 * tests that spawn bin/tipjar.js (which rebuilds a stale dist/ itself) never rebuild it at once;
 * and packages/client/dist/ up to date with packages/client/src/, since the suites import
 * `@tipjar/client` as a user of the package does (its built module).
 */
import { ensureBuilt } from '../../scripts/build.mjs';
import { ensureClientBuilt } from '../../packages/client/scripts/build.mjs';

export default async function setup(): Promise<void> {
  await ensureBuilt();
  await ensureClientBuilt();
}
