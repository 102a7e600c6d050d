/**
 * The guides of the repository's docs/ folder, served by the web app itself (issue 49): an
 * administrator reads "Selling" where the shop page points, not a path in a repository they may
 * never have seen. Each guide is a chunk of its own, loaded when opened.
 */
import { marked } from 'marked';

const sources = import.meta.glob<string>('../../../../../docs/*.md', { query: '?raw', import: 'default' });

/** The guides by name: `selling` for docs/selling.md. */
export const GUIDES = new Map(Object.entries(sources).map(([file, load]) => [file.replace(/^.*\/([^/]+)\.md$/, '$1'), load]));

/**
 * A guide's Markdown as its title (the first heading, which the page shows as its own) and the rest
 * as HTML: a link to another guide (`license-files.md#…`) opens it here, one to a file of the
 * repository (the README, a source file) is plain text, since the web app has none.
 */
export function renderGuide(markdown: string): { title: string; html: string } {
  const tokens = marked.lexer(markdown);
  const first = tokens.findIndex((token) => token.type === 'heading' && token.depth === 1);
  const title = first < 0 ? '' : (tokens[first] as { text: string }).text;
  if (first >= 0) tokens.splice(first, 1);
  const renderer = new marked.Renderer();
  const link = renderer.link.bind(renderer);
  renderer.link = (token) => {
    const guide = /^(?:\.\/|docs\/)?([a-z0-9-]+)\.md(#.*)?$/.exec(token.href);
    if (guide && GUIDES.has(guide[1])) return link({ ...token, href: `/help/${guide[1]}${guide[2] ?? ''}` });
    if (/^(https?:|mailto:|#)/.test(token.href)) return link(token);
    return renderer.parser.parseInline(token.tokens);
  };
  // A code block wider than the page scrolls: it takes the keyboard focus to scroll by keys too.
  return { title, html: marked.parser(tokens, { renderer }).replaceAll('<pre>', '<pre tabindex="0">') };
}
