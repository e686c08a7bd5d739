#!/usr/bin/env node
// The `tipjar` command: runs the JavaScript compiled from src/ into dist/ (scripts/build.mjs, run by
// `npm install`), after rebuilding it when src/ changed since it was built.
import { BuildError, ensureBuilt } from '../scripts/build.mjs';

try {
  const built = await ensureBuilt();
  if (built.rebuilt)
    process.stderr.write(`tipjar: dist/ was missing or older than src/; rebuilt it (${built.ms} ms)\n`);
} catch (err) {
  process.stderr.write(`tipjar: ${err instanceof BuildError ? err.message : String(err)}\n`);
  process.exit(1);
}
await import('../dist/tipjar.js');
