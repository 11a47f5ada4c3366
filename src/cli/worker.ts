import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config';
import { compose, stopOnSignals } from '../composition';

/**
 * `npm run worker`: ingestion workers without the HTTP server, for scaling ingestion out. Any
 * number of these (and of in-process workers) share the pg-boss queue in the same database.
 * SIGTERM/SIGINT stop taking jobs, let running ones finish within SHUTDOWN_GRACE_MS, and hand
 * the rest back to the queue for a retry.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const worker = await compose(config, { role: 'worker' });
  await worker.start();

  stopOnSignals(worker);
}

main().catch((e) => {
  process.stderr.write(
    (e instanceof ConfigError ? `configuration error: ${e.message}` : `worker failed: ${e instanceof Error ? e.message : String(e)}`) +
      '\n',
  );
  process.exit(1);
});
