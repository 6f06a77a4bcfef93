/**
 * The house rules of the module structure (docs/architecture.md), checked by `npm test`
 * (test/foundation/architecture.test.ts) and runnable alone: `npx depcruise src`.
 */
const BASE = '^src/(core|graph|identity|lib|db|objects|jobs|config|export-engine|destinations|modelling|webhook-receiver)/';

module.exports = {
  forbidden: [
    {
      name: 'graph-only-through-its-index',
      comment: 'The rest of the code enters src/graph through src/graph/index.ts only (issue #33).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/graph/' },
      to: { path: '^src/graph/', pathNot: '^src/graph/index\\.ts$' },
    },
    {
      name: 'base-layer-imports-modules-or-http',
      comment:
        'core, graph, identity, lib, db, objects, jobs, config and the engines are the base layer: they never import modules/ or http/.',
      severity: 'error',
      from: { path: BASE },
      to: { path: '^src/(modules|http)/' },
    },
    {
      name: 'core-imports-only-core',
      comment: 'core is protocol-free and storage-free: it imports only itself.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'module-imports-another-modules-private-file',
      comment: 'An area imports another area only through its index.ts.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'modules-import-http',
      comment: 'Services and declarations hold no HTTP: areas never import src/http.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'no-cycle-between-areas',
      comment: 'Areas depend on each other in one direction only.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', circular: true, pathNot: '^src/modules/$1/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere in src.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
