import 'reflect-metadata';
import { ConfigError, loadConfig } from './config';
import { startRuntime } from './runtime';

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
  const rt = await startRuntime(config);
  let signalled = false;
  const onSignal = (sig: string) => {
    if (signalled) return;
    signalled = true;
    rt.logger.info({ signal: sig }, 'signal received');
    rt.shutdown().then(
      () => process.exit(0),
      (e) => {
        rt.logger.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

main().catch((e) => {
  process.stderr.write(`startup failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
