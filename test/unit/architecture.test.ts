import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from '../support/processes';

jest.setTimeout(120_000);

const FIXTURE = path.join(ROOT, 'test/fixtures/architecture');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

/** Runs a linter expected to fail; returns what it printed. */
function failingRun(cmd: string, args: string[], cwd: string): string {
  try {
    execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    const err = e as { stdout: string; stderr: string };
    return err.stdout + err.stderr;
  }
  throw new Error(`${cmd} ${args.join(' ')} passed on deliberate violations`);
}

describe('architecture rules fire on deliberate violations', () => {
  let cruise: string;
  beforeAll(() => {
    cruise = failingRun(bin('depcruise'), ['--config', path.join(ROOT, '.dependency-cruiser.cjs'), 'src'], FIXTURE);
  });

  it.each([
    ['transports-no-orm', 'src/transports/http/things.routes.ts → src/entities/thing.entity.ts'],
    ['services-no-transport', 'src/services/things.service.ts → ../../../node_modules/express/'],
    ['inner-layers-point-inward', 'src/presenters/thing.presenter.ts → src/services/things.service.ts'],
    ['no-circular', 'src/cycle/a.ts'],
    ['search-wing-one-door', 'src/services/reaches-into-search.ts → src/search/ranking.ts'],
    ['ingest-through-the-wing', 'src/ingest/writes-around-the-wing.ts → src/search/ranking.ts'],
    ['search-wing-below-services', 'src/search/asks-a-service.ts → src/services/things.service.ts'],
    // one rule a floor of scripts/layers.cjs: nothing imports a floor above its own
    ['no-upward-from-transports', 'src/transports/http/imports-main.ts → src/main.ts'],
    ['no-upward-from-services', 'src/services/imports-transport.ts → src/transports/http/things.routes.ts'],
    ['no-upward-from-auth', 'src/auth/uses-a-service.ts → src/services/things.service.ts'],
    ['no-upward-from-ingest-llm-access', 'src/search/imports-auth.ts → src/auth/uses-a-service.ts'],
    ['no-upward-from-presenters', 'src/presenters/thing.presenter.ts → src/services/things.service.ts'],
    ['no-upward-from-ingest-llm-access', 'src/ingest/imports-presenter.ts → src/presenters/thing.presenter.ts'],
    ['no-upward-from-db', 'src/db/imports-ingest.ts → src/ingest/imports-presenter.ts'],
    ['no-upward-from-observability-entities-config', 'src/observability/pulls-from-transport.ts → src/transports/http/things.routes.ts'],
    ['no-upward-from-observability-entities-config', 'src/config/imports-ingest.ts → src/ingest/imports-presenter.ts'],
    ['no-upward-from-leaves', 'src/util/imports-config.ts → src/config/imports-ingest.ts'],
  ])('%s (%s)', (rule, edge) => {
    const line = cruise.split('\n').find((l) => l.includes(`error ${rule}:`) && l.includes(edge.split(' → ')[0]));
    expect(line).toBeDefined();
    if (edge.includes(' → ')) expect(line).toContain(edge);
  });

  it('every floor of the house plan has its rule, and each is proven above', () => {
    const rules = (createRequire(__filename)(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: Array<{ name: string }> })
      .forbidden;
    const floors = rules.map((r) => r.name).filter((n) => n.startsWith('no-upward-from-'));
    expect(floors).toHaveLength(8);
    for (const name of floors) expect(cruise).toContain(`error ${name}:`);
  });

  it('no-folder-cycle: a loop between folders that no file cycle shows', () => {
    const out = failingRun(process.execPath, [path.join(ROOT, 'scripts/folder-graph.mjs'), '--check'], FIXTURE);
    // loopa/one → loopb/two and loopb/three → loopa/four: acyclic file by file
    expect(cruise).not.toMatch(/no-circular: src\/loop/);
    expect(out).toContain('error no-folder-cycle: src/{loopa,loopb} import each other in a loop (2 folders)');
  });

  it('the source tree has no folder-level loop and nothing runs back up the plan', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'scripts/folder-graph.mjs'), '--check', '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const m = JSON.parse(out) as { cycles: string[][]; backUp: string[][]; mutual: string[][] };
    expect(m).toMatchObject({ cycles: [], backUp: [], mutual: [] });
  });

  const refused: Array<[string, string, string]> = [
    ['src/services/reads-env.ts', 'no-restricted-properties', 'src/config/'],
    ['src/cli/assembles-by-hand.ts', 'no-restricted-syntax', 'compose()'],
    ['src/transports/http/locals.ts', 'no-restricted-syntax', 'receive the services'],
    ['src/services/nullable-actor.ts', 'no-restricted-syntax', 'non-null Actor'],
    ['src/presenters/untyped.presenter.ts', 'explicit-function-return-type', 'Missing return type'],
    ['src/services/too-long.ts', 'max-lines', 'Maximum allowed is 300'],
    ['web/reads-server-source.ts', 'no-restricted-imports', 'web/lib/types.ts'],
  ];
  // one ESLint run over every fixture (each run loads the type-aware parser: ~8 s on 2 cores)
  let eslint: Map<string, Array<{ ruleId: string | null; message: string }>>;
  beforeAll(() => {
    const out = failingRun(bin('eslint'), ['--no-ignore', '--format', 'json', ...refused.map(([file]) => path.join(FIXTURE, file))], ROOT);
    const results = JSON.parse(out.slice(out.indexOf('['), out.lastIndexOf(']') + 1)) as Array<{
      filePath: string;
      messages: Array<{ ruleId: string | null; message: string }>;
    }>;
    eslint = new Map(results.map((r) => [path.relative(FIXTURE, r.filePath), r.messages]));
  });

  it.each(refused)('eslint refuses %s (%s)', (file, rule, says) => {
    const messages = eslint.get(file) ?? [];
    const hit = messages.find((m) => m.ruleId?.endsWith(rule) && m.message.includes(says));
    expect({ file, rule, says, hit: hit !== undefined }).toEqual({ file, rule, says, hit: true });
  });
});
