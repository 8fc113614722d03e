/**
 * The layers of src/, lowest first (docs/architecture.md). A module may import from its own layer
 * and the layers below it, never from a layer above; no import cycles anywhere. On top of the
 * layers: only src/store speaks SQL (imports knex), only the store (and the access cache) handles
 * the freshness of kept values, and a domain area imports no other area (what two areas share
 * belongs in the engine, which names no domain area: the layers see to that).
 * Run by `make check-deps` (part of `make test` and CI).
 */
const LAYERS = [
  ['base', '^src/(config|log|errors|json|event-loop)\\.ts$'],
  ['registry', '^src/registry/'],
  ['store', '^src/store/'],
  ['validation', '^src/validation/'],
  ['access', '^src/access/'],
  ['records', '^src/records/'],
  ['search', '^src/search/'],
  ['exchange', '^src/exchange/'],
  ['reports', '^src/reports/'],
  ['jobs', '^src/jobs/'],
  ['domain', '^src/domain/[^/]+/'],
  ['composition', '^src/(domain/index\\.ts$|http/|openapi/|cli/|services\\.ts$|bootstrap\\.ts$|server\\.ts$)'],
];

const upward = LAYERS.flatMap(([name, path], i) => {
  const higher = LAYERS.slice(i + 1).map(([, p]) => `(${p})`);
  return higher.length
    ? [{ name: `no-upward-from-${name}`, comment: `${name} may not import a higher layer`, severity: 'error', from: { path }, to: { path: higher.join('|') } }]
    : [];
});

module.exports = {
  forbidden: [
    { name: 'no-cycle', comment: 'import cycles hide which module owns what', severity: 'error', from: {}, to: { circular: true } },
    { name: 'in-a-layer', comment: 'every src/ module belongs to a layer listed here', severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.map(([, p]) => `(${p})`).join('|') }, to: {} },
    ...upward,
    { name: 'sql-in-the-store', comment: 'only src/store speaks SQL: ask the store for a named function instead',
      severity: 'error', from: { path: '^src/', pathNot: '^src/store/' }, to: { path: '^node_modules/(knex|better-sqlite3|mysql2)/' } },
    { name: 'freshness-in-the-store', comment: 'how fresh a kept value is, is the store\'s business (the access cache reads it to know when its grants went stale; the HTTP layer opens each request\'s read scope, which the services carry)',
      severity: 'error', from: { path: '^src/', pathNot: '^src/(store|access)/|^src/http/app\\.ts$|^src/records/context\\.ts$' }, to: { path: '^src/store/freshness\\.ts$' } },
    { name: 'domain-areas-apart', comment: 'a domain area imports the engine, never another area',
      severity: 'error', from: { path: '^src/domain/([^/]+)/' }, to: { path: '^src/domain/', pathNot: '^src/domain/$1/' } },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(generated|dist)/' },
  },
};
