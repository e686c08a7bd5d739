/**
 * The markdown → HTML content of /docs/api (src/web/markdown-page.ts): GitHub-style heading ids (what
 * every `error_uri` anchor relies on), the contents list, and content that is never interpreted
 * as HTML or script, whatever the markdown holds.
 */
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { renderDocs } from '../../../src/web/markdown-page.ts';

/** The elements of an HTML document as parsed by a browser-grade parser: name and attributes. */
function elements(html: string): { name: string; attrs: Record<string, string> }[] {
  const out: { name: string; attrs: Record<string, string> }[] = [];
  const parser = new Parser({ onopentag: (name, attrs) => out.push({ name, attrs }) });
  parser.write(html);
  parser.end();
  return out;
}

describe('renderDocs', () => {
  it('gives headings the ids GitHub gives them, repeated ones numbered', () => {
    const { ids, html } = renderDocs(
      [
        '# Tipjar API v2 — wire format',
        '## Rate limits',
        '## Partners, pending things and webhooks',
        '### Verification and claiming',
        '## OAuth 2',
        '## `error_uri` and (other) things!',
        '## Über Café',
        '## Notes',
        '## Notes',
      ].join('\n\n'),
    );
    expect(ids).toEqual([
      'tipjar-api-v2--wire-format',
      'rate-limits',
      'partners-pending-things-and-webhooks',
      'verification-and-claiming',
      'oauth-2',
      'error_uri-and-other-things',
      'über-café',
      'notes',
      'notes-1',
    ]);
    expect(html).toContain('<h2 id="rate-limits"><a class="header-anchor" href="#rate-limits">Rate limits</a></h2>');
  });

  it('gives the title as text and puts the ## sections in a contents list after the # heading', () => {
    const { html, title } = renderDocs('# A <b>title</b> & more\n\nIntro.\n\n## One\n\n## Two\n\n### Deeper\n');
    expect(title).toBe('A <b>title</b> & more');
    const h1 = html.indexOf('</h1>');
    const toc = html.indexOf('<nav class="toc"');
    expect(h1).toBeGreaterThan(-1);
    expect(toc).toBeGreaterThan(h1);
    expect(html.slice(toc)).toMatch(
      /^<nav class="toc" aria-label="Contents"><h2>Contents<\/h2><ol><li><a href="#one">One<\/a><\/li><li><a href="#two">Two<\/a><\/li><\/ol><\/nav>/,
    );
  });

  it('never passes raw HTML or script links through', () => {
    const { html } = renderDocs(
      [
        '# Doc',
        '<script>alert(1)</script>',
        '<img src=x onerror="alert(2)">',
        'Inline <iframe src="https://evil.example"></iframe> text.',
        '[click](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=) [vb](vbscript:msgbox)',
        '## <script>alert(4)</script> heading',
        '```html\n<script>alert(5)</script>\n```',
      ].join('\n\n'),
    );
    const tags = elements(html);
    expect(tags.filter((e) => ['script', 'img', 'iframe', 'style', 'object', 'embed'].includes(e.name))).toEqual([]);
    expect(tags.flatMap((e) => Object.keys(e.attrs)).filter((a) => a.startsWith('on'))).toEqual([]);
    expect(tags.filter((e) => e.attrs.href !== undefined && !/^(#|\/)/.test(e.attrs.href))).toEqual([]);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
    expect(html).toContain('[click](javascript:alert(3))');
    expect(html).toContain('&lt;script&gt;alert(5)&lt;/script&gt;');
  });

  it('lets the keyboard reach code blocks and tables, which may scroll sideways', () => {
    const { html } = renderDocs('# Doc\n\n```\ncode\n```\n\n    indented\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
    const tags = elements(html);
    expect(tags.filter((e) => e.name === 'pre').map((e) => e.attrs.tabindex)).toEqual(['0', '0']);
    expect(tags.filter((e) => e.name === 'table').map((e) => e.attrs.tabindex)).toEqual(['0']);
  });
});
