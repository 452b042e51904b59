// The page-echo and offset-echo styles, as Litestar's ClassicPagination and OffsetPagination page:
// the page as served echoed next to its items; errors as Litestar writes them (msgspec's messages).

import { StyleError } from '../../shared/errors.mjs';
import { jsonPage } from '../../shared/http.mjs';

export const styles = ['page-echo', 'offset-echo'];

/** Litestar's paging parameters (see real-servers.mjs): page-echo `{limit, page}`, offset-echo `{limit, offset}`. */
export function parseQuery(style, query, { maxLimit, defaultLimit }, { method, target }) {
  // Litestar: a handler with (page_size, current_page) or (limit, offset), ints with ge=1 (offset ge=0);
  // msgspec's messages, every error listed.
  const extra = [];
  const field = (name, min, fallback) => {
    const values = query.getAll(name);
    if (values.length === 0) return fallback;
    const message = values.length > 1 ? 'Expected `int`, got `array`'
      : !/^-?\d+$/.test(values[0]) ? 'Expected `int`, got `str`'
        : Number(values[0]) < min ? `Expected \`int\` >= ${min}` : null;
    if (message) extra.push({ message, key: name, source: 'query' });
    return Number(values[0]);
  };
  const result = style === 'page-echo'
    ? { limit: field('page_size', 1, defaultLimit), page: field('current_page', 1, 1) }
    : { limit: field('limit', 1, defaultLimit), offset: field('offset', 0, 0) };
  if (extra.length) throw new StyleError(400, { status_code: 400, detail: `Validation failed for ${method} ${target}`, extra });
  return { ...result, limit: Math.min(result.limit, maxLimit) };
}

/** A page (real-servers.mjs's `page`): page-echo's total_pages and offset-echo's total as the totals say. */
export function respond(style, itemParts, { listQuery, limit, totals, start, total }) {
  return jsonPage(style === 'page-echo'
    ? wrapPageEcho(itemParts, { limit, page: listQuery.page, totalPages: totals.pages ? Math.ceil(total / limit) : null })
    : wrapOffsetEcho(itemParts, { limit, offset: start, total: totals.count ? total : null }));
}

/** page-echo: `{"items":[…],"page_size":nav.limit,"current_page":nav.page,"total_pages":nav.totalPages}` (the last left out when null). */
export function wrapPageEcho(items, nav) {
  const pages = nav.totalPages === null ? '' : `,"total_pages":${nav.totalPages}`;
  return { headers: {}, parts: [Buffer.from('{"items":'), ...items, Buffer.from(`,"page_size":${nav.limit},"current_page":${nav.page}${pages}}`)] };
}

/** offset-echo: `{"items":[…],"limit":nav.limit,"offset":nav.offset,"total":nav.total}` (the last left out when null). */
export function wrapOffsetEcho(items, nav) {
  const total = nav.total === null ? '' : `,"total":${nav.total}`;
  return { headers: {}, parts: [Buffer.from('{"items":'), ...items, Buffer.from(`,"limit":${nav.limit},"offset":${nav.offset}${total}}`)] };
}
