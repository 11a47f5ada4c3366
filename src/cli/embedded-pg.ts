import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../db/embedded';

/**
 * Runs an embedded PostgreSQL in the foreground until SIGTERM/SIGINT (used by fault tests and
 * benchmarks that need a database in a process of its own). Prints `ready <url>` when serving.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, port: { type: 'string' }, database: { type: 'string' } } });
  if (!values['data-dir']) throw new Error('usage: embedded-pg --data-dir DIR [--port PORT (default: a free one)] [--database NAME]');
  const db = await startEmbeddedPostgres({
    dataDir: values['data-dir'],
    port: values.port ? Number(values.port) : 0,
    database: values.database,
    warn: (m) => process.stderr.write(`warning: ${m}\n`),
  });
  process.stdout.write(`ready ${db.url}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    db.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
