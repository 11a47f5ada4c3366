/**
 * The architecture as checked rules (npm run lint). Dependencies point one way:
 * transports → services → (access, presenters) → entities. See CONTRIBUTING.md.
 * test/unit/architecture.test.ts proves each rule fires on a deliberate violation.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only imports included: a cycle makes load order and ownership unclear.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'transports-no-orm',
      severity: 'error',
      comment: 'Transports never touch entities or the ORM: they parse, call one service, present.',
      from: { path: '^src/transports/' },
      to: { path: ['^src/entities/', '^src/db/', 'node_modules/@mikro-orm/'] },
    },
    {
      name: 'services-no-transport',
      severity: 'error',
      comment:
        'Services never know about HTTP or GraphQL (input classes carry type-graphql decorators by design: one class validates REST and GraphQL input).',
      from: {
        path: '^src/(services|auth|access|presenters|entities|ingest|llm|search)/',
        pathNot: '\\.inputs\\.ts$|/input-rules\\.ts$',
      },
      to: { path: ['node_modules/(express|@apollo|graphql|graphql-ws|type-graphql|ws|multer)/', '^src/transports/', '^src/app\\.ts$'] },
    },
    {
      name: 'inner-layers-point-inward',
      severity: 'error',
      comment: 'access/presenters/entities never depend on services (auth included) or transports.',
      from: { path: '^src/(access|presenters|entities)/' },
      to: { path: ['^src/services/(?!.*\\.inputs\\.ts$)', '^src/auth/', '^src/transports/'] },
    },
    {
      name: 'entities-are-leaves',
      severity: 'error',
      comment: 'Entities depend on nothing of ours but other entities and shared types.',
      from: { path: '^src/entities/' },
      to: { path: '^src/(access|presenters|services|auth|ingest|llm|search)/' },
    },
    {
      name: 'search-wing-one-door',
      severity: 'error',
      comment:
        'Services, transports and the rest of the request side use the search wing (src/search) through its calls in src/search/index.ts only: index, forget, search, reindex (see src/search/README.md).',
      from: { path: '^src/(services|transports|auth|presenters|access|cli)/|^src/(app|composition|first-run)\\.ts$' },
      to: { path: '^src/search/', pathNot: '^src/search/index\\.ts$' },
    },
    {
      name: 'ingest-through-the-wing',
      severity: 'error',
      comment:
        'The ingest pipeline hands parsed documents to the search wing through src/search/index.ts (SearchWing.writer, index, forget); the parser threads share its text analysis (analysis.ts) and nothing else.',
      from: { path: '^src/ingest/' },
      to: { path: '^src/search/', pathNot: '^src/search/(index|analysis)\\.ts$' },
    },
    {
      name: 'search-wing-below-services',
      severity: 'error',
      comment: 'The search wing never imports the services or transports that call it (it is given ModelSources and SearchJobs instead).',
      from: { path: '^src/search/' },
      to: { path: ['^src/services/', '^src/transports/', '^src/auth/', '^src/ingest/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
