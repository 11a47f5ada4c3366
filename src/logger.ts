import pino, { Logger } from 'pino';

/** Paths that may carry secrets; they are censored in every log line. */
export const REDACT_PATHS = [
  'password', '*.password', 'passwordHash', '*.passwordHash',
  'apiKey', '*.apiKey', 'apiKeyEnc', '*.apiKeyEnc',
  'accessToken', '*.accessToken', 'refreshToken', '*.refreshToken', 'token', '*.token',
  'authorization', '*.authorization', 'req.headers.authorization', 'req.headers.cookie',
  'headers.authorization', 'jwtSecret', '*.jwtSecret', 'llmApiKey', '*.llmApiKey', 'searchApiKey', '*.searchApiKey',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'docqa' } }, destination);
}

export type { Logger };
