// ESLint: typescript-eslint's type-checked rules, tuned to this codebase. Every rule turned off or
// relaxed says why in one line. The layer rules live in .dependency-cruiser.cjs (npm run lint runs both).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// SQL runs through query()/bulk() of src/db/sql.ts: one helper, typed rows, the caller's transaction
const SQL_RULES = [
  {
    selector: "CallExpression[callee.property.name='execute'][callee.object.name=/^(em|tx|conn|orm)$/]",
    message: 'Run SQL with query()/bulk() from src/db/sql.ts.',
  },
  {
    selector: "CallExpression[callee.property.name='execute'][callee.object.callee.property.name=/^(getConnection|em)$/]",
    message: 'Run SQL with query()/bulk() from src/db/sql.ts.',
  },
];
const COMPOSITION_RULES = [
  {
    selector: 'CallExpression[callee.name=/^(createServices|createApp)$/]',
    message: 'Assemble a process with compose() in src/composition.ts.',
  },
  {
    selector: "MemberExpression[object.property.name='locals'][property.name='services']",
    message: 'Route modules receive the services they use as arguments.',
  },
];
// a service acts for someone: the caller, or Actor.system() for the system's own jobs; never "nobody"
const ACTOR_RULES = [
  {
    selector:
      ":function > Identifier > TSTypeAnnotation > TSUnionType:has(TSTypeReference > Identifier[name='Actor']):has(TSNullKeyword, TSUndefinedKeyword)",
    message: 'Service methods take a non-null Actor (Actor.system() for background jobs).',
  },
  {
    selector: ":function > Identifier[optional=true] > TSTypeAnnotation > TSTypeReference > Identifier[name='Actor']",
    message: 'Service methods take a non-null Actor (Actor.system() for background jobs).',
  },
];

export default tseslint.config(
  // migrations are generated and never edited. web/ (the web app) and playground/ are linted too: browser code
  // bundled by esbuild, whose type-checked rules read their own tsconfig.json (the project service finds it)
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'migrations/', 'test/fixtures/', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // src/config/ is the only reader of the environment: everything else receives Config
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through loadConfig() in src/config/ and pass Config down.' },
      ],
      // one composition root: every process (server, worker, CLI, test, bench) is assembled by compose()
      'no-restricted-syntax': ['error', ...COMPOSITION_RULES],
    },
  },
  {
    // the wire: presenters and resolvers say what they return (a DTO of presenters/dto.generated.ts or a type built on one)
    files: ['src/presenters/**/*.ts', 'src/transports/graphql/resolvers/**/*.ts', 'test/fixtures/architecture/src/presenters/**/*.ts'],
    rules: { '@typescript-eslint/explicit-function-return-type': ['error', { allowExpressions: true }] },
  },
  {
    // a file holds one job: split by job before it grows past 300 lines (generated files aside)
    files: ['src/**/*.ts', 'test/fixtures/architecture/src/**/*.ts'],
    ignores: ['src/**/*.generated.ts'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**', 'src/composition.ts'],
    rules: { 'no-restricted-syntax': ['error', ...COMPOSITION_RULES, ...SQL_RULES] },
  },
  {
    files: ['src/composition.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['src/services/**/*.ts', 'test/fixtures/architecture/src/services/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...COMPOSITION_RULES, ...SQL_RULES, ...ACTOR_RULES],
    },
  },
  {
    files: ['src/config/**', 'test/**', 'bench/**', 'mikro-orm.config.ts'],
    ignores: ['test/fixtures/**'],
    // the configuration module itself, tests (child-process environments) and benchmarks set and read the environment
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      // response bodies are untyped JSON: tests and benchmarks read them loosely and assert their shape
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // jest's expect(obj.method) and handler references are checked by the test itself
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
