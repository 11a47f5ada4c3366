import { AuthService } from './auth.service';
import { AuditService } from './audit.service';
import { BootstrapService } from './bootstrap.service';
import { ChatService } from './chat.service';
import { INGEST_DEAD_QUEUE, INGEST_QUEUE, JOBS_SCHEMA } from '../ingest/pipeline/queues';
import { databaseSources } from '../observability/collectors';
import { createMetrics } from '../observability/metrics';
import type { ServiceContext } from './context';
import { ConversationsService } from './conversations.service';
import { DepartmentsService } from './departments.service';
import { DeploymentSecrets } from './deployment-secrets';
import { DocumentsService } from './documents.service';
import { EmbeddingsService } from './embeddings.service';
import { GrantsService } from './grants.service';
import { GroupsService } from './groups.service';
import { ProjectsService } from './projects.service';
import { ProvidersService } from './providers.service';
import { RerankService } from './rerank.service';
import { RetrievalService } from './retrieval.service';
import { UsersService } from './users.service';

/** Every service, built once per process; REST and GraphQL call the same instances. */
export interface Services {
  ctx: ServiceContext;
  /** JWT secret and provider-key encryption key, shared by every node (loaded by start()). */
  secrets: DeploymentSecrets;
  auth: AuthService;
  bootstrap: BootstrapService;
  users: UsersService;
  departments: DepartmentsService;
  groups: GroupsService;
  projects: ProjectsService;
  grants: GrantsService;
  audit: AuditService;
  providers: ProvidersService;
  documents: DocumentsService;
  retrieval: RetrievalService;
  embeddings: EmbeddingsService;
  chat: ChatService;
  conversations: ConversationsService;
  /** Starts background work (ingestion workers) when configured. */
  start(opts?: { workers?: boolean }): Promise<void>;
  /** Stops background work; in-flight jobs are left to be picked up again. */
  stop(): Promise<void>;
}

export function createServices(input: Omit<ServiceContext, 'metrics'> & { metrics?: ServiceContext['metrics'] }): Services {
  const ctx: ServiceContext = { ...input, metrics: input.metrics ?? createMetrics() };
  // dependencies are passed explicitly, in construction order: no service reaches into a container
  const secrets = new DeploymentSecrets(ctx);
  const audit = new AuditService(ctx);
  const providers = new ProvidersService(ctx, secrets);
  const embeddings = new EmbeddingsService(ctx, providers);
  const retrieval = new RetrievalService(ctx, embeddings, new RerankService(ctx, providers));
  const documents = new DocumentsService(ctx, embeddings);
  const s: Services = {
    ctx,
    secrets,
    auth: new AuthService(ctx, secrets),
    bootstrap: new BootstrapService(ctx),
    users: new UsersService(ctx, audit),
    departments: new DepartmentsService(ctx, audit),
    groups: new GroupsService(ctx, audit),
    projects: new ProjectsService(ctx, audit),
    grants: new GrantsService(ctx, audit),
    audit,
    providers,
    documents,
    retrieval,
    embeddings,
    chat: new ChatService(ctx, { providers, retrieval }),
    conversations: new ConversationsService(ctx),
    async start(opts = {}) {
      await s.secrets.load();
      const workers = opts.workers ?? ctx.config.runWorkers;
      await documents.start({ workers });
      // the embedding stage runs on the document pipeline's job host (one pg-boss per process)
      await embeddings.start({ workers, jobs: documents.pipeline.jobs });
    },
    async stop() {
      // the job host stops every job kind (embedding included), then the vector threads close
      await documents.stop();
      await embeddings.stop();
      await s.auth.close();
    },
  };
  ctx.metrics.watch(
    databaseSources(ctx.orm, { queues: [INGEST_QUEUE, INGEST_DEAD_QUEUE], jobsSchema: JOBS_SCHEMA, authPool: () => s.auth.poolStats() }),
  );
  return s;
}
