// The ogc style, as pygeoapi serves the items of an OGC API Features collection: ?offset=K&limit=L
// (&f=F), a GeoJSON FeatureCollection with numberMatched, numberReturned and its links; errors as
// pygeoapi writes them.

import { StyleError } from '../../shared/errors.mjs';
import { jsonPage } from '../../shared/http.mjs';
import { pythonInteger, pythonQuote } from '../../shared/python.mjs';

export const styles = ['ogc'];

/** pygeoapi's paging parameters (see real-servers.mjs): `{offset, limit, format}`. */
export function parseQuery(style, query, { maxLimit, defaultLimit }) {
  const invalid = (description) => new StyleError(400, { code: 'InvalidParameterValue', type: 'InvalidParameterValue', description });
  const offsetText = query.get('offset');
  let offset = 0;
  if (offsetText !== null) {
    offset = pythonInteger(offsetText);
    if (Number.isNaN(offset)) throw invalid('offset value should be an integer');
    if (offset < 0) throw invalid('offset value should be positive or zero');
  }
  const limitText = query.get('limit');
  let limit = defaultLimit;
  if (limitText !== null) {
    const value = pygeoapiInteger(limitText);
    if (value === null) throw invalid('limit value should be an integer');
    if (value <= 0) throw invalid('limit value should be strictly positive');
    limit = Math.min(value, maxLimit);
  }
  return { offset, limit, format: (query.get('f') ?? '').trim() || null };
}

// A limit as pygeoapi's get_typed_value reads it, as an integer, or null for one that is not an int
// (a float, a string such as '05'); 'true' and 'false' are Python's bools, which are ints.
function pygeoapiInteger(text) {
  if (text.includes('.') || (text.length > 1 && text.startsWith('0'))) return null;
  if (['true', 'false'].includes(text.toLowerCase())) return text.toLowerCase() === 'true' ? 1 : 0;
  const value = pythonInteger(text);
  return Number.isNaN(value) ? null : value;
}

/**
 * A page (real-servers.mjs's `page`): the features, numberMatched as the totals say, numberReturned,
 * and the links, next while numberMatched says more remain or whenever the page is full.
 */
export function respond(style, itemParts, { listQuery, limit, totals, start, total, served, pairs, cycles, base }) {
  const prevOffset = start > 0 ? Math.max(0, start - limit) : null;
  // pygeoapi: next while numberMatched says more remain, or whenever the page is full.
  let nextOffset = (totals.count && total > start + limit) || served === limit ? start + limit : null;
  if (cycles && prevOffset !== null) nextOffset = prevOffset;
  return jsonPage(wrapOgc(itemParts, {
    links: ogcLinks(base, pairs, { format: listQuery.format, prevOffset, nextOffset }),
    numberMatched: totals.count ? total : null,
    returned: served,
  }));
}

/**
 * ogc: `{"type":"FeatureCollection","features":[…],"numberMatched":nav.numberMatched (left out when
 * null),"numberReturned":nav.returned,"links":nav.links}` as application/geo+json.
 */
export function wrapOgc(items, nav) {
  const matched = nav.numberMatched === null ? '' : `"numberMatched":${nav.numberMatched},`;
  return {
    headers: { 'Content-Type': 'application/geo+json' },
    parts: [
      Buffer.from('{"type":"FeatureCollection","features":'),
      ...items,
      Buffer.from(`,${matched}"numberReturned":${nav.returned},"links":${JSON.stringify(nav.links)}}`),
    ],
  };
}

/**
 * The links of an OGC API Features items page as pygeoapi writes them: this document as GeoJSON
 * (rel self, or alternate when the request's `f` names another format), as JSON-LD and as HTML
 * (alternate), `prev` (with `prevOffset`) and `next` (with `nextOffset`), each null for none, and the
 * collection. Every href repeats the request's query but `f` and `offset` (the first value of each
 * name, names and values quoted as Python's quote, `,` kept), after `f=FORMAT&` (next and prev: only
 * when the request had an `f`) and the offset.
 */
export function ogcLinks(base, pairs, { format = null, prevOffset = null, nextOffset = null }) {
  const uri = `${base}/notes`;
  const firsts = new Map();
  for (const [name, value] of pairs) if (name !== 'f' && name !== 'offset' && !firsts.has(name)) firsts.set(name, value);
  const query = [...firsts].map(([name, value]) => `&${pythonQuote(name)}=${pythonQuote(value, ',')}`).join('');
  const rel = (f) => (f === format || (f === 'json' && !format) ? 'self' : 'alternate');
  const at = (offset) => `${uri}?${format === null ? '' : `f=${format}&`}offset=${offset}${query}`;
  const links = [
    { type: 'application/geo+json', rel: rel('json'), title: 'This document as GeoJSON', href: `${uri}?f=json${query}` },
    { rel: rel('jsonld'), type: 'application/ld+json', title: 'This document as RDF (JSON-LD)', href: `${uri}?f=jsonld${query}` },
    { type: 'text/html', rel: rel('html'), title: 'This document as HTML', href: `${uri}?f=html${query}` },
  ];
  if (prevOffset !== null) links.push({ type: 'application/geo+json', rel: 'prev', title: 'Items (prev)', href: at(prevOffset) });
  if (nextOffset !== null) links.push({ rel: 'next', type: 'application/geo+json', title: 'Items (next)', href: at(nextOffset) });
  links.push({ type: 'application/json', title: 'notes', rel: 'collection', href: base });
  return links;
}
