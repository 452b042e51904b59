// The styles that imitate one real server each (catalog.mjs's REAL_STYLES), served by the modules of
// real-servers/: each reads a request's paging parameters as its server does (parseQuery; DynamoDB's
// are in the body of its POST) and answers a page as its server does (respond). What they share is here.

import { UsageError } from '../shared/errors.mjs';
import { optionalTotals } from './catalog.mjs';
import * as dynamodb from './real-servers/dynamodb.mjs';
import * as eve from './real-servers/eve.mjs';
import * as flaskSmorest from './real-servers/flask-smorest.mjs';
import * as kinto from './real-servers/kinto.mjs';
import * as litestar from './real-servers/litestar.mjs';
import * as pygeoapi from './real-servers/pygeoapi.mjs';

/** The module that serves each style. */
const SERVERS = new Map([kinto, pygeoapi, flaskSmorest, litestar, eve, dynamodb].flatMap((server) => server.styles.map((style) => [style, server])));

/**
 * The paging parameters of a request in one of REAL_STYLES but dynamodb, read as the real server reads
 * them; `limit` is cut to `maxLimit` silently except in x-pagination style, which refuses a larger
 * page_size as flask-smorest refuses one over its max_page_size. Returns, with `limit` and `totals`:
 *   next-page     {startingAfter, tokenOffset, filtered}  (Kinto: _limit, _token; other names filter)
 *   ogc           {offset, format}                        (pygeoapi: offset, limit, f)
 *   x-pagination  {page}                                  (flask-smorest: page, page_size)
 *   page-echo     {page}                                  (Litestar: current_page, page_size)
 *   offset-echo   {offset}                                (Litestar: offset, limit)
 *   eve           {page}                                  (Eve: page, max_results; never refuses)
 * Throws StyleError in the server's own form, or UsageError for the server's own `totals=`.
 */
export function parseRealListQuery(style, query, { pageSize, maxLimit, totals }, { method = 'GET', target = '/notes' } = {}) {
  const totalsValues = query.getAll('totals');
  if (totalsValues.length > 1) throw new UsageError('more than one totals');
  const requestTotals = optionalTotals(totalsValues[0] ?? null, totals);
  const parseQuery = SERVERS.get(style)?.parseQuery;
  if (parseQuery === undefined) throw new Error(`not a style of query parameters: ${style}`);
  const defaults = { pageSize, maxLimit, defaultLimit: Math.min(pageSize, maxLimit) };
  return { ...parseQuery(style, query, defaults, { method, target }), totals: requestTotals };
}

/**
 * A page of a real server's style, the notes [start, end) already made (`itemParts`), answered by the
 * style's module from `page`: the list, the query as read, the limit and totals, where the page starts
 * and ends, the total announced (off by --total-lie; none where a Kinto filter matches nothing),
 * the notes served, whether more follow, the request's query pairs, the origin (`base`), --page-size,
 * `cycles`, and `pageTwoAfter`, the note that page 2 starts after, for a cycle in the styles whose next
 * page starts after a note (next-page, dynamodb; null otherwise).
 * Where the real server derives its next page from the count it announces (ogc's next, x-pagination's
 * next_page, eve's next and last), it follows the announced total, --total-lie included, as a server
 * with a wrong count would; where it derives it from the notes (next-page, dynamodb), it follows them.
 * `cycle` points the next page back: at page 2 in next-page and dynamodb style (their next page starts
 * after a note), at the previous page in the others, from any page but the first.
 */
export function realListResponse(style, list, listQuery, { start, end, itemParts, cycles }, query, state) {
  const { totalLie, pageSize } = state.generated;
  const { limit, totals } = listQuery;
  const matched = listQuery.filtered ? 0 : list.length;
  const total = Math.max(0, matched + totalLie);
  const served = Math.max(0, end - start);
  const more = end < matched;
  const pairs = [...query];
  // The note that page 2 starts after, for a cycle in the styles whose next page starts after a note.
  const pageTwoAfter = cycles && start > 0 && list.length > limit ? list.idAt(limit - 1) : null;
  return SERVERS.get(style).respond(style, itemParts, {
    list, listQuery, limit, totals, start, end, total, served, more, pairs, pageTwoAfter, cycles, base: state.base, pageSize,
  });
}
