import pino, { Logger } from 'pino';
import pretty from 'pino-pretty';

/** Paths that may carry secrets; they are censored in every log line. */
export const REDACT_PATHS = [
  'password',
  '*.password',
  'passwordHash',
  '*.passwordHash',
  'apiKey',
  '*.apiKey',
  'apiKeyEnc',
  '*.apiKeyEnc',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'jwtSecret',
  '*.jwtSecret',
  'encryptionKey',
  '*.encryptionKey',
  'llmApiKey',
  '*.llmApiKey',
  'searchApiKey',
  '*.searchApiKey',
];

/** `json`: one JSON object per line (production, log shippers); `pretty`: coloured lines for a terminal. */
export type LogFormat = 'json' | 'pretty';

export function createLogger(level: string, destination?: pino.DestinationStream, format: LogFormat = 'json'): Logger {
  // pretty printing runs synchronously on the main thread (no transport worker), so lines keep their
  // order with anything else written to the console, such as the first-run credentials box
  const dest =
    destination ??
    (format === 'pretty'
      ? pretty({ sync: true, colorize: true, ignore: 'pid,hostname,service', translateTime: 'SYS:HH:MM:ss' })
      : undefined);
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'docqa' } }, dest);
}

export type { Logger };
