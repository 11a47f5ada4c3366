import { randomBytes } from 'node:crypto';
import pg from 'pg';

const TEMPLATE_DB = 'docqa_template';

/** Creates a fresh database cloned from the migrated template; returns its URL and a dropper. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_ADMIN_URL is not set (jest globalSetup did not run)');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`create database ${name} template ${TEMPLATE_DB}`);
  } finally {
    await c.end();
  }
  const url = adminUrl.replace(/\/postgres$/, `/${name}`);
  return {
    url,
    name,
    drop: async () => {
      const d = new pg.Client({ connectionString: adminUrl });
      await d.connect();
      try {
        await d.query(`drop database if exists ${name} with (force)`);
      } finally {
        await d.end();
      }
    },
  };
}
