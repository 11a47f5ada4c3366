// The house plan: src/'s top-level folders and loose files ("rooms"), top floor first. A room imports
// only rooms on its own floor or below. .dependency-cruiser.cjs turns each floor into a rule
// (npm run lint) and scripts/folder-graph.mjs measures the imports against it. A room not named here
// is held only by the folder-level no-cycle check: place a new folder on its floor when it lands.
//
// `presenters/dto` is the generated wire types (src/presenters/dto.generated.ts and dto/, emitted from
// the JSON Schemas by `npm run schema`): they import nothing, so they are a room of their own on the
// bottom floor, which any layer may read (an access rule may return a wire type).
module.exports = {
  /** Rooms that are not a top-level folder or file: their name and the paths they hold. */
  SUBROOMS: { 'presenters/dto': '^src/presenters/(dto/|dto\\.generated\\.ts$)' },
  LAYERS: [
    { floor: 'processes', rooms: ['main.ts', 'cli', 'composition.ts', 'first-run.ts', 'app.ts'] },
    { floor: 'transports', rooms: ['transports'] },
    { floor: 'services', rooms: ['services'] },
    { floor: 'auth', rooms: ['auth'] },
    { floor: 'presenters', rooms: ['presenters'] },
    { floor: 'ingest-llm-access', rooms: ['ingest', 'search', 'llm', 'access'] },
    { floor: 'db', rooms: ['db'] },
    { floor: 'observability-entities-config', rooms: ['observability', 'entities', 'config'] },
    { floor: 'leaves', rooms: ['domain', 'util', 'logger.ts', 'errors.ts', 'validation.ts', 'presenters/dto'] },
  ],
};
