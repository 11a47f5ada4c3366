import 'reflect-metadata';
import { ConfigError, loadConfig } from './config';
import { compose, stopOnSignals } from './composition';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`configuration error: ${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  const rt = await compose(config, { role: 'server' });
  await rt.start();
  stopOnSignals(rt);
}

main().catch((e) => {
  process.stderr.write(`startup failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
