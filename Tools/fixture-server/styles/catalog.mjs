// The pagination styles by name, which of them page through a list, and the totals that the list styles
// announce. Each style's module wraps a page's notes array (`items`, a list of parts: shared/parts.mjs)
// in the style's envelope with a `wrap…(items, nav)` function, `nav` being what the page links to and
// announces, which returns `{headers, parts}`: the extra headers and the body parts.

import { UsageError } from '../shared/errors.mjs';

/**
 * The styles that imitate one real server each (see wrapPage): Kinto's Next-Page header, OGC API
 * Features as pygeoapi serves it, flask-smorest's X-Pagination header, Litestar's ClassicPagination and
 * OffsetPagination, Python Eve, and DynamoDB's Scan as moto serves it.
 */
export const REAL_STYLES = ['next-page', 'ogc', 'x-pagination', 'page-echo', 'offset-echo', 'eve', 'dynamodb'];

export const STYLES = ['contract', 'drf', 'link', 'header', 'offset', 'page', 'keyset', 'jsonapi', ...REAL_STYLES];

/**
 * The styles that page through the list of generated notes by position rather than by cursor. With
 * `--id-kind int`, `drf` does too (see isListStyle).
 */
export const LIST_STYLES = ['offset', 'page', 'keyset', 'jsonapi', ...REAL_STYLES];

/**
 * Whether a style pages through the list of generated notes (offset, page, keyset, jsonapi) rather
 * than through cursor pages. `drf` with integer ids does, as Django REST framework's
 * PageNumberPagination over a default model; with string ids it is CursorPagination.
 */
export function isListStyle(style, idKind = 'string') {
  return LIST_STYLES.includes(style) || (style === 'drf' && idKind === 'int');
}

export function parseStyle(value) {
  if (!STYLES.includes(value)) throw new UsageError(`unknown style '${value}' (use ${STYLES.join(', ')})`);
  return value;
}

export function listStyleNeedsCount(style) {
  return `style '${style}' pages through generated notes: it needs --count, not --dir`;
}

/** What the offset and page styles announce of the total, by default: everything. */
export const TOTALS = ['count', 'header', 'link', 'pages'];

/**
 * Parses a --totals or `totals=` value: a comma-separated subset of count, header, link and pages, or
 * `none`. Returns `{count, header, link, pages}` booleans.
 */
export function parseTotals(value, what) {
  const names = value.split(',').map((name) => name.trim());
  const totals = { count: false, header: false, link: false, pages: false };
  if (value.trim() === 'none') return totals;
  for (const name of names) {
    if (!TOTALS.includes(name)) throw new UsageError(`${what} takes a comma-separated list of ${TOTALS.join(', ')}, or none; not '${value}'`);
    totals[name] = true;
  }
  return totals;
}

/** The totals a request's `totals=` asks for (`text`, null for none: `fallback`, --totals'); throws UsageError. */

export function optionalTotals(text, fallback) {
  return text === null ? fallback : parseTotals(text, 'totals=');
}

/** The query parameters of the server's own, which every style takes. */
export const SERVER_PARAMETERS = ['style', 'fault', 'totals', 'compress'];
