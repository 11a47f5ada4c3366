import type { Storage } from '@graphiql/toolkit';

/**
 * GraphiQL's storage (tabs, history, favourites, layout) with every request's headers left out.
 * GraphiQL's history plugin saves each operation with its headers and ignores
 * `shouldPersistHeaders`, and the tab state carries headers too: whatever a user types into the
 * headers editor (an `Authorization: Bearer …` of their own included) would outlive the tab. Here
 * a `headers` field never reaches localStorage, and the headers editor's own key is never written.
 */
const PREFIX = 'graphiql:';
const HEADERS_KEY = `${PREFIX}headers`;

/** The value with every `headers` field emptied (values that are not JSON are kept as they are). */
function withoutHeaders(value: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  if (typeof parsed !== 'object' || parsed === null) return value;
  return JSON.stringify(parsed, (key, v: unknown) => (key === 'headers' ? null : v));
}

const ownKeys = (): string[] => Object.keys(localStorage).filter((k) => k.startsWith(PREFIX));

export const headerlessStorage: Storage = {
  getItem: (key) => localStorage.getItem(key),
  setItem(key, value) {
    if (key === HEADERS_KEY) localStorage.removeItem(key);
    else localStorage.setItem(key, withoutHeaders(value));
  },
  removeItem: (key) => localStorage.removeItem(key),
  clear() {
    for (const k of ownKeys()) localStorage.removeItem(k);
  },
  get length() {
    return ownKeys().length;
  },
};

/** Rewrites what earlier versions stored (history entries with `Authorization: Bearer …`) without headers. */
export function scrubStoredHeaders(): void {
  try {
    for (const k of ownKeys()) {
      const v = localStorage.getItem(k);
      if (v !== null) headerlessStorage.setItem(k, v);
    }
  } catch {
    // storage disabled: nothing stored to scrub
  }
}
