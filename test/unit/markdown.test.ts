import { renderMarkdown } from '../../web/lib/markdown';

/** The web app's Markdown for answers (web/lib/markdown.ts): the model's text is untrusted. */
const cite = (n: number) => (n <= 2 ? `Source ${n}: a.pdf, page ${n}` : null);

describe('answers as Markdown', () => {
  it('renders lists, tables, code and emphasis', () => {
    const html = renderMarkdown('- **one**\n- *two*\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode()\n```\n');
    expect(html).toContain('<li><strong>one</strong></li>');
    expect(html).toContain('<em>two</em>');
    expect(html).toMatch(/<table>[\s\S]*<td>1<\/td>/);
    expect(html).toContain('<pre><code>code()\n</code></pre>');
  });

  it('never renders the model’s HTML as markup', () => {
    const html = renderMarkdown('Hi <script>alert(1)</script> <img src=x onerror=alert(2)>\n\n<div onclick="x()">block</div>');
    expect(html).not.toMatch(/<script|<img|<div/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;div onclick=&quot;x()&quot;&gt;block&lt;/div&gt;');
  });

  it('opens links in a new tab with noopener, and drops javascript: links', () => {
    expect(renderMarkdown('[docs](https://example.com/a)')).toContain(
      '<a href="https://example.com/a" target="_blank" rel="noopener noreferrer">docs</a>',
    );
    expect(renderMarkdown('see https://example.com/b')).toContain('rel="noopener noreferrer"');
    expect(renderMarkdown('[x](javascript:alert(1))')).not.toContain('<a');
  });

  it('keeps [n] markers as citation links where the answer has the source, plain text otherwise, and not in code', () => {
    const html = renderMarkdown('Three years [1].\n\n| term | ref |\n|---|---|\n| warranty | [2] |\n\n- item [1, 3]\n\n`[1]`', cite);
    expect(html).toContain('<a href="#source-1" class="cite" data-cite="1" aria-label="Source 1: a.pdf, page 1">[1]</a>');
    expect(html).toContain('<td><a href="#source-2" class="cite" data-cite="2" aria-label="Source 2: a.pdf, page 2">[2]</a></td>');
    expect(html).toMatch(/item <a [^>]*data-cite="1"[^>]*>\[1\]<\/a>\[3\]/);
    expect(html).toContain('<code>[1]</code>');
  });
});
