// The list styles (catalog.mjs: offset, page, keyset, jsonapi, drf with integer ids and the styles of
// real servers), which page through the list of generated notes by position: their query parameters,
// the list a request sees (with the notes of the shifts that have acted), where a page starts, and the
// notes of a page, which each style's module answers in its form.

import { StyleError, UsageError } from '../shared/errors.mjs';
import { jsonError, styleError } from '../shared/http.mjs';
import { pythonInteger } from '../shared/python.mjs';
import { applyContentFaults } from '../faults/hostile-bodies.mjs';
import { NoteList } from '../notes/generated.mjs';
import { optionalTotals, REAL_STYLES } from './catalog.mjs';
import { drfResponse } from './drf.mjs';
import { jsonApiResponse } from './jsonapi.mjs';
import { keysetResponse } from './keyset.mjs';
import { offsetPageResponse } from './offset-page.mjs';
import { parseRealListQuery, realListResponse } from './real-servers.mjs';
import { DYNAMODB_VALIDATION, dynamoError } from './real-servers/dynamodb.mjs';
import { kintoErrorBody } from './real-servers/kinto.mjs';

/** The parameter of the page size in each list style (dynamodb's is a member of the request body). */
export const LIMIT_NAMES = {
  offset: 'limit', page: 'per_page', keyset: 'limit', drf: 'page_size', jsonapi: 'page[size]',
  'next-page': '_limit', ogc: 'limit', 'x-pagination': 'page_size', 'page-echo': 'page_size', 'offset-echo': 'limit', eve: 'max_results',
  dynamodb: 'Limit',
};

/**
 * The paging parameters of a request in a list style (`query`: URLSearchParams), or a UsageError:
 *   offset   offset=K (default 0) and limit=L
 *   page     page=P (1-based, default 1) and per_page=L
 *   keyset   starting_after=ID (default: from the start) and limit=L
 *   drf      page=P and page_size=L (drf with --id-kind int: Django REST framework's PageNumberPagination)
 *   jsonapi  page[number]=P and page[size]=L (djangorestframework-jsonapi)
 * L defaults to `pageSize` and is served as `maxLimit` when larger. All but keyset also read `totals=`
 * (default `totals`). Returns `{offset|page|startingAfter, limit, totals}`.
 * drf and jsonapi read their parameters as Django REST framework does: the last value of each, as
 * Python's int() reads it; a page size that is not a positive integer is the default, and `page` is
 * 'last', or null for a page number that is not an integer (see resolvePageNumber).
 * The styles of real servers (REAL_STYLES but dynamodb, whose parameters are in its body: see
 * parseDynamoScan) read theirs as those servers do (see parseRealListQuery), and refuse what they
 * refuse with a StyleError; `request` ({method, target}) is what Litestar's errors name.
 */
export function parseListQuery(style, query, { pageSize, maxLimit, totals }, request = {}) {
  if (REAL_STYLES.includes(style)) return parseRealListQuery(style, query, { pageSize, maxLimit, totals }, request);
  const single = (name) => {
    const values = query.getAll(name);
    if (values.length > 1) throw new UsageError(`more than one ${name}`);
    return values[0] ?? null;
  };
  const integer = (name, min, fallback, max = Number.MAX_SAFE_INTEGER) => {
    const text = single(name);
    if (text === null) return fallback;
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(value >= min)) throw new UsageError(`${name} must be an integer of at least ${min}, not '${text}'`);
    if (value > max) throw new UsageError(`${name} must be at most ${max}, not '${text}'`);
    return value;
  };
  const limitName = LIMIT_NAMES[style];
  if (limitName === undefined) throw new Error(`not a list style: ${style}`);
  if (style === 'drf' || style === 'jsonapi') {
    const last = (name) => query.getAll(name).at(-1) ?? null;
    const size = pythonInteger(last(limitName));
    const text = last(style === 'drf' ? 'page' : 'page[number]');
    const page = text === null ? 1 : text === 'last' ? 'last' : pythonInteger(text);
    return {
      page: Number.isNaN(page) ? null : page,
      limit: Math.min(size >= 1 ? size : pageSize, maxLimit),
      totals: optionalTotals(single('totals'), totals),
    };
  }
  const limit = Math.min(integer(limitName, 1, pageSize, Infinity), maxLimit);
  switch (style) {
    case 'offset':
      return { offset: integer('offset', 0, 0), limit, totals: optionalTotals(single('totals'), totals) };
    case 'page':
      return { page: integer('page', 1, 1), limit, totals: optionalTotals(single('totals'), totals) };
    case 'keyset':
      return { startingAfter: single('starting_after'), limit };
  }
}

/**
 * The page that a drf or jsonapi request's `page` (see parseListQuery) names among `length` notes in
 * pages of `limit`, or null where Django's Paginator finds no such page (Django REST framework then
 * answers 404 "Invalid page."): not an integer, below 1, or past the last page. Page 1 always exists,
 * even with no notes; 'last' is the last page.
 */
export function resolvePageNumber(page, length, limit) {
  const lastPage = Math.max(1, Math.ceil(length / limit));
  if (page === 'last') return lastPage;
  return Number.isSafeInteger(page) && page >= 1 && page <= lastPage ? page : null;
}

/** The list of generated notes that a request with these faults sees: with the notes of each shift that has acted. */
export function listView(state, faults) {
  const keys = new Set(faults.filter((fault) => fault.kind === 'shift').map((fault) => fault.key));
  const batches = state.shifted.filter((shift) => keys.has(shift.key)).map((shift) => shift.notes);
  return new NoteList(state.generated.count, batches, state.generated.idKind, state.generated.seed, state.generated.titles);
}

/**
 * The position of the first note a list request asks for, or null for a keyset id (keyset's
 * starting_after, the last id of a Kinto token, DynamoDB's ExclusiveStartKey) that no note has.
 */
export function listStart(style, listQuery, list) {
  switch (style) {
    case 'offset': case 'ogc': case 'offset-echo': return listQuery.offset;
    case 'keyset': case 'next-page': case 'dynamodb': {
      if (listQuery.startingAfter === null) return 0;
      const position = list.positionOf(listQuery.startingAfter);
      return position === -1 ? null : position + 1;
    }
    default: return (listQuery.page - 1) * listQuery.limit;
  }
}

/** What a list style answers a keyset id that no note has (see listStart), in the real server's form where it has one. */
export function unknownStart(style) {
  switch (style) {
    case 'next-page': return styleError(new StyleError(400, kintoErrorBody(null, '_token has invalid content')));
    case 'dynamodb':
      return styleError(dynamoError(DYNAMODB_VALIDATION, 'The provided starting key is invalid: The provided key element does not match the schema'));
    default: return jsonError(400, 'unknown-cursor', 'no note has this id');
  }
}

/**
 * A page of the list styles (offset, page, keyset, jsonapi, drf with integer ids, and the styles of
 * real servers): the notes from the requested place, up to the limit, with the content faults applied;
 * `cycle` points `next` at the previous page (keyset, page-echo and offset-echo refuse it earlier).
 * Totals are announced as --totals or `totals=` say, off by --total-lie; `next` and `has_more` follow
 * the notes, not the announcement (but see realListResponse). A Kinto filter matches no note.
 */
export async function listResponse(style, list, listQuery, contentFaults, query, state) {
  const { seed, totalLie } = state.generated;
  const limit = listQuery.limit;
  const start = listStart(style, listQuery, list);
  const end = listQuery.filtered ? start : Math.min(list.length, start + limit);
  const form = style === 'jsonapi' ? 'jsonapi' : style === 'eve' ? 'eve' : 'plain';
  const idKey = form === 'eve' ? '_id' : 'id';
  const items = start >= end
    ? Buffer.from('[]')
    : (await state.cache.get(`notes ${form} ${list.signature} ${start} ${end}`, async () => ({ body: list.render(seed, start, end, form) }))).body;
  let itemParts = [items];
  if (contentFaults.some((fault) => fault.kind !== 'cycle')) {
    const firstId = list.length === 0 ? null : Buffer.from(JSON.stringify(form === 'jsonapi' ? String(list.idAt(0)) : list.idAt(0)));
    itemParts = applyContentFaults(items, contentFaults, firstId, idKey);
  }
  const cycles = contentFaults.some((fault) => fault.kind === 'cycle');
  if (REAL_STYLES.includes(style)) return realListResponse(style, list, listQuery, { start, end, itemParts, cycles }, query, state);
  if (style === 'keyset') return keysetResponse(itemParts, end < list.length);
  const total = Math.max(0, list.length + totalLie);
  const page = { start, itemParts, cycles, total, lastPage: Math.max(1, Math.ceil(total / limit)) };
  if (style === 'drf') return drfResponse(list, listQuery, page, query, state.base);
  if (style === 'jsonapi') return jsonApiResponse(list, listQuery, page, query, state.base);
  return offsetPageResponse(style, list, listQuery, page, query, state.base);
}
