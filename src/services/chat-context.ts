import type { Actor } from '../access/actor';
import type { Config } from '../config';
import type { ContextItem } from '../llm/prompt';
import { webSearch } from '../llm/search-client';
import type { ChatTimings } from '../presenters/chat-event.presenter';
import type { ChatMode } from './chat.inputs';
import type { SearchWing } from '../search';

/** Web results given to the model per search depth. */
const WEB_RESULTS = { basic: 5, advanced: 8 } as const;

/**
 * What the model answers from in `docs` mode: the project's best chunks for the question, read on
 * the caller's behalf. Chat has checked `use` on the project for this question (`checked`), so the
 * wing does not check it again. Their number is the project's settings.topK (the wing applies it).
 */
export async function documentContext(
  search: SearchWing,
  actor: Actor,
  projectId: string,
  question: string,
  timings: ChatTimings,
): Promise<ContextItem[]> {
  const hits = await search.search(actor, projectId, question, { timings, checked: { id: projectId } });
  return hits.map((h) => ({
    id: h.chunkId,
    documentId: h.documentId,
    documentName: h.documentName,
    pageNumber: h.pageNumber,
    text: h.text,
  }));
}

/** What the model answers from in `web` and `deep` mode: web search results (deep searches deeper). */
export async function webContext(config: Config, question: string, mode: ChatMode, signal: AbortSignal): Promise<ContextItem[]> {
  const depth = mode === 'deep' ? 'advanced' : 'basic';
  const results = await webSearch(
    { baseUrl: config.searchApiUrl, apiKey: config.searchApiKey ?? '' },
    { query: question, depth, maxResults: WEB_RESULTS[depth] },
    { signal, timeoutMs: Math.min(config.upstreamTimeoutMs, 60_000) },
  );
  // DESIGN: web sources are {id: "web-N", documentId: url, documentName: title, pageNumber: 1, snippet, url}
  return results.map((r, i) => ({
    id: `web-${i + 1}`,
    documentId: r.url,
    documentName: r.title,
    pageNumber: 1,
    text: r.content,
    url: r.url,
  }));
}
