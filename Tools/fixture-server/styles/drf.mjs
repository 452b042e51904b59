// Django REST framework: the drf style's envelope, of CursorPagination over cursor pages (string ids) and
// of PageNumberPagination over the list of generated notes (--id-kind int), and its links as DRF writes
// them, which jsonapi.mjs shares (djangorestframework-jsonapi pages on top of DRF).

import { jsonPage } from '../shared/http.mjs';
import { quotePlus } from '../shared/python.mjs';

/**
 * drf: `{"next":url|null,"previous":url|null,"results":[…]}` of `nav.nextUrl` and `nav.prevUrl`, starting
 * with `"count":N` when `nav.count` is set (with --id-kind int: PageNumberPagination).
 */
export function wrapDrf(items, nav) {
  const count = (nav.count ?? null) === null ? '' : `"count":${nav.count},`;
  return {
    headers: {},
    parts: [Buffer.from(`{${count}"next":${JSON.stringify(nav.nextUrl)},"previous":${JSON.stringify(nav.prevUrl)},"results":`), ...items, Buffer.from('}')],
  };
}

/**
 * The absolute URL of /notes with the request's query pairs `pairs` (decoded), the parameter `name`
 * set to `value` (or removed, for null), as Django REST framework's replace_query_param and
 * remove_query_param write it: the pairs sorted by name (a name's values in their order), quotePlus-encoded.
 */
export function djangoUrl(base, pairs, name, value) {
  const kept = pairs.filter(([n]) => n !== name);
  if (value !== null) kept.push([name, String(value)]);
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = kept.map(([n, v]) => `${quotePlus(n)}=${quotePlus(v)}`).join('&');
  return `${base}/notes${query ? `?${query}` : ''}`;
}

/**
 * The page numbers around a page of the list in Django REST framework's page numbers (drf with integer
 * ids, jsonapi; `listQuery` as parseListQuery reads it, the page resolved), and `url(number)`, the
 * page's link as DRF makes it: the request's query (`pairs`) with the page number `pageName` replaced,
 * sorted and form-encoded. `cycle` points `next` at the previous page.
 */
export function djangoPages(list, listQuery, { start, cycles }, query, base, pageName) {
  const { limit } = listQuery;
  const previous = listQuery.page > 1 ? listQuery.page - 1 : null;
  let next = start + limit < list.length ? listQuery.page + 1 : null;
  if (previous !== null && cycles) next = previous;
  const pairs = [...query];
  const url = (number) => (number === null ? null : djangoUrl(base, pairs, pageName, number));
  return { previous, next, pairs, url };
}

/** A page of DRF's PageNumberPagination (drf with --id-kind int): `page` as list.mjs's listResponse makes it. */
export function drfResponse(list, listQuery, page, query, base) {
  const { previous, next, pairs, url } = djangoPages(list, listQuery, page, query, base, 'page');
  // Page 1's link has no page number at all.
  const prevUrl = previous === 1 ? djangoUrl(base, pairs, 'page', null) : url(previous);
  return jsonPage(wrapDrf(page.itemParts, { nextUrl: url(next), prevUrl, count: listQuery.totals.count ? page.total : null }));
}
