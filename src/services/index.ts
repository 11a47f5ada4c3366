import { Login } from '../auth/login';
import { SingleSignOn } from '../auth/oidc';
import { AuthPool } from '../auth/pool';
import { Tokens } from '../auth/tokens';
import { AuditService } from './audit.service';
import { BootstrapService } from './bootstrap.service';
import { ChatModelService } from './chat-model.service';
import { ChatService } from './chat.service';
import { ChatJournal } from './chat-journal';
import { INGEST_DEAD_QUEUE, INGEST_QUEUE } from '../ingest/pipeline/queues';
import { JOBS_SCHEMA } from '../db/schemas';
import { databaseSources } from '../db/metric-sources';
import { createMetrics } from '../observability/metrics';
import type { ServiceContext } from '../db/service-context';
import { ConversationsService } from './conversations.service';
import { DepartmentsService } from './departments.service';
import { DeploymentSecrets } from '../auth/deployment-secrets';
import { DocumentProgressService } from './document-progress.service';
import { DocumentsService } from './documents.service';
import { OriginalsService } from './originals.service';
import { DocumentTextService } from './document-text.service';
import { FeedbackService } from './feedback.service';
import { GrantsService } from './grants.service';
import { GroupsService } from './groups.service';
import { KeysService } from './keys.service';
import { LiveAccessService } from './live-access.service';
import { ProjectsService } from './projects.service';
import { ProvidersService } from './providers.service';
import { SearchWing } from '../search';
import { UsersService } from './users.service';

/** Every service, built once per process; REST and GraphQL call the same instances. */
export interface Services {
  ctx: ServiceContext;
  /** JWT secret and provider-key encryption key, shared by every node (loaded by start()). */
  secrets: DeploymentSecrets;
  /** Access and refresh tokens: sign, verify (authenticate), rotate, revoke. */
  tokens: Tokens;
  /** The login use case and its limits. */
  login: Login;
  /** Single sign-on with OpenID Connect (when configured). */
  sso: SingleSignOn;
  /** Keys for programs: create, list, revoke (authenticated by `tokens`). */
  keys: KeysService;
  bootstrap: BootstrapService;
  users: UsersService;
  departments: DepartmentsService;
  groups: GroupsService;
  projects: ProjectsService;
  grants: GrantsService;
  audit: AuditService;
  providers: ProvidersService;
  documents: DocumentsService;
  /** Documents' stored originals, served to readers (GET /documents/:id/original). */
  originals: OriginalsService;
  /** Converted documents' text, for the reader view (GET /documents/:id/text). */
  documentText: DocumentTextService;
  /** The search wing (src/search): index, forget, search, reindex; the knowledge side's only door. */
  search: SearchWing;
  chat: ChatService;
  /** The record of chat answers' events, for resuming a stream on any node (issue 38). */
  journal: ChatJournal;
  conversations: ConversationsService;
  /** Thumbs up or down on answers, and the admins' list per project. */
  feedback: FeedbackService;
  /** The model chat uses by default, or none. */
  chatModel: ChatModelService;
  /** Open streams (chat, subscriptions) and the access changes that end them (issue 25). */
  live: LiveAccessService;
  /** A document's ingestion progress as a live stream. */
  progress: DocumentProgressService;
  /** Starts background work (ingestion workers) when configured, and (`live`, default true) the live-stream access listener. */
  start(opts?: { workers?: boolean; live?: boolean }): Promise<void>;
  /** Stops background work; in-flight jobs are left to be picked up again. */
  stop(): Promise<void>;
}

export function createServices(input: Omit<ServiceContext, 'metrics'> & { metrics?: ServiceContext['metrics'] }): Services {
  const ctx: ServiceContext = { ...input, metrics: input.metrics ?? createMetrics() };
  // dependencies are passed explicitly, in construction order: no service reaches into a container
  const secrets = new DeploymentSecrets(ctx);
  const audit = new AuditService(ctx);
  const providers = new ProvidersService(ctx, secrets);
  const search = new SearchWing(ctx, providers);
  const documents = new DocumentsService(ctx, search);
  const authPool = new AuthPool(ctx);
  const tokens = new Tokens(ctx, secrets, authPool);
  const live = new LiveAccessService(ctx);
  const journal = new ChatJournal(ctx);
  const conversations = new ConversationsService(ctx);
  const s: Services = {
    ctx,
    secrets,
    tokens,
    login: new Login(ctx, tokens, authPool),
    sso: new SingleSignOn(ctx, tokens, secrets),
    keys: new KeysService(ctx, audit),
    bootstrap: new BootstrapService(ctx),
    users: new UsersService(ctx, audit),
    departments: new DepartmentsService(ctx, audit),
    groups: new GroupsService(ctx, audit),
    projects: new ProjectsService(ctx, audit, search),
    grants: new GrantsService(ctx, audit),
    audit,
    providers,
    documents,
    originals: new OriginalsService(ctx),
    documentText: new DocumentTextService(ctx, documents.pipeline),
    search,
    chat: new ChatService(ctx, { providers, search, live, journal }),
    journal,
    conversations,
    feedback: new FeedbackService(ctx, conversations),
    chatModel: new ChatModelService(ctx, providers),
    live,
    progress: new DocumentProgressService(ctx, { documents, live }),
    // THE start and stop order of the process's background parts (compose() calls these two and
    // nothing else starts or stops them): secrets; the document pipeline's job host; live streams;
    // the search wing on that host. Stopping: the job host (every job kind, embedding included)
    // and the live listeners, then the wing's vector index thread, then the auth pool.
    async start(opts = {}) {
      await s.secrets.load();
      const workers = opts.workers ?? ctx.config.runWorkers;
      await documents.start({ workers });
      // only processes that serve streams listen for access changes
      if (opts.live ?? true) await Promise.all([live.start(), journal.start()]);
      // processes that answer questions rebuild their vector indexes in the background
      await search.start({ workers, jobs: documents.pipeline.jobs, warm: opts.live ?? true });
    },
    async stop() {
      await Promise.all([documents.stop(), live.stop(), journal.stop()]);
      await search.stop();
      await authPool.close();
    },
  };
  ctx.metrics.watch(
    databaseSources(ctx.orm, { queues: [INGEST_QUEUE, INGEST_DEAD_QUEUE], jobsSchema: JOBS_SCHEMA, authPool: () => authPool.stats() }),
  );
  return s;
}
