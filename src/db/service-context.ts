import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RequestContext } from '@mikro-orm/core';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Metrics } from '../observability/metrics';
import { scopedLogger } from '../observability/request-context';

/** What every service is built from. */
export interface ServiceContext {
  orm: MikroORM;
  config: Config;
  logger: Logger;
  /** Aborted when the process begins a graceful shutdown; long-lived streams end on it. */
  shutdown: AbortSignal;
  /** The process's Prometheus instruments (createServices makes a registry when none is given). */
  metrics: Metrics;
}

/** Base for services: the request's EntityManager (RequestContext), or a fresh fork outside one. */
export abstract class BaseService {
  constructor(protected readonly ctx: ServiceContext) {}

  protected em(): EntityManager {
    return (RequestContext.getEntityManager() as EntityManager | undefined) ?? this.ctx.orm.em.fork();
  }

  /** A fresh EntityManager, for long-lived work (streams, jobs) that must not share the request's identity map. */
  protected freshEm(): EntityManager {
    return this.ctx.orm.em.fork();
  }

  protected get config(): Config {
    return this.ctx.config;
  }

  /** The current request's (or job's) child logger, so every line carries its id. */
  protected get logger(): Logger {
    return scopedLogger(this.ctx.logger);
  }

  protected get metrics(): Metrics {
    return this.ctx.metrics;
  }
}
