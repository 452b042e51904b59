// Walks of the styles of real servers by each one's own signal, and the server that their end-to-end
// tests share.

import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { scanNotes } from '../notes/scan.mjs';
import { json, request, startServer, walk } from './harness.mjs';
import { arrayAt } from './notes-dir.mjs';

export const REAL_STYLES = ['next-page', 'ogc', 'x-pagination', 'page-echo', 'offset-echo', 'eve', 'dynamodb'];

/** A DynamoDB Scan of `body` (an object, or raw text) POSTed to `url`, with the headers the AWS SDKs send. */
export function scan(url, body, headers = {}) {
  return request(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.Scan', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * Walks a real server's style from `url` by the style's own signal, as its clients do, and returns each
 * response with its body, notes and ids (Eve's `_id`):
 *   next-page     the Next-Page header (Kinto)
 *   ogc           the href of the link with rel "next" (pygeoapi)
 *   x-pagination  X-Pagination's next_page, set as page= (flask-smorest)
 *   page-echo     current_page + 1 while below total_pages (Litestar)
 *   offset-echo   offset + limit while below total (Litestar)
 *   eve           _links.next.href, relative to the API root (Eve)
 *   dynamodb      the same POST with ExclusiveStartKey = LastEvaluatedKey while there is one, Limit `limit`
 */
export async function walkReal(url, style, { limit = null, maxPages = 60, headers = {} } = {}) {
  const pages = [];
  let next = url;
  let startKey = null;
  while (next !== null) {
    assert.ok(pages.length < maxPages, 'the walk does not end');
    const res = style === 'dynamodb'
      ? await scan(next, { TableName: 'notes', ...(limit === null ? {} : { Limit: limit }), ...(startKey === null ? {} : { ExclusiveStartKey: startKey }) }, headers)
      : await request(next, { headers });
    assert.equal(res.status, 200, `${next}: ${res.body}`);
    const body = json(res);
    const at = new URL(next);
    let notes;
    switch (style) {
      case 'next-page':
        notes = body.data;
        next = res.headers['next-page'] ?? null;
        break;
      case 'ogc':
        notes = body.features;
        next = body.links.find((link) => link.rel === 'next')?.href ?? null;
        break;
      case 'x-pagination': {
        notes = body;
        const meta = JSON.parse(res.headers['x-pagination']);
        at.searchParams.set('page', String(meta.next_page));
        next = meta.next_page === undefined ? null : at.href;
        break;
      }
      case 'page-echo':
        notes = body.items;
        at.searchParams.set('current_page', String(body.current_page + 1));
        next = body.current_page < body.total_pages ? at.href : null;
        break;
      case 'offset-echo':
        notes = body.items;
        at.searchParams.set('offset', String(body.offset + body.limit));
        next = body.offset + body.limit < body.total ? at.href : null;
        break;
      case 'eve':
        notes = body._items;
        next = body._links.next ? new URL(body._links.next.href, `${at.origin}/`).href : null;
        break;
      case 'dynamodb':
        notes = body.Items;
        startKey = body.LastEvaluatedKey ?? null;
        if (startKey === null) next = null;
        break;
      default:
        throw new Error(`not a real server's style: ${style}`);
    }
    pages.push({ res, body, notes, ids: notes.map((note) => (style === 'eve' ? note._id : note.id)) });
  }
  return pages;
}

/**
 * The server that the end-to-end tests of the real servers' styles share (--count 25, pages of 10, seed
 * 7), started before the suite's tests and stopped, exit 0, after them; call it in the describe. `base`
 * is set once it has started. `rawNotes` maps each id to the note's bytes in contract style, `KEYS` is
 * where each style's notes are in its body (null: the body is the array), `LIMITS` its page size
 * parameter; `get(query)` asks the server; `notesBytes(body, key)` is the notes of a body under `key`,
 * each as its bytes, and `noteIn(style, id)` a note's bytes in a style (Eve's with `_id`).
 */
export function realServersSuite() {
  const N = 25;
  const allIds = Array.from({ length: N }, (_, i) => `n${i}`);
  let server;
  const rawNotes = new Map(); // id -> the note's bytes, from the contract pages
  // Where each style's notes are in its body (null: the body is the array), and its page size parameter.
  const KEYS = { 'next-page': 'data', ogc: 'features', 'x-pagination': null, 'page-echo': 'items', 'offset-echo': 'items', eve: '_items', dynamodb: 'Items' };
  const LIMITS = { 'next-page': '_limit', ogc: 'limit', 'x-pagination': 'page_size', 'page-echo': 'page_size', 'offset-echo': 'limit', eve: 'max_results' };
  const suite = { N, allIds, base: null, rawNotes, KEYS, LIMITS };
  suite.get = (query, headers) => request(`${suite.base}?${query}`, { headers });

  /** The notes array of a response body under `key` (the whole body for null), as its notes' bytes. */
  suite.notesBytes = function notesBytes(body, key) {
    const start = key === null ? 0 : body.indexOf(`"${key}":[`) + key.length + 3;
    const items = body.subarray(...arrayAt(body, start));
    return scanNotes(items, key === '_items' ? '_id' : 'id').map((note) => items.subarray(note.start, note.end).toString());
  };
  /** The bytes of note `id` in a style: as in contract style, with `_id` for `id` in Eve's. */
  suite.noteIn = (style, id) => (style === 'eve' ? rawNotes.get(id).replace('{"id":', '{"_id":') : rawNotes.get(id));

  before(async () => {
    server = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--quiet']);
    suite.base = server.url;
    for (const page of await walk(suite.base, 'contract')) for (const note of page.notes) rawNotes.set(note.id, JSON.stringify(note));
    // The contract bytes, not re-serialized: the notes as the server wrote them.
    for (const page of await walk(suite.base, 'contract')) {
      for (const note of suite.notesBytes(page.res.body, 'notes')) rawNotes.set(JSON.parse(note).id, note);
    }
    assert.deepEqual([...rawNotes.keys()], allIds);
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });
  return suite;
}
