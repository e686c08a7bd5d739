/**
 * The build (scripts/build.mjs, docs/adr/0021) as `tipjar` uses it: bin/tipjar.js runs dist/, built
 * from src/ when it is missing or older than src/ (by the hash of the sources), refuses with a
 * message naming `npm run build` when that build fails, and `tipjar --help` loads no server module.
 * dist/ is one flat folder of bundles (the entry dist/tipjar.js and the chunks it imports, packages
 * bundled in) plus the files the code reads at run time, at their paths under src/; the server runs
 * from it with its pages, CSS, API docs, Swagger UI and SQLite threads.
 * Each test works on a copy of the project in a temporary folder (node_modules linked), so the real
 * dist/ is never touched.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
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
    // One flat folder of JavaScript: no module tree, no import of a .ts module left.
    const dist = join(root, 'dist');
    const scripts = readdirSync(dist, { recursive: true })
      .map(String)
      .filter((f) => /\.m?js$/.test(f));
    expect(scripts).toContain('tipjar.js');
    // In folders: the worker scripts, and the browser script served to other sites (an asset).
    expect(scripts.filter((f) => f.includes('/')).sort()).toEqual([
      'db/checkpoint-worker.mjs',
      'db/read-worker.mjs',
      'web/static/button.js',
    ]);
    for (const f of scripts) expect(readFileSync(join(dist, f), 'utf8')).not.toMatch(/from ["'][^"']*\.ts["']/);
    // Every other file of src/ is copied to the same path under dist/.
    const src = join(root, 'src');
    const assets = readdirSync(src, { recursive: true })
      .map(String)
      .filter((f) => /\.(mjs|json|css|eta)$/.test(f) || f.startsWith('web/static/'));
    expect(assets.length).toBeGreaterThanOrEqual(17);
    for (const f of assets) expect(readFileSync(join(dist, f), 'utf8')).toBe(readFileSync(join(src, f), 'utf8'));

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
    expect(urls).toContain(`file://${join(root, 'dist', 'tipjar.js')}`);
    // What was loaded: packages imported from node_modules, and the modules bundled into the loaded
    // files of dist/ (esbuild heads each with a `// <path>` comment).
    const sources = urls.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
    const bundled = sources
      .filter((f) => f.startsWith(join(root, 'dist')))
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^\/\/ (\S+\.(?:[cm]?js|ts|json))$/gm)].map((m) => m[1]!));
    expect(bundled).toContain('src/cli/main.ts');
    const packages = new Set(
      [...sources, ...bundled].map((f) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1]).filter(Boolean),
    );
    expect(packages).toContain('commander');
    for (const heavy of ['fastify', 'kysely', 'pg', 'better-sqlite3', 'ioredis']) expect(packages).not.toContain(heavy);
    expect(
      bundled.filter(
        (f) => f.startsWith('src/db/') || f === 'src/main.ts' || f === 'src/app.ts' || f.startsWith('src/http/'),
      ),
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

  it('the server runs from dist/ alone: pages, CSS, API docs, Swagger UI, OpenAPI version, SQLite read threads', async () => {
    await build(root);
    // src/ gone: nothing may be read from it at run time (bin/tipjar.js would rebuild, so run dist/ directly).
    rmSync(join(root, 'src'), { recursive: true, force: true });
    const env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: `sqlite:${join(root, 'tipjar.db')}`,
      LOG_LEVEL: 'warn',
      WARMUP_SECONDS: '0',
      SQLITE_READ_THREADS: '1',
      SCHEDULER: 'off',
      WEBHOOKS: 'off',
    };
    const entry = join(root, 'dist', 'tipjar.js');
    await run(process.execPath, [entry, 'migrate'], { cwd: root, env, timeout: 60_000 });
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const child = spawn(process.execPath, [entry, 'serve'], {
      cwd: root,
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 30_000;
      for (;;) {
        const ready = await fetch(`${base}/readyz`).catch(() => undefined);
        if (ready?.status === 200) break;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server not ready:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const get = async (path: string) => {
        const res = await fetch(base + path);
        return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
      };
      const home = await get('/');
      expect([home.status, home.type]).toEqual([200, 'text/html; charset=utf-8']);
      const css = await get('/static/site.css');
      expect(css.status).toBe(200);
      expect(css.body).toBe(readFileSync(join(ROOT, 'src', 'web', 'static', 'site.css'), 'utf8'));
      const apiDocs = await get('/docs/api');
      expect(apiDocs.status).toBe(200);
      expect(apiDocs.body).toContain(
        readFileSync(join(root, 'docs', 'api.md'), 'utf8')
          .split('\n')[0]!
          .replace(/^#+ /, ''),
      );
      const openapi = await get('/openapi.json');
      expect(openapi.status).toBe(200);
      expect((JSON.parse(openapi.body) as { info: { version: string } }).info.version).toBe(
        (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
      );
      const swaggerCss = await get('/docs/static/swagger-ui.css');
      expect(swaggerCss.status).toBe(200);
      // A search: run by the SQLite read thread (src/db/read-worker.mjs).
      const search = await get('/rest/v2/things/search?query=parser');
      expect(search.status).toBe(200);
      expect(output).not.toMatch(/error/i);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    }
  });
});
