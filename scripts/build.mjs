// @ts-check
/**
 * The build (docs/adr/0021): bundles the TypeScript of `src/` and the packages it imports into
 * JavaScript in `dist/` with esbuild, so that `tipjar` and `npm start` run a few large files instead
 * of resolving, reading and compiling ~150 modules of `src/` and ~1 300 of `node_modules` at every start.
 *
 * - One flat folder: the entry `dist/tipjar.js` (from `src/cli/main.ts`) and the chunks its lazy
 *   `import()`s load (`dist/chunk-<hash>.js`), so `tipjar --help` loads no server code. Packages are
 *   bundled in, except `EXTERNAL`: imported from `node_modules` at run time. JSON is inlined.
 * - Every other file of `src/` (templates, CSS, the read threads' `.mjs`, JSON) is copied to the same
 *   path under `dist/`. Code finds such files from `src/paths.ts` (`sourceFile('web/views')`), whose
 *   bundled code sits in `dist/` itself; `dist/` sits at the depth of `src/`, so paths that leave it
 *   (`../docs/api.md`, `../package.json`) reach the project's own files.
 * - `dist/.source-hash` holds the SHA-256 of the build's inputs (every file of `src/`, this file,
 *   `tsconfig.json`, esbuild's version, the installed packages' versions). `bin/tipjar.js` compares
 *   it with the sources at every start (`ensureBuilt`) and rebuilds when they differ (≈ 1.5–2.5 s),
 *   so no command runs code older than `src/` or than the installed packages.
 * - A build is written to a temporary folder beside `dist/` and moved into place by `rename`, so
 *   a process starting meanwhile sees the old build or the new one, never half of one.
 *
 * `npm install` and `npm ci` run it (`prepare`); `npm run build` runs it by hand; run as a script
 * it builds and prints what it did.
 */
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder (the parent of `scripts/`). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The file in the output folder that records the hash of the inputs it was built from. */
export const HASH_FILE = '.source-hash';

/** The entry module's name in `dist/` (`dist/tipjar.js`, run by `bin/tipjar.js`). */
export const ENTRY = 'tipjar';

/**
 * Packages left in `node_modules` (imported at run time) rather than bundled: those that find files
 * beside their own code (`__dirname`, undefined in a bundle) or cannot move at all — better-sqlite3
 * (a native addon), @fastify/swagger-ui (serves its static folder), ioredis (reads its
 * package.json for `CLIENT SETINFO`) — and pg. pg and ioredis are imported only when PostgreSQL or
 * Redis is configured. The bundled packages' other uses of `__dirname` are in code the app never
 * runs: pino's transports (thread-stream workers) and @fastify/swagger's default `info`, which the
 * document's own `info` replaces.
 */
const EXTERNAL = ['better-sqlite3', 'pg', '@fastify/swagger-ui', 'ioredis'];

/** Why a build could not be made or put in place, with the command that would. */
export class BuildError extends Error {}

/**
 * Files under `dir` (relative, `/`-separated, sorted), folders left out.
 * @param {string} dir
 * @returns {string[]}
 */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      relative(dir, join(entry.parentPath ?? entry.path, entry.name))
        .split('\\')
        .join('/'),
    )
    .sort();
}

/**
 * The SHA-256 (hex) of everything a build of `root` depends on: the path and content of every
 * file under `src/`, this script, `tsconfig.json` (esbuild reads it), esbuild's version and npm's
 * record of the installed packages (`node_modules/.package-lock.json`: the bundle holds their code).
 * Reads ≈ 1.2 MB; a few milliseconds.
 * @param {string} root the project's root folder
 * @returns {string}
 */
export function sourceHash(root = ROOT) {
  const hash = createHash('sha256');
  const add = (/** @type {string} */ name, /** @type {string | Buffer} */ content) => {
    hash.update(`${name}\0${content.length}\0`);
    hash.update(content);
  };
  const src = join(root, 'src');
  for (const file of filesUnder(src)) add(`src/${file}`, readFileSync(join(src, file)));
  add('scripts/build.mjs', readFileSync(fileURLToPath(import.meta.url)));
  add('tsconfig.json', readFileSync(join(root, 'tsconfig.json')));
  add('esbuild', esbuildVersion(root));
  add('node_modules/.package-lock.json', installedPackages(root));
  return hash.digest('hex');
}

/**
 * esbuild's installed version ('' when it is not installed: the build then fails naming it).
 * @param {string} root
 * @returns {string}
 */
function esbuildVersion(root) {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;
  } catch {
    return '';
  }
}

/**
 * npm's record of the packages installed in `<root>/node_modules` ('' when there is none, e.g.
 * packages installed by another client: a change of them then needs `npm run build`).
 * @param {string} root
 * @returns {Buffer | string}
 */
function installedPackages(root) {
  try {
    return readFileSync(join(root, 'node_modules', '.package-lock.json'));
  } catch {
    return '';
  }
}

/**
 * The hash recorded in `<root>/dist`, or undefined when there is no build.
 * @param {string} root
 * @returns {string | undefined}
 */
export function builtHash(root = ROOT) {
  try {
    return readFileSync(join(root, 'dist', HASH_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Compiles `<root>/src` into `<root>/dist` (see the file comment) and records the inputs' hash.
 * @param {string} root the project's root folder
 * @returns {Promise<{ modules: number, outputs: number, assets: number, ms: number }>} source and package modules
 *   bundled, JavaScript files written, other files copied, time taken
 * @throws BuildError when esbuild reports an error (its messages are printed) or the output cannot be written
 */
export async function build(root = ROOT) {
  const started = performance.now();
  const hash = sourceHash(root);
  const src = join(root, 'src');
  const files = filesUnder(src);
  const assets = files.filter((f) => !f.endsWith('.ts'));
  let modules = 0;
  let outputs = 0;
  const temporary = join(root, `.dist-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const esbuild = await import('esbuild');
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: { [ENTRY]: join(src, 'cli', 'main.ts') },
      outdir: temporary,
      // One flat folder: the entry, and the chunks its lazy `import()`s load, beside `paths.js`'s code.
      entryNames: '[name]',
      chunkNames: 'chunk-[hash]',
      bundle: true,
      splitting: true,
      external: EXTERNAL,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'linked',
      metafile: true,
      logLevel: 'error',
      // Bundled CommonJS packages call `require` for Node's built-ins and for the packages left external.
      banner: {
        js: "import { createRequire as __tipjarRequire } from 'node:module'; const require = __tipjarRequire(import.meta.url);",
      },
    });
    if (result.errors.length) throw new BuildError(`esbuild reported ${result.errors.length} error(s)`);
    for (const asset of assets) {
      mkdirSync(dirname(join(temporary, asset)), { recursive: true });
      cpSync(join(src, asset), join(temporary, asset));
    }
    modules = Object.keys(result.metafile.inputs).length;
    outputs = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js')).length;
    writeFileSync(join(temporary, HASH_FILE), `${hash}\n`);
    replaceOutput(root, temporary);
  } catch (err) {
    rmSync(temporary, { recursive: true, force: true });
    if (err instanceof BuildError) throw err;
    throw new BuildError(`could not build dist/ from src/: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  return { modules, outputs, assets: assets.length, ms: Math.round(performance.now() - started) };
}

/**
 * Moves the finished build `temporary` to `<root>/dist`, replacing the one there.
 * @param {string} root
 * @param {string} temporary
 */
function replaceOutput(root, temporary) {
  const dist = join(root, 'dist');
  const old = `${temporary}-old`;
  try {
    renameSync(dist, old);
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err;
  }
  try {
    renameSync(temporary, dist);
  } catch (err) {
    // Another process put the same build in place between the two renames: keep that one.
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    rmSync(temporary, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

/**
 * Makes sure `<root>/dist` was built from the current sources: builds it when it is missing or
 * its recorded hash differs from `sourceHash(root)`.
 * @param {string} root the project's root folder
 * @returns {Promise<{ rebuilt: false } | { rebuilt: true, ms: number }>}
 * @throws BuildError naming `npm run build` when the build fails (e.g. dist/ is not writable)
 */
export async function ensureBuilt(root = ROOT) {
  if (builtHash(root) === sourceHash(root)) return { rebuilt: false };
  try {
    const { ms } = await build(root);
    return { rebuilt: true, ms };
  } catch (err) {
    throw new BuildError(
      `dist/ is missing or older than src/, and rebuilding it failed: ${err instanceof Error ? err.message : String(err)}\n` +
        'Run `npm run build` in the project folder (as a user who may write there), then try again.',
      { cause: err },
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const { modules, outputs, assets, ms } = await build();
    console.log(
      `built dist/ from src/: ${modules} modules bundled into ${outputs} files, ${assets} files copied (${ms} ms)`,
    );
  } catch (err) {
    console.error(err instanceof BuildError ? err.message : err);
    process.exitCode = 1;
  }
}
