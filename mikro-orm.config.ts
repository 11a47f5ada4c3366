// Configuration for the MikroORM CLI (`npx mikro-orm migration:create`, run after `npm run build`).
// It needs DATABASE_URL; start the embedded database first if you use it.
import { ormOptions } from './src/db/orm';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must be set for the MikroORM CLI');
const options = ormOptions(url);
options.migrations = { ...options.migrations, path: './migrations', pathTs: './migrations', glob: '!(*.d).{js,ts}' };
export default options;
