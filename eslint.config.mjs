/**
 * The linter, run by `make lint` (part of `make test` and CI) with no warning allowed.
 * Beyond the recommended rules: no file of src/ above 500 lines (split a room along its seams),
 * and no SQL outside src/store (the store owns every query; .dependency-cruiser.cjs forbids
 * importing knex elsewhere, these catch a query written through a handle passed in).
 */
import Module, { createRequire } from 'node:module';

// typescript-eslint parses with TypeScript's JavaScript API, which TypeScript 7 (the compiler
// this project builds with, a native binary) no longer ships: the linter gets TypeScript 6's,
// installed beside it as @typescript/typescript6.
const ts6 = createRequire(import.meta.url).resolve('@typescript/typescript6');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'typescript' ? ts6 : resolveFilename.call(this, request, ...rest);
};
const { default: js } = await import('@eslint/js');
const { default: tseslint } = await import('typescript-eslint');

// Passing the store's handle on to a store function is fine; building a query on it is not.
const SQL_OUTSIDE_THE_STORE = [
  { selector: "CallExpression[callee.property.name='knex']", message: 'SQL belongs in src/store: call a named store function instead of querying a table here.' },
  { selector: "MemberExpression[object.type='MemberExpression'][object.property.name='knex']", message: 'SQL belongs in src/store: call a named store function instead of using the connection here.' },
  { selector: "CallExpression[callee.name=/^(knex|trx|db)$/]", message: 'SQL belongs in src/store: call a named store function instead of querying a table here.' },
  { selector: "CallExpression[callee.property.name=/^(whereRaw|selectRaw|orderByRaw|joinRaw|havingRaw)$/]", message: 'SQL belongs in src/store: call a named store function instead of raw SQL here.' },
  // A request's or job's services carry who writes (Services.writeSource); the store's own transaction call would drop it.
  { selector: "CallExpression[callee.property.name='transaction'][callee.object.property.name='db']:matches([callee.object.object.name='s'], [callee.object.object.property.name='s'])", message: 'Open the transaction with writeTransaction(s, ...) (records/context.ts): its kept versions name who wrote.' },
];

export default tseslint.config(
  { ignores: ['dist/', 'generated/', 'node_modules/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 500 }] },
  },
  {
    // Tests and benchmarks read the API's answers, arbitrary JSON, and poke at internals.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'bench/**/*.cjs'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly', setTimeout: 'readonly', Buffer: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/store/**'],
    rules: { 'no-restricted-syntax': ['error', ...SQL_OUTSIDE_THE_STORE] },
  },
);
