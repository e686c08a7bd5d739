/**
 * The HTML of a markdown document, as `GET /docs/api` serves docs/api.md (src/web/api-docs.ts;
 * DECISIONS.md "Wire format": every `error_uri` points at an anchor of this page as a browser
 * renders it; docs/adr/0017-api-docs-page.md):
 * - to HTML by markdown-it with raw HTML off (any `<…>` in the markdown is shown as text, never
 *   interpreted) and its link check (no `javascript:`, `vbscript:`, `file:` or `data:` links);
 * - every heading gets a GitHub-style id (markdown-it-anchor with github-slugger: lower-cased,
 *   punctuation dropped, spaces to `-`, a repeated heading `-1`, `-2`, …), the ids GitHub gives the
 *   same file, so `#rate-limits` works on GitHub and here alike;
 * - a contents list of the `##` sections; code blocks and tables take the keyboard focus (they
 *   may scroll sideways); no script and no inline style: the content goes into the website's
 *   layout (src/web/views/docs.eta), under its Content-Security-Policy.
 */
import MarkdownIt from 'markdown-it';
import anchor from 'markdown-it-anchor';
import { slug } from 'github-slugger';

/**
 * A rendered document: its title (the first `#` heading, as text), the HTML of its content (the
 * `#` heading, a contents list, the rest), and the ids of its headings in document order.
 */
export interface RenderedDocs {
  title: string;
  html: string;
  ids: string[];
}

/**
 * Renders a markdown document to HTML content for the site's layout: title from the first `#`
 * heading, GitHub-style heading ids, a contents list of the `##` headings after the `#` one. Raw
 * HTML in the markdown is escaped, not interpreted.
 * @param markdown the document (UTF-8 text)
 */
export function renderDocs(markdown: string): RenderedDocs {
  const ids: string[] = [];
  const sections: { id: string; title: string }[] = [];
  let title = 'Tipjar API';
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  md.use(anchor, {
    level: [1, 2, 3, 4, 5, 6],
    slugify: (text) => slug(text),
    tabIndex: false,
    permalink: anchor.permalink.headerLink(),
    callback: (token, info) => {
      ids.push(info.slug);
      if (token.tag === 'h1' && ids.length === 1) title = info.title;
      if (token.tag === 'h2') sections.push({ id: info.slug, title: info.title });
    },
  });
  // Code blocks and tables may scroll sideways on a narrow screen: they take the keyboard focus,
  // so they can be scrolled without a mouse (WCAG 2.1.1).
  md.renderer.rules.table_open = (tokens, idx, options, _env, self) => {
    tokens[idx]!.attrSet('tabindex', '0');
    return self.renderToken(tokens, idx, options);
  };
  for (const rule of ['fence', 'code_block'] as const) {
    const render = md.renderer.rules[rule]!;
    md.renderer.rules[rule] = (...args) => render(...args).replace(/^<pre>/, '<pre tabindex="0">');
  }
  const escape = md.utils.escapeHtml;
  const body = md.render(markdown);
  const toc =
    sections.length === 0
      ? ''
      : `<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>${sections
          .map((s) => `<li><a href="#${escape(s.id)}">${escape(s.title)}</a></li>`)
          .join('')}</ol></nav>\n`;
  // The contents follow the page's heading (the first `</h1>`), or open the page when there is none.
  const end = body.indexOf('</h1>');
  const html = end === -1 ? toc + body : body.slice(0, end + 5) + '\n' + toc + body.slice(end + 5);
  return { title, html, ids };
}
