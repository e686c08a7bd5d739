#!/usr/bin/env node
// The `tipjar` command. Runs the TypeScript sources through tsx's loader, so no build step is needed.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli/main.ts');
