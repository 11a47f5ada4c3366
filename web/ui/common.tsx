import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { onLinkClick } from '../lib/router';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` on mount and whenever `deps` change; the latest answer wins. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const ctl = new AbortController();
    setLoading(true);
    loadRef.current(ctl.signal).then(
      (d) => {
        if (ctl.signal.aborted) return;
        setData(d);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (ctl.signal.aborted) return;
        setError(messageOf(e));
        setLoading(false);
      },
    );
    return () => ctl.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  return 'Something went wrong';
}

/** Runs an action, keeping its busy flag and error in state. */
export function useAction(): { busy: boolean; error: string | null; run: (fn: () => Promise<void>) => Promise<void>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(null) };
}

export function ErrorText({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p className="error" role="alert">
      {children}
    </p>
  );
}

export function Link({ to, children, className, current }: { to: string; children: ReactNode; className?: string; current?: boolean }) {
  return (
    <a href={to} className={className} aria-current={current ? 'page' : undefined} onClick={(e) => onLinkClick(e, to)}>
      {children}
    </a>
  );
}

export const TIER_LABEL: Record<string, string> = { use: 'Can ask', edit: 'Can edit', full: 'Full access' };

export function sourceLabel(source: string): string {
  switch (source) {
    case 'platform':
      return 'platform role';
    case 'public':
      return 'open to everyone';
    case 'owner':
      return 'you own it';
    case 'user':
      return 'granted to you';
    case 'group':
      return 'through a group';
    case 'department':
      return 'through your department';
    default:
      return source;
  }
}

/** A screen whose subject could not be read: what it is, why, and the way back. */
export function LoadFailed({ title, error, backTo, back }: { title: string; error: string; backTo: string; back: string }) {
  return (
    <section>
      <h1>{title}</h1>
      <ErrorText>{error}</ErrorText>
      <Link to={backTo}>{back}</Link>
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** Names the tab after the screen (`<title> · DocQA`) once the title is known. */
export function useTitle(title: string | null | undefined): void {
  useEffect(() => {
    if (title) document.title = `${title} · DocQA`;
  }, [title]);
}
