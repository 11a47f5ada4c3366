import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { createLogger } from '../logger';

async function main(): Promise<void> {
  const config = loadConfig(undefined, { logLevel: 'warn' });
  const logger = createLogger(config.logLevel);
  // migrations run as the embedded PostgreSQL's superuser (openDatabase), never as the application role
  const db = await openDatabase(config, logger);
  try {
    const { applied } = db;
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await db.close();
  }
}

main().catch((e) => {
  process.stderr.write(
    (e instanceof ConfigError ? `configuration error: ${e.message}` : e instanceof Error ? e.message : String(e)) + '\n',
  );
  process.exit(1);
});
