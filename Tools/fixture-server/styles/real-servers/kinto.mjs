// The next-page style, as Kinto pages the records of a collection: ?_limit=L&_token=T, the next page's
// URL in a Next-Page header, the count in Total-Records (and on HEAD in Total-Objects); any other query
// parameter filters on a field; errors as Kinto writes them.

import { StyleError } from '../../shared/errors.mjs';
import { isPlainObject, jsonPage, jsonResponse } from '../../shared/http.mjs';
import { pythonInteger, pythonJson, quotePlus } from '../../shared/python.mjs';
import { uuidFrom } from '../../shared/seeded.mjs';
import { SERVER_PARAMETERS } from '../catalog.mjs';

export const styles = ['next-page'];

/** Kinto's paging parameters (see real-servers.mjs): `{startingAfter, tokenOffset, limit, filtered}`. */
export function parseQuery(style, query, { maxLimit, defaultLimit }) {
  // Kinto validates _limit (colander's Integer, Range(min=1)) before anything else, reads it as
  // Python's int(), and serves at most its paginate_by.
  const text = query.getAll('_limit').at(-1) ?? '';
  let limit = defaultLimit;
  if (text !== '') {
    const value = pythonInteger(text);
    if (Number.isNaN(value)) throw new StyleError(400, kintoErrorBody('_limit', `"${text}" is not a number`));
    if (value < 1) throw new StyleError(400, kintoErrorBody('_limit', `${value} is less than minimum value 1`));
    limit = Math.min(value, maxLimit);
  }
  const token = query.getAll('_token').at(-1) ?? '';
  const position = token === '' ? { lastId: null, offset: 0 } : parseKintoToken(token);
  return { startingAfter: position.lastId, tokenOffset: position.offset, limit, filtered: kintoFilters(query).length > 0 };
}

/**
 * A page (real-servers.mjs's `page`): `{"data":[…]}`, Next-Page while notes follow, Total-Records as
 * the totals say. Kinto reads one note more than it serves to know whether a next page follows, and
 * its token's offset counts the notes read. HEAD: the counts alone.
 */
export function respond(style, itemParts, { list, listQuery, limit, totals, end, total, served, more, pairs, pageTwoAfter, base }) {
  if (listQuery.head) {
    // Kinto since 12.0 counts on HEAD only: Total-Objects, and Total-Records for older clients.
    const counts = { 'Total-Objects': String(total), 'Total-Records': String(total) };
    return jsonResponse(200, [Buffer.from('{"data":[]}')], counts);
  }
  const token = pageTwoAfter !== null ? kintoToken(pageTwoAfter, limit + 1)
    : more ? kintoToken(list.idAt(end - 1), listQuery.tokenOffset + served + 1) : null;
  return jsonPage(wrapNextPage(itemParts, { nextUrl: token && kintoNextUrl(base, pairs, limit, token), totalHeader: totals.header ? total : null }));
}

/** next-page: `{"data":[…]}` with `Next-Page: nav.nextUrl` and `Total-Records: nav.totalHeader` (each left out when null). */
export function wrapNextPage(items, nav) {
  const headers = {};
  if (nav.nextUrl !== null) headers['Next-Page'] = nav.nextUrl;
  if (nav.totalHeader !== null) headers['Total-Records'] = String(nav.totalHeader);
  return { headers, parts: [Buffer.from('{"data":'), ...items, Buffer.from('}')] };
}

/** The query parameters of Kinto's own that this style reads or ignores; any other name filters. */
export const KINTO_PARAMETERS = ['_limit', '_token', '_sort'];

// Kinto's filters on last_modified, which start with `_` but filter all the same.
const KINTO_TIMESTAMP_FILTERS = ['_since', '_to', '_before'];

/**
 * The query parameters that Kinto takes as filters on a field: every name but its own (`_limit`,
 * `_token`, `_sort`, and any other that starts with `_`, but `_since`, `_to` and `_before`) and the
 * server's (SERVER_PARAMETERS). Records keep unknown fields, so every field is known and no name is
 * refused: `?cursor=abc` asks for the records whose `cursor` is "abc", and no note has one.
 */
export function kintoFilters(query) {
  return [...new Set(query.keys())].filter((name) => {
    if (SERVER_PARAMETERS.includes(name)) return false;
    const field = name.trim();
    return !KINTO_PARAMETERS.includes(field) && (!field.startsWith('_') || KINTO_TIMESTAMP_FILTERS.includes(field));
  });
}

/**
 * Kinto's answer to a bad query parameter (400, errno 107), as its json_error_handler writes it:
 * `{"code":400,"errno":107,"error":"Invalid parameters","message":…,"details":[{location, name, description}]}`.
 */
export function kintoErrorBody(name, description) {
  const message = name === null ? `querystring: ${description}` : description.includes(name) ? description : `${name} in querystring: ${description}`;
  return { code: 400, errno: 107, error: 'Invalid parameters', message, details: [{ location: 'querystring', name, description }] };
}

/**
 * A Kinto pagination token: standard base64 of json.dumps of `{"last_object": {"id": ID}, "offset":
 * OFFSET, "nonce": "pagination-token-UUID"}`, the id of the last note served (Kinto keeps the values of
 * the sort fields; the notes are in id order) and Kinto's running offset, the nonce drawn from both.
 */
export function kintoToken(lastId, offset) {
  const nonce = `pagination-token-${uuidFrom(`notes-server kinto ${JSON.stringify(lastId)} ${offset}`)}`;
  return Buffer.from(pythonJson({ last_object: { id: lastId }, offset, nonce })).toString('base64');
}

/**
 * What a Kinto token says: `{lastId, offset}`, the id written as a string. As Kinto, the token is
 * base64 (characters outside its alphabet dropped, as Python's b64decode does) of a JSON object with
 * `last_object` (an object), `offset` and `nonce`; anything else, and a last_object without an id,
 * is Kinto's 400 `_token has invalid content` (StyleError).
 */
export function parseKintoToken(token) {
  const invalid = () => new StyleError(400, kintoErrorBody(null, '_token has invalid content'));
  const cleaned = token.replace(/[^A-Za-z0-9+/=]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(cleaned) || cleaned.length % 4 !== 0) throw invalid();
  let info;
  try {
    info = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(cleaned, 'base64')));
  } catch {
    throw invalid();
  }
  if (!isPlainObject(info) || !isPlainObject(info.last_object) || !Object.hasOwn(info, 'offset') || !Object.hasOwn(info, 'nonce')) throw invalid();
  const id = info.last_object.id;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) throw invalid();
  return { lastId: String(id), offset: Number.isSafeInteger(info.offset) ? info.offset : 0 };
}

/**
 * Kinto's Next-Page: the absolute URL of /notes with the request's query (`pairs`, decoded; one value a
 * name, the last, where the name first came, as a dict of WebOb's GET), `_limit` and `_token` set, as
 * Pyramid's route_url encodes a query (quote_plus).
 */
export function kintoNextUrl(base, pairs, limit, token) {
  const params = new Map(pairs);
  params.set('_limit', String(limit));
  params.set('_token', token);
  return `${base}/notes?${[...params].map(([name, value]) => `${quotePlus(name)}=${quotePlus(value)}`).join('&')}`;
}
