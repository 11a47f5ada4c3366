const { LAYERS, SUBROOMS } = require('./scripts/layers.cjs');

/** `^src/auth/` for a folder, `^src/app\\.ts$` for a loose file, its paths for a sub-room. */
const roomPath = (room) => SUBROOMS[room] ?? (room.endsWith('.ts') ? `^src/${room.replace('.', '\\.')}$` : `^src/${room}/`);
/** A sub-room's files belong to it, not to the folder around them. */
const subroomPaths = Object.values(SUBROOMS);

/**
 * One rule a floor of the house plan (scripts/layers.cjs): its rooms import nothing on a floor above
 * (e.g. auth/ never imports services/, observability/ imports only the leaves).
 */
const layerRules = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer.floor}`,
  severity: 'error',
  comment: `${layer.rooms.join(', ')} (floor "${layer.floor}") import nothing above them: ${LAYERS.slice(0, i + 1)
    .flatMap((l) => l.rooms)
    .join(', ')}. Something both need moves down (scripts/layers.cjs).`,
  from: { path: layer.rooms.map(roomPath), pathNot: subroomPaths.filter((p) => !layer.rooms.some((r) => SUBROOMS[r] === p)) },
  to: { path: LAYERS.slice(0, i + 1).flatMap((l) => l.rooms.map(roomPath)), pathNot: subroomPaths },
}));

/**
 * The architecture as checked rules (npm run lint). Dependencies point one way, down the floors of
 * scripts/layers.cjs: processes → transports → services → auth → … → leaves. See CONTRIBUTING.md.
 * scripts/folder-graph.mjs --check (also in npm run lint) refuses import loops between folders,
 * which no-circular (file cycles) does not see. test/unit/architecture.test.ts proves each rule
 * fires on a deliberate violation.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    ...layerRules,
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
