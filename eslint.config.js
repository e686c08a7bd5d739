// ESLint (flat config): typescript-eslint's recommended rules, import cycles refused everywhere,
// and the one-way flow of DESIGN.md enforced on src/ (route → domain → repository → database).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';

/** Imports a folder of src/ may not make, as `no-restricted-imports` patterns with a reason. */
const layer = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const FASTIFY = { group: ['fastify', '@fastify/*'], message: 'domain/ and db/ know nothing of HTTP' };
const DB_INTERNALS = {
  group: ['**/db/*', '!**/db/transaction.ts', '!**/db/repositories', '!**/db/schema.ts', 'kysely'],
  message: 'domain/ reaches the database only through db/repositories and the transaction helper',
};
const OUTER = { group: ['**/http/**', '**/web/**', '**/cli/**'], message: 'inner layers never import outer ones' };

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.dist-*/', 'data/', 'bench/results/', 'scratch/', 'test/e2e/screenshots/'] },
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
  { files: ['src/domain/**/*.ts'], rules: layer([FASTIFY, DB_INTERNALS, OUTER]) },
  {
    files: ['src/db/**/*.ts'],
    rules: layer([
      FASTIFY,
      {
        group: ['**/domain/*', '!**/domain/records.ts'],
        message: 'db/ returns records; it does not call domain services',
      },
      OUTER,
    ]),
  },
  {
    files: ['src/http/**/*.ts', 'src/web/**/*.ts'],
    rules: layer([{ group: ['**/db/*', '**/db/**', 'kysely'], message: 'routes call domain/, never the database' }]),
  },
  {
    files: ['**/*.mjs', 'bin/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', performance: 'readonly' },
    },
  },
  prettier,
);
