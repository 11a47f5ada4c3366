import { paginate } from '../paginate';
import type { ParsedPage } from '../types';
import { decodeText } from './text';

/**
 * Markdown to plain paragraphs: markup that would pollute the index (link targets, emphasis
 * markers, heading hashes, fences, HTML tags, table rules) goes; the words stay, and so do the
 * blank lines that separate paragraphs. Then the form-feed / 3,000-character page rule applies.
 */
export function markdownToText(md: string): string {
  return md
    .replace(/\r\n?/g, '\n')
    .replace(/^```[^\n]*$/gm, '') // code fences (their content is kept as text)
    .replace(/^~~~[^\n]*$/gm, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images → alt text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1') // links → their text
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1') // reference links
    .replace(/^[ \t]{0,3}\[[^\]]+\]:[ \t]+\S+.*$/gm, '') // link definitions
    .replace(/<\/?[a-zA-Z][^>]*>/g, '') // inline HTML tags
    .replace(/^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/gm, '$1') // ATX headings
    .replace(/^[ \t]{0,3}(=+|-+)[ \t]*$/gm, '') // setext underlines and horizontal rules
    .replace(/^[ \t]{0,3}[*_]{3,}[ \t]*$/gm, '')
    .replace(/^[ \t]*\|?([ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$/gm, '') // table separator rows
    .replace(/^([ \t]*)\|(.*)\|[ \t]*$/gm, (_m, indent: string, row: string) => indent + row.split('|').map((c) => c.trim()).join(' | '))
    .replace(/^[ \t]{0,3}>[ \t]?/gm, '') // blockquotes
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2') // bold
    .replace(/(^|[\s(])([*_])(?=\S)([^*_\n]*?\S)\2(?=[\s).,;:!?]|$)/g, '$1$3') // italics
    .replace(/`([^`\n]+)`/g, '$1'); // inline code
}

export function parseMarkdown(buf: Buffer): ParsedPage[] {
  return paginate(markdownToText(decodeText(buf)));
}
