import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config';
import { compose } from '../composition';
import { AppError } from '../errors';

const USAGE = 'usage: npm run bootstrap -- --email E --password P --name N [--ceo-email E --ceo-password P --ceo-name N]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      'ceo-email': { type: 'string' },
      'ceo-password': { type: 'string' },
      'ceo-name': { type: 'string' },
    },
    strict: true,
  });
  if (!values.email || !values.password || !values.name) throw new Error(USAGE);
  const hasCeo = values['ceo-email'] || values['ceo-password'] || values['ceo-name'];
  if (hasCeo && (!values['ceo-email'] || !values['ceo-password'] || !values['ceo-name'])) throw new Error(USAGE);
  const config = loadConfig(undefined, { logLevel: 'warn' });
  const cli = await compose(config, { role: 'cli' });
  try {
    await cli.start();
    const result = await cli.services.bootstrap.bootstrap(
      { email: values.email, password: values.password, name: values.name },
      hasCeo ? { email: values['ceo-email']!, password: values['ceo-password']!, name: values['ceo-name']! } : undefined,
    );
    process.stdout.write(`superadmin: ${result.superadmin}; ceo: ${result.ceo}\n`);
  } finally {
    await cli.stop();
  }
}

main().catch((e) => {
  const msg =
    e instanceof ConfigError
      ? `configuration error: ${e.message}`
      : e instanceof AppError
        ? `bootstrap failed: ${e.message}`
        : e instanceof Error
          ? e.message
          : String(e);
  process.stderr.write(msg + '\n');
  process.exit(1);
});
