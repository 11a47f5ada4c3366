import { useState } from 'react';
import type { DocumentInfo } from '../lib/types';
import { useSession } from '../session';
import { ErrorText } from './common';

/** Downloads the original with the session's token (a plain link could not carry it). */
export function DownloadButton({ doc }: { doc: DocumentInfo }) {
  const { api } = useSession();
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    try {
      const res = await api.fetch(`/documents/${encodeURIComponent(doc.id)}/original`);
      if (!res.ok) throw new Error(`The server answered ${res.status}`);
      const url = URL.createObjectURL(await res.blob());
      const a = Object.assign(document.createElement('a'), { href: url, download: doc.name });
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <>
      <button type="button" onClick={() => void download()}>
        Download original
      </button>
      <ErrorText>{error}</ErrorText>
    </>
  );
}
