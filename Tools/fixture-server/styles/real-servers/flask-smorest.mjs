// The x-pagination style, as flask-smorest pages: ?page=P&page_size=L, a bare array with the paging
// metadata in an X-Pagination header; errors as webargs and marshmallow write them (422).

import { StyleError } from '../../shared/errors.mjs';
import { jsonPage } from '../../shared/http.mjs';
import { pythonInteger, pythonJson } from '../../shared/python.mjs';

export const styles = ['x-pagination'];

/** flask-smorest's paging parameters (see real-servers.mjs): `{page, limit}`; a page_size over --max-limit is a 422. */
export function parseQuery(style, query, { maxLimit, defaultLimit }) {
  // webargs and marshmallow: the first value, an Integer with a Range; 422 listing every error.
  const errors = {};
  const field = (name, fallback, max) => {
    const text = query.get(name);
    if (text === null) return fallback;
    const value = pythonInteger(text);
    if (Number.isNaN(value)) errors[name] = ['Not a valid integer.'];
    else if (value < 1 || value > max) {
      errors[name] = [max === Infinity ? 'Must be greater than or equal to 1.' : `Must be greater than or equal to 1 and less than or equal to ${max}.`];
    }
    return value;
  };
  const page = field('page', 1, Infinity);
  const limit = field('page_size', defaultLimit, maxLimit);
  if (Object.keys(errors).length) throw new StyleError(422, { code: 422, errors: { query: errors }, status: 'Unprocessable Entity' });
  return { page, limit };
}

/** A page (real-servers.mjs's `page`): the notes, and X-Pagination where the totals say header. */
export function respond(style, itemParts, { listQuery, limit, totals, total, cycles }) {
  const meta = flaskSmorestPagination(listQuery.page, limit, total);
  if (cycles && listQuery.page > 1) meta.next_page = listQuery.page - 1;
  return jsonPage(wrapXPagination(itemParts, { pagination: totals.header ? pythonJson(meta) : null }));
}

/** x-pagination: `[…]` with `X-Pagination: nav.pagination` (left out when null). */
export function wrapXPagination(items, nav) {
  return { headers: nav.pagination === null ? {} : { 'X-Pagination': nav.pagination }, parts: items };
}

/**
 * flask-smorest's pagination metadata (_make_pagination_metadata) of page `page` in pages of `pageSize`
 * among `itemCount` items, its keys in this order: total, total_pages, then (unless there are no items)
 * first_page, last_page and, for a page that exists, page, previous_page (after page 1), next_page
 * (before the last). The X-Pagination header is its pythonJson.
 */
export function flaskSmorestPagination(page, pageSize, itemCount) {
  const meta = { total: itemCount };
  if (itemCount === 0) {
    meta.total_pages = 0;
    return meta;
  }
  const pageCount = Math.floor((itemCount - 1) / pageSize) + 1;
  Object.assign(meta, { total_pages: pageCount, first_page: 1, last_page: pageCount });
  if (page <= pageCount) {
    meta.page = page;
    if (page > 1) meta.previous_page = page - 1;
    if (page < pageCount) meta.next_page = page + 1;
  }
  return meta;
}
