/**
 * The one place files read at run time are found from (docs/adr/0021).
 *
 * `SOURCE_ROOT` is the folder of this module: `src/` when the sources run (Vitest), `dist/` when the
 * build runs (`bin/tipjar.js`, `npm start`), since the build bundles every module into one flat
 * folder. The build copies every non-TypeScript file of `src/` to the same relative path under
 * `dist/`, and `dist/` sits at the depth of `src/`, so one relative path names the same file in
 * both: `web/views`, `db/read-worker.mjs`, `../docs/api.md`, `../package.json`.
 */

/** `file:` URL of `src/` (or `dist/`), ending in `/`. */
export const SOURCE_ROOT = new URL('./', import.meta.url);

/**
 * The `file:` URL of `path` relative to `SOURCE_ROOT`.
 * @param path a `/`-separated path relative to `src/`, e.g. `web/static/site.css` or `../docs/api.md`
 */
export function sourceFile(path: string): URL {
  return new URL(path, SOURCE_ROOT);
}
