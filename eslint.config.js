// ESLint (flat config): typescript-eslint's recommended rules, import cycles refused everywhere,
// and the one-way flow of DESIGN.md enforced on src/ (route → domain → repository → database).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';

/** Imports a folder of src/ may not make, as `no-restricted-imports` patterns with a reason. */
const layer = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const FASTIFY = { group: ['fastify', '@fastify/*'], message: 'only http/ and web/ know of HTTP' };
/** SQL is written in db/ only: Kysely (and its `sql` tag) is imported nowhere else. */
const KYSELY = { group: ['kysely'], message: 'SQL lives in db/ (repositories); call a repository function' };
/** The transaction helper, the repositories and the schema types; connect.ts for its types only. */
const DB_INTERNALS = {
  group: ['**/db/*', '!**/db/transaction.ts', '!**/db/repositories', '!**/db/schema.ts', '!**/db/connect.ts'],
  message: 'reach the database only through db/repositories and the transaction helper (db/transaction.ts)',
};
const DB_CONNECT_TYPES = {
  group: ['**/db/connect.ts'],
  allowTypeImports: true,
  message: 'opening databases is for the entry points (main.ts, app.ts, cli/); import its types only',
};
const OUTER = {
  group: ['**/http/**', '**/web/**', '**/cli/**', '**/main.ts', '**/app.ts'],
  message: 'inner layers never import outer ones',
};
/** What the domain receives as ports (domain/services.ts) instead of importing. */
const DOMAIN_PORTS = {
  group: [
    '**/auth/**',
    '**/webhooks/**',
    '**/mail/**',
    '**/discovery/**',
    '**/scheduler/**',
    '**/ratelimit/**',
    '**/formats/**',
  ],
  message:
    'domain/ is imported by auth/, webhooks/, discovery/ and the others, never the reverse: declare a port in domain/services.ts (docs/adr/0019)',
};
/** The search module is used through its seam only. */
const SEARCH_SEAM = {
  group: [
    '**/domain/search/*',
    '!**/domain/search/index.ts',
    './search/*',
    '!./search/index.ts',
    '../search/*',
    '!../search/index.ts',
  ],
  message: 'search is used through src/domain/search/index.ts only',
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.dist-*/',
      'packages/*/dist/',
      'packages/*/.dist-*/',
      'data/',
      'bench/results/',
      'scratch/',
      'test/e2e/screenshots/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs'] })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      // control characters are matched on purpose (input checks, XML 1.0 text)
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    ignores: ['src/domain/search/**'],
    rules: layer([FASTIFY, KYSELY, DB_INTERNALS, DB_CONNECT_TYPES, OUTER, DOMAIN_PORTS, SEARCH_SEAM]),
  },
  {
    files: ['src/domain/search/**/*.ts'],
    rules: layer([FASTIFY, KYSELY, DB_INTERNALS, DB_CONNECT_TYPES, OUTER, DOMAIN_PORTS]),
  },
  {
    files: ['src/db/**/*.ts'],
    rules: layer([
      FASTIFY,
      {
        group: ['**/domain/**'],
        allowTypeImports: true,
        message: 'db/ returns records; it may name domain types (records, commands) but never calls domain code',
      },
      {
        group: ['**/auth/**', '**/webhooks/**', '**/mail/**', '**/discovery/**', '**/scheduler/**'],
        message: 'db/ is the innermost layer',
      },
      OUTER,
    ]),
  },
  {
    files: [
      'src/auth/**/*.ts',
      'src/webhooks/**/*.ts',
      'src/mail/**/*.ts',
      'src/discovery/**/*.ts',
      'src/scheduler/**/*.ts',
    ],
    rules: layer([FASTIFY, KYSELY, DB_INTERNALS, DB_CONNECT_TYPES, OUTER, SEARCH_SEAM]),
  },
  {
    files: ['src/http/**/*.ts', 'src/web/**/*.ts'],
    rules: layer([
      { group: ['**/db/*', '**/db/**', 'kysely'], message: 'routes call domain/ (or auth/), never the database' },
      SEARCH_SEAM,
    ]),
  },
  { files: ['src/cli/**/*.ts'], rules: layer([KYSELY, SEARCH_SEAM]) },
  {
    // The entry points and the remaining folders write no SQL either.
    files: ['src/*.ts', 'src/cluster/**/*.ts', 'src/config/**/*.ts', 'src/formats/**/*.ts', 'src/ratelimit/**/*.ts'],
    rules: layer([KYSELY]),
  },
  {
    // The client package runs in browsers too and knows the server only through its OpenAPI
    // document (src/openapi.ts, generated): no Node built-ins, nothing of the server's code.
    files: ['packages/client/src/**/*.ts'],
    rules: layer([
      {
        group: ['node:*', 'buffer', 'crypto', 'fs', 'http', 'https', 'path', 'stream', 'url', 'util'],
        message: 'the client runs in browsers too: use web APIs (fetch, URL, crypto.subtle)',
      },
      {
        group: ['**/src/*/**', '../../../**', 'fastify', '@fastify/*', 'kysely'],
        message: 'the client knows the server through its OpenAPI document only (src/openapi.ts)',
      },
    ]),
  },
  {
    files: ['**/*.mjs', 'bin/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', performance: 'readonly' },
    },
  },
  prettier,
);
