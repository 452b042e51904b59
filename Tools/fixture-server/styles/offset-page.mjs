// The offset and page styles over the list of generated notes: offset=K&limit=L, as Django REST
// framework's LimitOffsetPagination, and page=P&per_page=L, with a Link header to the next and last pages.

import { jsonPage, notesUrl } from '../shared/http.mjs';
import { carriedParameters } from './cursor.mjs';
import { formatLinkHeader } from './link.mjs';

/**
 * offset: `{"count":N,"next":url|null,"previous":url|null,"results":[…]}` (DRF's LimitOffsetPagination)
 * of `nav.count` (null: left out), `nav.nextUrl` and `nav.prevUrl`, with `X-Total-Count: nav.totalHeader`
 * when that is set.
 */
export function wrapOffset(items, nav) {
  return wrapOffsetOrPage('offset', items, nav);
}

/**
 * page: `{"count":N,"total_pages":T,"next":…,"previous":…,"results":[…]}` with `Link: <next>; rel="next",
 * <last>; rel="last"` (`nav.lastUrl`, null for none), as offset's, and `nav.totalPages` (null: left out).
 */
export function wrapPageNumber(items, nav) {
  return wrapOffsetOrPage('page', items, nav);
}

function wrapOffsetOrPage(style, items, nav) {
  const counts = [];
  if (nav.count !== null) counts.push(`"count":${nav.count},`);
  if (style === 'page' && nav.totalPages !== null) counts.push(`"total_pages":${nav.totalPages},`);
  const headers = {};
  if (nav.totalHeader !== null) headers['X-Total-Count'] = String(nav.totalHeader);
  if (style === 'page') {
    const links = [{ rel: 'next', url: nav.nextUrl }, { rel: 'last', url: nav.lastUrl }].filter((l) => l.url !== null);
    if (links.length) headers.Link = formatLinkHeader(links);
  }
  return {
    headers,
    parts: [Buffer.from(`{${counts.join('')}"next":${JSON.stringify(nav.nextUrl)},"previous":${JSON.stringify(nav.prevUrl)},"results":`), ...items, Buffer.from('}')],
  };
}

/**
 * A page of the offset or page style: `page` as list.mjs's listResponse makes it, the totals announced
 * as the request's totals say; `cycle` points `next` at the previous page.
 */
export function offsetPageResponse(style, list, listQuery, { start, itemParts, cycles, total, lastPage }, query, base) {
  const { limit, totals } = listQuery;
  // Links name the place, then the limit if the request gave one (as served, so a capped limit shows),
  // then the carried parameters. A walk from a bare /notes thus changes one parameter per page.
  const [placeName, limitName] = style === 'offset' ? ['offset', 'limit'] : ['page', 'per_page'];
  const limitPair = query.has(limitName) ? [[limitName, String(limit)]] : [];
  const carried = carriedParameters(query);
  const url = (at) => notesUrl(base, [[placeName, String(at)], ...limitPair, ...carried]);
  let next, previous;
  if (style === 'offset') {
    next = start + limit < list.length ? start + limit : null;
    previous = start > 0 ? Math.max(0, start - limit) : null;
  } else {
    next = start + limit < list.length ? listQuery.page + 1 : null;
    previous = listQuery.page > 1 ? listQuery.page - 1 : null;
  }
  if (previous !== null && cycles) next = previous;
  return jsonPage(wrapOffsetOrPage(style, itemParts, {
    nextUrl: next === null ? null : url(next),
    prevUrl: previous === null ? null : url(previous),
    count: totals.count ? total : null,
    totalPages: style === 'page' && totals.pages ? lastPage : null,
    totalHeader: totals.header ? total : null,
    lastUrl: style === 'page' && totals.link ? url(lastPage) : null,
  }));
}
