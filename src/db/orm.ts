import { MikroORM, Options, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import { ALL_ENTITIES } from '../entities';

const isTs = __filename.endsWith('.ts');
/** Repository root, whether running from sources (ts-jest) or from dist/. */
export const ROOT_DIR = path.resolve(__dirname, isTs ? '../..' : '../../..');

export function ormOptions(url: string, opts: { poolMax?: number; debug?: boolean } = {}): Options {
  return {
    driver: PostgreSqlDriver,
    clientUrl: url,
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    debug: opts.debug ?? false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    // fail fast instead of hanging when the database is unreachable
    pool: { min: 0, max: opts.poolMax ?? 20, acquireTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 },
    driverOptions: { connection: { connectionTimeoutMillis: 5_000, statement_timeout: 60_000 } },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: path.join(ROOT_DIR, isTs ? 'migrations' : 'dist/migrations'),
      // same place either way: MikroORM may think it runs under TS (e.g. JEST_WORKER_ID in the env)
      pathTs: path.join(ROOT_DIR, isTs ? 'migrations' : 'dist/migrations'),
      glob: isTs ? '!(*.d).ts' : '!(*.d).js',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
  };
}

export async function createOrm(url: string, opts: { poolMax?: number; debug?: boolean } = {}): Promise<MikroORM> {
  return MikroORM.init(ormOptions(url, opts));
}

export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
