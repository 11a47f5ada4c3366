/**
 * pg-boss keeps its tables in this schema of the application's database: the job host opens its
 * queues there, the embedded cluster hands it to the application role, metrics count its jobs.
 */
export const JOBS_SCHEMA = 'pgboss';
