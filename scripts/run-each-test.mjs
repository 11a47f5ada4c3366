// Runs tests one at a time, each alone in a fresh Jest (`jest FILE -t '^<its full name>$'`), and
// reports every one that fails alone: the dynamic half of the test-isolation rule (the static half is
// scripts/check-test-isolation.mjs). Needs `npm run build` first (tests start dist/ processes).
//
//   node scripts/run-each-test.mjs [--sample N] [--seed S] [--list] [FILE ...]
//
// FILE: test files (default: every file `jest --listTests` finds). --sample N runs N tests drawn at
// random (seeded by --seed, default 1) from those files instead of all of them; --list only prints
// the full names. One PostgreSQL (with the migrated template) is started for the whole run and
// handed to each Jest through TEST_DATABASE_ADMIN_URL, so a run costs the test, not a cluster start.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const JEST = path.join(ROOT, 'node_modules/.bin/jest');
const require = createRequire(import.meta.url);

function parseArgs(argv) {
  const opts = { sample: 0, seed: 1, list: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--sample') opts.sample = Number(argv[++i]);
    else if (a === '--seed') opts.seed = Number(argv[++i]);
    else if (a === '--list') opts.list = true;
    else opts.files.push(path.resolve(a));
  }
  return opts;
}

/** mulberry32: a small seeded generator, so a sample can be drawn again. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Runs Jest with `args`; its JSON report (or null) and exit status. */
async function jest(args, env) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'run-each-'));
  const out = path.join(dir, 'report.json');
  try {
    const child = spawn(JEST, ['--ci', '--maxWorkers=1', '--json', `--outputFile=${out}`, ...args], { cwd: ROOT, env });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const status = await new Promise((resolve) => child.on('close', resolve));
    let report = null;
    try {
      report = JSON.parse(readFileSync(out, 'utf8'));
    } catch {
      // no report: Jest itself failed (its output says why)
    }
    return { status, report, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One PostgreSQL with the migrated template, as test/support/global-setup.ts prepares it. */
async function startDatabase() {
  const { startEmbeddedPostgres } = require(path.join(ROOT, 'dist/src/db/embedded.js'));
  const { createOrm, migrate } = require(path.join(ROOT, 'dist/src/db/orm.js'));
  const pg = require('pg');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-each-'));
  const db = await startEmbeddedPostgres({ dataDir: dir, database: 'docqa_template' });
  const orm = await createOrm(db.url);
  await migrate(orm);
  await orm.close(true);
  const c = new pg.Client({ connectionString: db.adminUrl });
  await c.connect();
  await c.query('alter database docqa_template with is_template true');
  await c.end();
  return {
    adminUrl: db.adminUrl,
    stop: async () => {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const files = opts.files.length
    ? opts.files
    : execFileSync(JEST, ['--listTests'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  const db = process.env.TEST_DATABASE_ADMIN_URL ? null : await startDatabase();
  // stopped (Ctrl-C, kill): stop the PostgreSQL started here too
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () => {
      void (db ? db.stop() : Promise.resolve()).finally(() => process.exit(130));
    });
  const env = { ...process.env, ...(db ? { TEST_DATABASE_ADMIN_URL: db.adminUrl } : {}) };
  try {
    // every test's full name: a run whose name pattern matches nothing reports them all as skipped
    const listed = await jest(['-t', '(?!)', ...files], env);
    if (!listed.report) throw new Error(`listing the tests failed:\n${listed.output}`);
    let tests = listed.report.testResults
      .flatMap((f) => f.assertionResults.map((a) => ({ file: path.relative(ROOT, f.name), name: a.fullName })))
      .sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
    console.log(`${tests.length} test(s) in ${files.length} file(s)`);
    if (opts.sample && opts.sample < tests.length) {
      const rand = prng(opts.seed);
      for (let i = tests.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [tests[i], tests[j]] = [tests[j], tests[i]];
      }
      tests = tests.slice(0, opts.sample).sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
      console.log(`a sample of ${tests.length} (seed ${opts.seed})`);
    }
    if (opts.list) {
      for (const t of tests) console.log(`${t.file}  ${t.name}`);
      return 0;
    }
    const failures = [];
    for (const [i, t] of tests.entries()) {
      const started = Date.now();
      const r = await jest([t.file, '-t', `^${escapeRegex(t.name)}$`], env);
      const ok = r.status === 0 && r.report && r.report.numPassedTests >= 1 && r.report.numFailedTests === 0;
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${i + 1}/${tests.length} ${t.file}  ${t.name}  (${secs} s)`);
      if (!ok) {
        failures.push(t);
        const messages = r.report?.testResults.flatMap((f) => [f.message, ...f.assertionResults.flatMap((a) => a.failureMessages)]) ?? [];
        console.log((messages.filter(Boolean).join('\n') || r.output).split('\n').slice(0, 40).join('\n'));
      }
    }
    console.log(`${tests.length - failures.length} of ${tests.length} passed alone`);
    for (const t of failures) console.log(`failed alone: ${t.file}  ${t.name}`);
    return failures.length ? 1 : 0;
  } finally {
    await db?.stop();
  }
}

main().then(
  (code) => (process.exitCode = code),
  (e) => {
    console.error(e);
    process.exitCode = 1;
  },
);
