/**
 * `text` with its whitespace collapsed, and when longer than `max` characters, cut to at most `max`
 * and ended with "…": at the last word boundary when that keeps at least `minWordCut` characters,
 * else mid-word.
 */
export function cutAtWord(text: string, max: number, minWordCut: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${space >= minWordCut ? cut.slice(0, space) : cut}…`;
}
