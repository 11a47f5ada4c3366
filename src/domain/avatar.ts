import { createHash } from 'node:crypto';

const PALETTE = [
  '#ef4444',
  '#f97316',
  '#f59e0b',
  '#84cc16',
  '#10b981',
  '#14b8a6',
  '#06b6d4',
  '#3b82f6',
  '#6366f1',
  '#8b5cf6',
  '#d946ef',
  '#ec4899',
];

/** A stable avatar colour derived from the email. */
export function avatarColorFor(email: string): string {
  const h = createHash('sha1').update(email.toLowerCase()).digest();
  return PALETTE[h[0] % PALETTE.length];
}
