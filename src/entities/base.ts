import { randomUUID } from 'node:crypto';

export * from '../domain/values';

export const newId = (): string => randomUUID();
