/**
 * The build (scripts/build.mjs, docs/adr/0021) as `tipjar` uses it: bin/tipjar.js runs dist/, built
 * from src/ when it is missing or older than src/ (by the hash of the sources), refuses with a
 * message naming `npm run build` when that build fails, and `tipjar --help` loads no server module.
 * Each test works on a copy of the project in a temporary folder (node_modules linked), so the real
 * dist/ is never touched.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { build, builtHash, sourceHash } from '../../scripts/build.mjs';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** A copy of the project without dist/: what a clone holds before `npm install` builds it. */
function copyProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'tipjar-build-'));
  for (const path of ['bin', 'scripts', 'src', 'docs/api.md', 'package.json', 'tsconfig.json'])
    cpSync(join(ROOT, path), join(root, path), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

describe('tipjar runs the compiled code of src/', () => {
  let root: string;
  beforeEach(() => {
    root = copyProject();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** Runs `node [nodeArgs…] <root>/bin/tipjar.js args…` in `root`; resolves with its output and exit code. */
  async function tipjar(
    args: string[],
    opts: { env?: Record<string, string>; nodeArgs?: string[] } = {},
  ): Promise<{ stdout: string; stderr: string; code: number }> {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [...(opts.nodeArgs ?? []), join(root, 'bin', 'tipjar.js'), ...args],
        { cwd: root, env: { ...(process.env as Record<string, string>), ...opts.env }, timeout: 60_000 },
      );
      return { stdout, stderr, code: 0 };
    } catch (err) {
      const e = err as { stdout: string; stderr: string; code: number };
      return { stdout: e.stdout, stderr: e.stderr, code: e.code };
    }
  }

  const REBUILT = /^tipjar: dist\/ was missing or older than src\/; rebuilt it \(\d+ ms\)$/m;

  it('builds dist/ on the first command when there is none, then runs it as it is', async () => {
    const first = await tipjar(['--help']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(REBUILT);
    expect(first.stdout).toContain('Usage: tipjar [options] [command]');
    expect(builtHash(root)).toBe(sourceHash(root));
    // JavaScript, its relative imports ending in .js
    expect(readFileSync(join(root, 'dist', 'cli', 'main.js'), 'utf8')).toContain('from "../config/index.js";');

    const second = await tipjar(['--help']);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('');
    expect(second.stdout).toBe(first.stdout);
  });

  it('rebuilds when a source file changed, and runs the changed code', async () => {
    await build(root);
    const before = builtHash(root);
    const main = join(root, 'src', 'cli', 'main.ts');
    const text = readFileSync(main, 'utf8');
    const description = 'Tipjar: micro-tipping REST API v2 server and operator commands';
    expect(text).toContain(description);
    writeFileSync(main, text.replace(description, 'Tipjar, as changed after the build'));

    const changed = await tipjar(['--help']);
    expect(changed.code).toBe(0);
    expect(changed.stderr).toMatch(REBUILT);
    expect(changed.stdout).toContain('Tipjar, as changed after the build');
    expect(changed.stdout).not.toContain(description);
    expect(builtHash(root)).not.toBe(before);
    expect(builtHash(root)).toBe(sourceHash(root));

    const again = await tipjar(['--help']);
    expect(again.stderr).toBe('');
    expect(again.stdout).toContain('Tipjar, as changed after the build');
  });

  it('refuses to run older code when the rebuild fails, naming the command to run', async () => {
    await build(root);
    const before = builtHash(root);
    writeFileSync(join(root, 'src', 'domain', 'clock.ts'), 'export const broken = ;\n');

    const refused = await tipjar(['--help']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('tipjar: dist/ is missing or older than src/, and rebuilding it failed');
    expect(refused.stderr).toContain('Run `npm run build` in the project folder');
    // The previous build stays in place, untouched.
    expect(builtHash(root)).toBe(before);
  });

  it('`tipjar --help` loads no server module: neither Fastify, Kysely, a database driver nor Redis', async () => {
    await build(root);
    const loaded = join(root, 'loaded.txt');
    const hooks = join(root, 'record-hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(loaded)}, resolved.url + '\\n');
  return resolved;
}\n`,
    );
    writeFileSync(
      join(root, 'record.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`,
    );
    const help = await tipjar(['--help'], { nodeArgs: ['--import', join(root, 'record.mjs')] });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: tipjar [options] [command]');
    const urls = readFileSync(loaded, 'utf8').trim().split('\n');
    expect(urls).toContain(`file://${join(root, 'dist', 'cli', 'main.js')}`);
    const packages = new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter(Boolean));
    for (const heavy of ['fastify', 'kysely', 'pg', 'better-sqlite3', 'ioredis']) expect(packages).not.toContain(heavy);
    expect(
      urls.filter((u) => u.includes('/dist/db/') || u.endsWith('/dist/main.js') || u.endsWith('/dist/app.js')),
    ).toEqual([]);
  });

  it.each(ENGINES)('a fresh build migrates a new database on %s', async (engine) => {
    await build(root);
    const database = await createDatabaseUrl(engine);
    try {
      const migrated = await tipjar(['migrate'], { env: { DATABASE_URL: database.url, LOG_LEVEL: 'warn' } });
      expect(migrated.stderr).toBe('');
      expect(migrated.code).toBe(0);
      expect(migrated.stdout).toMatch(/^applied: 0001_/);
      const again = await tipjar(['migrate'], { env: { DATABASE_URL: database.url, LOG_LEVEL: 'warn' } });
      expect(again.stdout.trim()).toBe('database is up to date');
    } finally {
      await database.remove();
    }
  });
});
