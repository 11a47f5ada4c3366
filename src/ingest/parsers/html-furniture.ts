/**
 * What of an HTML page is not its text: the furniture of documentation generators and sites
 * (navigation, menus, breadcrumbs, tables of contents as link lists). Read by html.ts's formatters.
 */

/**
 * Page furniture that is not the document's text: navigation, banners, forms, and the navigation
 * bars, sidebars and tables of contents of the common documentation generators (DocBook's
 * navheader/navfooter/toc, Sphinx's related bars, sidebar, footer and ¶ links, texinfo's node
 * headers). Indexed, it would match questions about the neighbouring pages it names.
 */
export const BOILERPLATE = [
  '[role=navigation]',
  '[role=search]',
  '[role=banner]',
  '[role=contentinfo]',
  'form',
  'button',
  'noscript',
  'template',
  'svg',
  'div.navheader',
  'div.navfooter',
  'div.toc',
  'div.related',
  'div.sphinxsidebar',
  'div.footer',
  'a.headerlink',
  'div.nav-panel',
  'div.header',
].map((selector) => ({ selector, format: 'skip' }));

/** The parts of html-to-text's element nodes read here. */
export interface HtmlNode {
  type: string;
  name?: string;
  data?: string;
  children?: HtmlNode[];
  /** Siblings (text nodes included). */
  prev?: HtmlNode | null;
  next?: HtmlNode | null;
}

/** The element before or after a node among its siblings, across whitespace. */
export function siblingElement(node: HtmlNode, side: 'prev' | 'next'): HtmlNode | undefined {
  let n = node[side];
  while (n && n.type === 'text' && !/\S/.test(n.data ?? '')) n = n[side];
  return n && n.type !== 'text' ? n : undefined;
}

/**
 * Whether a node holds any word outside links (its links' own text aside), and whether it holds a
 * link with words. Remembered per node: nested lists would otherwise read their subtrees once per
 * level of nesting.
 */
const textOutside = new WeakMap<HtmlNode, boolean>();
const linked = new WeakMap<HtmlNode, boolean>();

function hasTextOutsideLinks(node: HtmlNode): boolean {
  if (node.type === 'text') return /[\p{L}\p{N}]/u.test(node.data ?? '');
  if (node.name === 'a') return false;
  let known = textOutside.get(node);
  if (known === undefined) textOutside.set(node, (known = (node.children ?? []).some(hasTextOutsideLinks)));
  return known;
}

function hasLink(node: HtmlNode): boolean {
  if (node.name === 'a') return (node.children ?? []).some(hasTextOutsideLinks);
  let known = linked.get(node);
  if (known === undefined) linked.set(node, (known = (node.children ?? []).some(hasLink)));
  return known;
}

/**
 * A menu or a table of contents: a list of LINK_LIST_ITEMS or more links and no words outside them
 * (an item may hold none at all, such as a search box).
 */
export const LINK_LIST_ITEMS = 3;

export function isLinkList(elem: HtmlNode): boolean {
  const items = (elem.children ?? []).filter((c) => c.name === 'li');
  return items.filter(hasLink).length >= LINK_LIST_ITEMS && !items.some(hasTextOutsideLinks);
}

/**
 * A site's menu bar or breadcrumbs above a page's first heading: a block (div, p) whose letters
 * are at least LINK_DENSITY inside links, with LINK_LIST_ITEMS links or more. Below the first
 * heading such a block is the document's own (a "See also" paragraph) and stays, unless it is a
 * menu bar: links with only separators between them, as a page footer repeats the menu.
 */
const LINK_DENSITY = 0.7;
/** What a menu bar puts between its links (`Modules | Directives | FAQ`, `Docs » SQL`). */
const MENU_SEPARATORS = /^[\s|·•»›>/–—-]*$/;
interface LinkCount {
  /** Letters and digits in the node, and those inside links. */
  all: number;
  linked: number;
  /** Links with text. */
  links: number;
  /** Whether the text outside links is only menu separators, and holds one. */
  separatorsOnly: boolean;
  separated: boolean;
}
const linkCounts = new WeakMap<HtmlNode, LinkCount>();

function linkCount(node: HtmlNode): LinkCount {
  if (node.type === 'text') {
    const data = node.data ?? '';
    const all = data.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
    return { all, linked: 0, links: 0, separatorsOnly: MENU_SEPARATORS.test(data), separated: /[|·•»›>/–—-]/.test(data) };
  }
  let known = linkCounts.get(node);
  if (!known) {
    known = { all: 0, linked: 0, links: 0, separatorsOnly: true, separated: false };
    for (const c of node.children ?? []) {
      const k = linkCount(c);
      known.all += k.all;
      known.linked += k.linked;
      known.links += k.links;
      known.separatorsOnly &&= k.separatorsOnly;
      known.separated ||= k.separated;
    }
    if (node.name === 'a' && known.all > 0)
      Object.assign(known, { linked: known.all, links: known.links + 1, separatorsOnly: true, separated: false });
    linkCounts.set(node, known);
  }
  return known;
}

/** Above the page's first heading: a block mostly of links. */
export const isLinkDense = (node: HtmlNode): boolean => {
  const { all, linked, links } = linkCount(node);
  return links >= LINK_LIST_ITEMS && linked >= all * LINK_DENSITY;
};

/** Anywhere: a menu bar, links with nothing but separators between them (a "See also" list has commas and stays). */
export const isMenuBar = (node: HtmlNode): boolean => {
  const { links, separatorsOnly, separated } = linkCount(node);
  return links >= LINK_LIST_ITEMS && separatorsOnly && separated;
};
