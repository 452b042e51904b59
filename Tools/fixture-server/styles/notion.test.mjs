// Unit tests of the Notion-style query (notion.mjs); the endpoint: end-to-end/notion.test.mjs. Run with
// `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { relayCursor } from './graphql.mjs';
import { notionCursor, NotionError, notionErrorBody, notionNextCursor, notionPosition, notionSlice, parseNotionQuery, wrapNotion } from './notion.mjs';
import { bytes } from '../testing/units.mjs';

describe('the Notion-style query', () => {
  const notionError = (code, message) => (error) => error instanceof NotionError && error.status === 400 && error.code === code && message.test(error.message);

  test('bodies: start_cursor and page_size (default 100, 1-100); nothing is {}; others ignored', () => {
    assert.deepEqual(parseNotionQuery(''), { body: {}, startCursor: null, pageSize: 100 });
    assert.deepEqual(parseNotionQuery('{"page_size":7,"start_cursor":"c","filter":{}}'), { body: { page_size: 7, start_cursor: 'c', filter: {} }, startCursor: 'c', pageSize: 7 });
    assert.equal(parseNotionQuery('{"page_size":100}').pageSize, 100);
    assert.throws(() => parseNotionQuery('{'), notionError('invalid_json', /^Error parsing JSON body\.$/));
    for (const [text, message] of [['[]', /body should be an object/], ['null', /body should be an object, instead was `null`/],
      ['{"start_cursor":null}', /body\.start_cursor should be a string or `undefined`, instead was `null`/], ['{"start_cursor":5}', /start_cursor should be a string/],
      ['{"page_size":"5"}', /page_size should be a number or `undefined`, instead was `"5"`/], ['{"page_size":2.5}', /page_size should be an integer/],
      ['{"page_size":0}', /greater than or equal to `1`/], ['{"page_size":101}', /^body failed validation: body\.page_size should be less than or equal to `100`, instead was `101`\.$/]]) {
      assert.throws(() => parseNotionQuery(text), notionError('validation_error', message), text);
      assert.throws(() => parseNotionQuery(text), { body: JSON.parse(text) }, text);
    }
  });

  test('cursors: version 4 UUIDs that carry the position; only those, written exactly so', () => {
    const cursor = notionCursor(100);
    assert.match(cursor, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-000000000064$/);
    assert.notEqual(notionCursor(1).slice(0, 8), notionCursor(2).slice(0, 8));
    for (const position of [0, 1, 99, 100, 123456]) assert.equal(notionPosition(notionCursor(position)), position);
    for (const bad of ['', 'abc', cursor.toUpperCase(), `${cursor.slice(0, -1)}5`, `${cursor.slice(0, 9)}0${cursor.slice(10)}`, relayCursor(1)]) {
      assert.equal(notionPosition(bad), null, bad);
    }
  });

  test('notionSlice and notionNextCursor: pages of page_size, a cursor for a page after the first, next_cursor null at the end; cycle', () => {
    const request = (startCursor, pageSize = 10) => ({ startCursor, pageSize });
    assert.deepEqual(notionSlice(request(null), 25), { start: 0, end: 10, size: 10, page: 1 });
    assert.deepEqual(notionSlice(request(notionCursor(20)), 25), { start: 20, end: 25, size: 10, page: 3 });
    assert.deepEqual(notionSlice(request(null, 100), 25, { maxLimit: 4 }), { start: 0, end: 4, size: 4, page: 1 });
    for (const position of [0, 25, 26]) {
      assert.throws(() => notionSlice(request(notionCursor(position)), 25), notionError('validation_error', /^The start_cursor provided is invalid: /));
    }
    assert.throws(() => notionSlice(request('x'), 25), { message: 'The start_cursor provided is invalid: x' });
    assert.equal(notionNextCursor({ start: 0, end: 10, size: 10 }, 25), notionCursor(10));
    assert.equal(notionNextCursor({ start: 20, end: 25, size: 10 }, 25), null);
    assert.equal(notionNextCursor({ start: 20, end: 25, size: 10 }, 25, true), notionCursor(10));
    assert.equal(notionNextCursor({ start: 0, end: 10, size: 10 }, 25, true), notionCursor(10));
    assert.equal(notionNextCursor({ start: 0, end: 0, size: 100 }, 0), null);
  });

  test('the envelope: object list, results, next_cursor, has_more, type', () => {
    const wrapped = wrapNotion([Buffer.from('[{"id":"a"}]')], { nextCursor: 'c', hasMore: true });
    assert.deepEqual(wrapped.headers, {});
    assert.deepEqual(JSON.parse(bytes(wrapped.parts)), { object: 'list', results: [{ id: 'a' }], next_cursor: 'c', has_more: true, type: 'page_database' });
    assert.equal(bytes(wrapNotion([Buffer.from('[]')], { nextCursor: null, hasMore: false }).parts).toString(),
      '{"object":"list","results":[],"next_cursor":null,"has_more":false,"type":"page_database"}');
    assert.deepEqual(notionErrorBody(400, 'validation_error', 'm'), { object: 'error', status: 400, code: 'validation_error', message: 'm' });
  });
});
