import { randomInt } from 'node:crypto';
import type { Config } from './config';
import type { Logger } from './logger';
import type { Services } from './services';

/** The superadmin a development instance creates for itself on first start. */
export const DEV_ADMIN_EMAIL = 'admin@localhost';
const DEV_ADMIN_PASSWORD_LENGTH = 20;
// no look-alikes (0/O, 1/l/I), so the password survives being read off a screen
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

const BOOTSTRAP_HELP = [
  "npm run bootstrap -- --email you@example.com --password '<at least 8 characters>' --name 'Your Name'",
  'or start with BOOTSTRAP_SUPERADMIN_EMAIL and BOOTSTRAP_SUPERADMIN_PASSWORD set',
];

export type BootstrapState = 'environment' | 'created' | 'bootstrapped' | 'not_bootstrapped';

function randomPassword(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return s;
}

/** A box drawn around lines, so that it stands out among log lines. */
export function box(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length));
  const bar = '─'.repeat(width + 2);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${bar}┘`].join('\n') + '\n';
}

/**
 * Makes sure someone can sign in. BOOTSTRAP_* from the environment win; otherwise, outside
 * production, a platform nobody has bootstrapped gets the superadmin admin@localhost with a random
 * password, printed once to `console` (never logged: log lines are shipped and kept, the console
 * is the operator's). In production nothing is created; the operator is told how to bootstrap.
 */
export async function bootstrapOnFirstStart(
  config: Config,
  services: Services,
  logger: Logger,
  console: { write(s: string): unknown },
): Promise<BootstrapState> {
  const b = config.bootstrap;
  if (b.superadminEmail || b.superadminPassword) {
    if (!b.superadminEmail || !b.superadminPassword) {
      throw new Error('BOOTSTRAP_SUPERADMIN_EMAIL and BOOTSTRAP_SUPERADMIN_PASSWORD must be set together');
    }
    const ceo = b.ceoEmail && b.ceoPassword ? { email: b.ceoEmail, password: b.ceoPassword, name: b.ceoName ?? 'CEO' } : undefined;
    const result = await services.bootstrap.bootstrap(
      { email: b.superadminEmail, password: b.superadminPassword, name: b.superadminName ?? 'Superadmin' },
      ceo,
    );
    logger.info({ result }, 'bootstrap from environment');
    return 'environment';
  }
  if (await services.bootstrap.isBootstrapped()) return 'bootstrapped';
  if (config.nodeEnv === 'production') {
    logger.warn(
      { howTo: BOOTSTRAP_HELP },
      `the platform is not bootstrapped: every login answers 503 not_bootstrapped until you run ${BOOTSTRAP_HELP[0]} (${BOOTSTRAP_HELP[1]})`,
    );
    return 'not_bootstrapped';
  }
  const password = randomPassword(DEV_ADMIN_PASSWORD_LENGTH);
  const result = await services.bootstrap.bootstrap({ email: DEV_ADMIN_EMAIL, password, name: 'Administrator' });
  // another process on the same database may have bootstrapped first; then it printed the password
  if (result.superadmin !== 'created') return 'bootstrapped';
  console.write(
    '\n' +
      box([
        'First start: a superadmin was created for you.',
        '',
        `  email:    ${DEV_ADMIN_EMAIL}`,
        `  password: ${password}`,
        '',
        'Copy the password now: it will not be shown again',
        '(only its bcrypt hash is stored).',
      ]) +
      '\n',
  );
  logger.info({ email: DEV_ADMIN_EMAIL }, 'first start: superadmin created (credentials printed on the console)');
  return 'created';
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`. */
export function maskUrlPassword(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export interface BannerFacts {
  baseUrl: string;
  /** The language model chat uses when a project names none, or why there is none. */
  chatModel: { ok: true; label: string; via: string } | { ok: false; reason: string };
  bootstrap: BootstrapState;
  /** Optional pages served by this instance, e.g. `{ 'API reference': '/api/docs' }`, when they are on. */
  pages?: Record<string, string>;
}

/** The start-up banner: where everything is, and what still needs configuring. */
export function startupBanner(config: Config, facts: BannerFacts): string {
  const u = facts.baseUrl;
  const lines = [
    `DocQA is ready`,
    ...(config.webApp ? [`  web app        ${u}/   (open it in a browser: sign in, upload, ask)`] : []),
    `  REST API       ${u}/api`,
    `  GraphQL        ${u}/graphql${config.graphqlPlayground ? '   (open it in a browser: the playground)' : ''}`,
    ...Object.entries(facts.pages ?? {}).map(([name, path]) => `  ${name.padEnd(14)} ${u}${path}`),
    `  health         ${u}/healthz   ${u}/readyz`,
    `  data           ${config.databaseUrl ? maskUrlPassword(config.databaseUrl) : `embedded PostgreSQL in ${config.dataDir}`}`,
  ];
  if (facts.chatModel.ok) {
    lines.push(`  chat model     ${facts.chatModel.label} (${facts.chatModel.via})`);
  } else {
    lines.push(
      `  chat model     NONE: chat answers end with LLM_API_ERROR until you configure one:`,
      `                 - add a provider (${config.webApp ? `in the web app at ${u}/models, ` : ''}POST /api/providers, or the createProvider mutation in the playground), or`,
      `                 - set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL (e.g. a local Ollama: LLM_BASE_URL=http://localhost:11434/v1)`,
    );
  }
  lines.push(
    `  web search     ${config.searchApiKey ? `on (${config.searchApiUrl})` : 'off (set SEARCH_API_KEY to enable the web and deep chat modes)'}`,
  );
  if (facts.bootstrap === 'not_bootstrapped') {
    lines.push(
      `  sign-in        NOT BOOTSTRAPPED: logins answer 503 until you run`,
      `                 ${BOOTSTRAP_HELP[0]}`,
      `                 ${BOOTSTRAP_HELP[1]}`,
    );
  }
  return lines.join('\n');
}

/** What the banner says about chat's model, from the provider resolution chat itself uses. */
export async function describeChatModel(services: Services): Promise<BannerFacts['chatModel']> {
  const t = await services.providers.resolveForChat({});
  if (!t.ok) return { ok: false, reason: t.reason };
  return { ok: true, label: t.label, via: t.providerId ? 'provider' : 'LLM_BASE_URL' };
}
