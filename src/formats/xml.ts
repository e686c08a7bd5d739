/**
 * The XML rendering of every JSON representation (DECISIONS.md "Formats and protocol"): a root
 * element named for the resource (`<thing>`, `<things>` with `<thing>` children,
 * `<categories>`/`<category>`, `<error>`), one child element per field, arrays as repeated singular
 * elements (`<tags><tag>…</tag></tags>`), booleans `true|false`, empty elements for empty strings.
 * Built with fast-xml-parser's XMLBuilder (see docs/adr/0004-formats.md). Documented in docs/api.md.
 */
import { XMLBuilder } from 'fast-xml-parser';

const builder = new XMLBuilder({
  format: false,
  suppressEmptyNode: false,
  processEntities: true,
  suppressBooleanAttributes: false,
});

/** Characters XML 1.0 cannot carry (C0 controls but tab/LF/CR, U+FFFE/U+FFFF, lone surrogates). */
const INVALID_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` without the characters XML 1.0 cannot carry (used by every XML rendering, Atom included). */
export const xmlSafe = (text: string): string => text.replace(INVALID_XML, '');

const IRREGULAR: Record<string, string> = {
  categories: 'category',
  activities: 'activity',
  things: 'thing',
  items: 'item',
  tips: 'tip',
  tags: 'tag',
  languages: 'language',
  subscriptions: 'subscription',
  users: 'user',
};

/** The element name of one member of an array named `plural`. */
export function singular(plural: string): string {
  if (IRREGULAR[plural]) return IRREGULAR[plural];
  if (plural.endsWith('ies')) return `${plural.slice(0, -3)}y`;
  if (plural.endsWith('s')) return plural.slice(0, -1);
  return 'item';
}

/**
 * The element tree of `value` as its JSON text would carry it: `toJSON` applied, fields that JSON
 * leaves out (undefined, functions) left out, numbers JSON cannot carry as empty elements.
 */
function node(value: unknown, name: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    value = (value as { toJSON(): unknown }).toJSON();
  if (value === null || value === undefined || typeof value === 'function') return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'string') return value.replace(INVALID_XML, '');
  if (Array.isArray(value)) {
    const child = singular(name);
    return { [child]: value.map((v) => node(v, child)) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined || typeof v === 'function') continue;
    // Arrays become a wrapper element holding repeated singular elements.
    out[k] = node(v, k);
  }
  return out;
}

/** The root element name for a JSON body: its `type`, `error`, or the route's name. */
export function rootName(body: unknown, routeRoot: string | undefined): string {
  if (Array.isArray(body)) return routeRoot ?? 'items';
  if (body && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    if (typeof o.error === 'string' && 'error_description' in o) return 'error';
    if (typeof o.type === 'string' && /^[a-z_]+$/.test(o.type)) return o.type;
  }
  return routeRoot ?? 'result';
}

/**
 * Renders a representation (the value a route sends, or its JSON text parsed) as an XML document;
 * `routeRoot` names the root of an array body (the route's `config.xmlRoot`).
 */
export function toXml(body: unknown, routeRoot?: string): string {
  const root = rootName(body, routeRoot);
  const tree = { [root]: node(body, root) };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(tree) as string}`;
}
