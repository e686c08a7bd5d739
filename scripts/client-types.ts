/**
 * The types of `@tipjar/client` (packages/client/src/openapi.ts), generated from the server's
 * OpenAPI document (docs/adr/0027-typed-client.md):
 * - `openApiDocument()` builds the app in-process on a throw-away SQLite database and reads
 *   `GET /openapi.json` through `inject` (no network, no listening socket);
 * - `clientTypes(document)` turns a document into the TypeScript of `openapi.ts` with
 *   openapi-typescript, formatted by Prettier with the project's settings, so the committed file
 *   passes `prettier --check` and two runs give the same bytes.
 *
 * `npm run client:types` writes the file; `npm run client:types -- --check` exits 1 when the
 * committed file differs from what the document gives. test/client/types.test.ts fails in the
 * same case, with the document read from a server listening on a loopback port.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import * as prettier from 'prettier';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { openDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

/** The committed file the client's types live in. */
export const CLIENT_TYPES_FILE = fileURLToPath(new URL('../packages/client/src/openapi.ts', import.meta.url));

/**
 * The PUBLIC_URL the document is generated with. The generated types hold no URL of the document
 * (servers, links and the OAuth endpoints' addresses are not types); a fixed one keeps the
 * generation independent of the environment all the same.
 */
export const GENERATION_PUBLIC_URL = 'http://localhost:3000';

const HEADER = `/**
 * The paths and representations of the Tipjar API v2, generated from its OpenAPI document
 * (\`GET /openapi.json\`) by openapi-typescript. Do not edit: run \`npm run client:types\` after
 * changing a route schema (src/http/routes/<resource>/schemas.ts, src/http/schemas/); a test fails
 * while this file and the server's document disagree.
 */
`;

/**
 * The server's OpenAPI 3.1 document, as `GET /openapi.json` answers it, from the app built
 * in-process (PUBLIC_URL `GENERATION_PUBLIC_URL`) on a temporary SQLite database removed afterwards.
 * @throws when the app cannot be built or the document is not answered with 200
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'tipjar-openapi-'));
  const url = `sqlite:${join(dir, 'openapi.db')}`;
  const database = await openDatabase(url);
  try {
    await migrateToLatest(database);
    const config = loadConfig({
      PUBLIC_URL: GENERATION_PUBLIC_URL,
      LOG_LEVEL: 'silent',
      DATABASE_URL: url,
      DISCOVERY: 'off',
    });
    const app = await buildApp({ config, database });
    try {
      await app.ready();
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
      return JSON.parse(res.body) as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The content of `openapi.ts` for an OpenAPI document: `paths` and `components` as TypeScript
 * (openapi-typescript's defaults: optional properties stay optional, no enums emitted as values),
 * under a header saying how the file is made, formatted by Prettier with the project's settings.
 */
export async function clientTypes(document: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(document as unknown as OpenAPI3);
  const source = HEADER + astToString(ast);
  const options = (await prettier.resolveConfig(CLIENT_TYPES_FILE)) ?? {};
  return prettier.format(source, { ...options, filepath: CLIENT_TYPES_FILE });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const generated = await clientTypes(await openApiDocument());
  let committed: string | undefined;
  try {
    committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
  } catch {
    committed = undefined;
  }
  if (check) {
    if (committed !== generated) {
      console.error(
        "packages/client/src/openapi.ts differs from the server's OpenAPI document: run `npm run client:types`",
      );
      process.exitCode = 1;
    } else {
      console.log("packages/client/src/openapi.ts matches the server's OpenAPI document");
    }
  } else if (committed === generated) {
    console.log('packages/client/src/openapi.ts is up to date');
  } else {
    writeFileSync(CLIENT_TYPES_FILE, generated);
    console.log("wrote packages/client/src/openapi.ts from the server's OpenAPI document");
  }
}
