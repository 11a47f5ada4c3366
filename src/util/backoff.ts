/**
 * Keys (an upstream model) that failed recently: while one is backing off, callers skip it instead
 * of each waiting for it to fail again. A success clears it.
 */
export class Backoff {
  private readonly until = new Map<string, number>();

  constructor(private readonly ms: number) {}

  active(key: string): boolean {
    return (this.until.get(key) ?? 0) > Date.now();
  }

  failed(key: string): void {
    this.until.set(key, Date.now() + this.ms);
  }

  succeeded(key: string): void {
    this.until.delete(key);
  }

  /** Forgets every failure. */
  clear(): void {
    this.until.clear();
  }
}
