// The eve style, as Python Eve pages a resource: ?page=P&max_results=L, `_items` with `_id`, `_links`
// relative to the API root, `_meta` and X-Total-Count. Eve refuses nothing: bad values are the defaults.

import { jsonPage } from '../../shared/http.mjs';
import { pythonFloatToInteger, pythonInteger } from '../../shared/python.mjs';

export const styles = ['eve'];

/** Eve's paging parameters (see real-servers.mjs): `{page, limit}`. */
export function parseQuery(style, query, { pageSize, maxLimit }) {
  // Eve never refuses: a max_results that is not a positive number is the default, one above
  // PAGINATION_LIMIT is that limit, and a page that is not an integer is 1 (abs(int(page)) or 1).
  const maxResults = pythonFloatToInteger(query.get('max_results') ?? '');
  const page = pythonInteger(query.get('page') ?? '');
  return {
    page: Number.isNaN(page) ? 1 : Math.abs(page) || 1,
    limit: Math.min(maxResults > 0 ? maxResults : pageSize, maxLimit),
  };
}

/**
 * A page (real-servers.mjs's `page`). Without a count, Eve is as with OPTIMIZE_PAGINATION_FOR_SPEED:
 * no total, a next link on every page.
 */
export function respond(style, itemParts, { listQuery, limit, totals, total, pairs, cycles, pageSize }) {
  const count = totals.count ? total : null;
  const { page } = listQuery;
  return jsonPage(wrapEve(itemParts, {
    links: eveLinks(pairs, {
      page, maxResults: limit, defaultMaxResults: pageSize, count, last: totals.link, nextPage: cycles && page > 1 ? page - 1 : null,
    }),
    meta: count === null ? { page, max_results: limit } : { page, max_results: limit, total: count },
    totalHeader: totals.header && count !== null ? count : null,
  }));
}

/** eve: `{"_items":[…],"_links":nav.links,"_meta":nav.meta}` with `X-Total-Count: nav.totalHeader` (left out when null). */
export function wrapEve(items, nav) {
  return {
    headers: nav.totalHeader === null ? {} : { 'X-Total-Count': String(nav.totalHeader) },
    parts: [Buffer.from('{"_items":'), ...items, Buffer.from(`,"_links":${JSON.stringify(nav.links)},"_meta":${JSON.stringify(nav.meta)}}`)],
  };
}

// The query parameters of Eve's own; the others are repeated in its links as they are.
const EVE_PARAMETERS = ['where', 'sort', 'page', 'max_results', 'embedded', 'projection', 'version'];

/**
 * The query string of an Eve link (eve.utils.querydef), `?…` or '' for none: `max_results=L` unless it
 * is the default, the request's `where` and `sort`, `page=P` after page 1, then every other parameter
 * of the request (`pairs`, decoded) as `&name=value`, written raw, not encoded, as Eve writes them.
 */
export function eveQuery(pairs, { page, maxResults, defaultMaxResults }) {
  const first = (name) => pairs.find(([n]) => n === name)?.[1] ?? '';
  const others = new Map();
  for (const [name, value] of pairs) if (!EVE_PARAMETERS.includes(name)) others.set(name, [...(others.get(name) ?? []), value]);
  const text = [
    maxResults === defaultMaxResults ? '' : `max_results=${maxResults}`,
    first('where') && `&where=${first('where')}`,
    first('sort') && `&sort=${first('sort')}`,
    page > 1 ? `&page=${page}` : '',
    ...[...others].flatMap(([name, values]) => values.map((value) => `&${name}=${value}`)),
  ].join('').replace(/^&+/, '');
  return `?${text}`.replace(/\?+$/, '');
}

/**
 * Eve's `_links` of a page (_pagination_links): parent `/`, self `notes` (with the query of this page
 * when there are notes), next while `page * maxResults < count` (on every page when `count` is null:
 * OPTIMIZE_PAGINATION_FOR_SPEED, which counts nothing), last with next when counted (and `last`), prev
 * after page 1. Hrefs are relative, without a leading slash, as Eve writes them. `nextPage` makes next
 * name that page instead (the cycle fault), also where there is none.
 */
export function eveLinks(pairs, { page, maxResults, defaultMaxResults, count, last = true, nextPage = null }) {
  const href = (p) => `notes${eveQuery(pairs, { page: p, maxResults, defaultMaxResults })}`;
  const links = { parent: { title: 'home', href: '/' }, self: { title: 'notes', href: count ? href(page) : 'notes' } };
  if (count === null || page * maxResults < count || nextPage !== null) {
    links.next = { title: 'next page', href: href(nextPage ?? page + 1) };
    if (count && last) links.last = { title: 'last page', href: href(Math.ceil(count / maxResults)) };
  }
  if (page > 1) links.prev = { title: 'previous page', href: href(page - 1) };
  return links;
}
