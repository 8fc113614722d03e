/**
 * The layers of src/, lowest first (README "How it is built"). A module may import from its own
 * layer and the layers below it, never from a layer above; no import cycles anywhere.
 * Run by `make check-deps` (part of `make test` and CI).
 */
const LAYERS = [
  ['base', '^src/(config|log|errors|json)\\.ts$'],
  ['registry', '^src/registry/'],
  ['store', '^src/store/'],
  ['validation', '^src/validation/'],
  ['access', '^src/access/'],
  ['operations', '^src/operations/'],
  ['trees', '^src/trees/'],
  ['search', '^src/search/'],
  ['exchange', '^src/exchange/'],
  ['jobs', '^src/jobs/'],
  ['endpoints', '^src/endpoints/'],
  ['openapi', '^src/openapi/'],
  ['composition', '^src/(http/|cli/|services\\.ts$|bootstrap\\.ts$|server\\.ts$)'],
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
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(generated|dist)/' },
  },

};
