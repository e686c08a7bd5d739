// @ts-check
/**
 * The build of `@tipjar/client` (docs/adr/0027-typed-client.md): `src/` (TypeScript) into `dist/`:
 * - `dist/index.js`: one ES module bundled by esbuild from `src/index.ts`, for any platform (Node
 *   20+, browsers: no Node built-ins), `openapi-fetch` left as an import;
 * - `dist/*.d.ts`: the type declarations, emitted by the TypeScript compiler with this folder's
 *   `tsconfig.json` (browser and ES2022 libraries, no Node types), relative imports pointing at
 *   `.js`. Where TypeScript is not installed (`npm ci --omit=dev`) they are left out, with a
 *   notice: the JavaScript works without them;
 * - `dist/.source-hash`: the SHA-256 of the inputs (`src/`, this file, `tsconfig.json`,
 *   `package.json`, the esbuild and TypeScript versions), so `ensureClientBuilt()` rebuilds only
 *   when one changed.
 * The output is written to a temporary folder and renamed into place.
 *
 * The repository's `npm install` / `npm ci` (`prepare`) and `npm run build` run it; run as a
 * script it builds and prints what it did.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's folder (the parent of `scripts/`). */
export const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const HASH_FILE = '.source-hash';

/**
 * Files under `dir`, relative, sorted.
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
 * A package's installed version ('' when it is not installed).
 * @param {string} name
 * @returns {Promise<string>}
 */
async function versionOf(name) {
  try {
    const { createRequire } = await import('node:module');
    const require = createRequire(join(PACKAGE, 'package.json'));
    return JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  } catch {
    return '';
  }
}

/**
 * The SHA-256 (hex) of everything the build depends on.
 * @returns {Promise<string>}
 */
export async function clientSourceHash() {
  const hash = createHash('sha256');
  const add = (/** @type {string} */ name, /** @type {string | Buffer} */ content) => {
    hash.update(`${name}\0${content.length}\0`);
    hash.update(content);
  };
  for (const file of filesUnder(join(PACKAGE, 'src'))) add(`src/${file}`, readFileSync(join(PACKAGE, 'src', file)));
  for (const file of ['scripts/build.mjs', 'tsconfig.json', 'package.json'])
    add(file, readFileSync(join(PACKAGE, file)));
  add('esbuild', await versionOf('esbuild'));
  add('typescript', await versionOf('typescript'));
  return hash.digest('hex');
}

/**
 * Emits the declarations of `src/` into `outDir` with the TypeScript compiler, `.ts` import
 * specifiers rewritten to `.js`.
 * @param {string} outDir
 * @returns {Promise<boolean>} false when TypeScript is not installed
 * @throws Error listing the compiler's diagnostics when the sources do not type-check
 */
async function emitDeclarations(outDir) {
  /** @type {typeof import('typescript')} */
  let ts;
  try {
    ts = (await import('typescript')).default;
  } catch {
    return false;
  }
  const configFile = join(PACKAGE, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configFile,
    { outDir },
    /** @type {any} */ ({
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (/** @type {import('typescript').Diagnostic} */ d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    }),
  );
  if (!config) throw new Error(`cannot read ${configFile}`);
  const program = ts.createProgram(config.fileNames, config.options);
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    throw new Error(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => PACKAGE,
        getNewLine: () => '\n',
      }),
    );
  }
  for (const file of filesUnder(outDir).filter((f) => f.endsWith('.d.ts'))) {
    const path = join(outDir, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/(from\s+['"]\.{1,2}\/[^'"]*)\.ts(['"])/g, '$1.js$2'));
  }
  return true;
}

/**
 * Builds `dist/` (see the file comment).
 * @returns {Promise<{ declarations: boolean, ms: number }>} whether declarations were emitted, time taken
 * @throws Error when esbuild or the TypeScript compiler reports an error
 */
export async function buildClient() {
  const started = performance.now();
  const hash = await clientSourceHash();
  const temporary = join(PACKAGE, `.dist-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const esbuild = await import('esbuild');
    await esbuild.build({
      absWorkingDir: PACKAGE,
      entryPoints: [join(PACKAGE, 'src', 'index.ts')],
      outfile: join(temporary, 'index.js'),
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      external: ['openapi-fetch'],
      logLevel: 'error',
    });
    const declarations = await emitDeclarations(temporary);
    writeFileSync(join(temporary, HASH_FILE), `${hash}\n`);
    const dist = join(PACKAGE, 'dist');
    const old = `${temporary}-old`;
    try {
      renameSync(dist, old);
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err;
    }
    renameSync(temporary, dist);
    rmSync(old, { recursive: true, force: true });
    return { declarations, ms: Math.round(performance.now() - started) };
  } catch (err) {
    rmSync(temporary, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Builds `dist/` when it is missing or was built from other inputs.
 * @returns {Promise<{ rebuilt: boolean }>}
 */
export async function ensureClientBuilt() {
  let built;
  try {
    built = readFileSync(join(PACKAGE, 'dist', HASH_FILE), 'utf8').trim();
  } catch {
    built = undefined;
  }
  if (built === (await clientSourceHash())) return { rebuilt: false };
  await buildClient();
  return { rebuilt: true };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const { declarations, ms } = await buildClient();
    console.log(
      `built packages/client/dist/ (@tipjar/client)${declarations ? ' with its type declarations' : ''} (${ms} ms)`,
    );
    if (!declarations) console.log('TypeScript is not installed: the type declarations (dist/*.d.ts) were left out');
  } catch (err) {
    console.error(`could not build packages/client/dist/: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
