/**
 * Answers as Markdown (lists, tables, code, emphasis, links) with markdown-it. The model's text is
 * untrusted: `html: false` makes any HTML in it literal text (a `<script>` shows as written), link
 * targets go through markdown-it's validateLink (no javascript:, vbscript:, file: or non-image
 * data:), and every link opens in a new tab with `rel="noopener noreferrer"`. Citation markers `[n]`
 * (also `[1, 2]`) become the same links the plain-text answer had, when the answer has that source;
 * otherwise they stay plain text.
 */
import MarkdownIt from 'markdown-it';
import { splitCitations } from './citations';

/** What a citation marker links to: its accessible name (or null when the answer has no such source). */
export type CiteLabel = (n: number) => string | null;

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
type StateCore = Parameters<Parameters<typeof md.core.ruler.push>[1]>[0];
type Token = StateCore['tokens'][number];

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx].attrSet('target', '_blank');
  tokens[idx].attrSet('rel', 'noopener noreferrer');
  return self.renderToken(tokens, idx, options);
};

md.renderer.rules.citation = (tokens, idx, _options, env: { cite?: CiteLabel }) => {
  const n = Number(tokens[idx].content);
  const label = env.cite?.(n) ?? null;
  if (label === null) return `[${n}]`;
  return `<a href="#source-${n}" class="cite" data-cite="${n}" aria-label="${md.utils.escapeHtml(label)}">[${n}]</a>`;
};

/** Splits text tokens (outside links and code) into text and citation tokens. */
function citations(state: StateCore): void {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let inLink = 0;
    for (const t of block.children) {
      if (t.type === 'link_open') inLink++;
      if (t.type === 'link_close') inLink--;
      if (t.type !== 'text' || inLink > 0 || !/\[\d/.test(t.content)) {
        out.push(t);
        continue;
      }
      for (const part of splitCitations(t.content)) {
        const token = new state.Token(part.kind === 'text' ? 'text' : 'citation', '', 0);
        token.content = part.kind === 'text' ? part.text : String(part.n);
        out.push(token);
      }
    }
    block.children = out;
  }
}
md.core.ruler.push('citations', citations);

/** The answer's Markdown as HTML that is safe to insert (no HTML of the model's survives as markup). */
export function renderMarkdown(text: string, cite?: CiteLabel): string {
  return md.render(text, { cite });
}
