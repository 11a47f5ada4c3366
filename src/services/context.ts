import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RequestContext } from '@mikro-orm/core';
import type { Config } from '../config';
import type { Logger } from '../logger';

/** What every service is built from. */
export interface ServiceContext {
  orm: MikroORM;
  config: Config;
  logger: Logger;
  /** Aborted when the process begins a graceful shutdown; long-lived streams end on it. */
  shutdown: AbortSignal;
}

/** Base for services: the request's EntityManager (RequestContext), or a fresh fork outside one. */
export abstract class BaseService {
  constructor(protected readonly ctx: ServiceContext) {}

  protected em(): EntityManager {
    return ((RequestContext.getEntityManager() as EntityManager | undefined) ?? this.ctx.orm.em.fork());
  }

  /** A fresh EntityManager, for long-lived work (streams, jobs) that must not share the request's identity map. */
  protected freshEm(): EntityManager {
    return this.ctx.orm.em.fork();
  }

  protected get config(): Config {
    return this.ctx.config;
  }

  protected get logger(): Logger {
    return this.ctx.logger;
  }
}
