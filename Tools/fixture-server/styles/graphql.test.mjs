// Unit tests of the paging of GraphQL connections (graphql.mjs); the endpoint:
// end-to-end/graphql*.test.mjs. Run with `node --test Tools/`.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../shared/errors.mjs';
import { connectionPage, connectionSlice, parseGraphQLRequest, relayCursor, relayPosition } from './graphql.mjs';

describe('GraphQL connections', () => {
  test('GraphQL-over-HTTP bodies: a query, optional variables and operationName; anything else is a UsageError', () => {
    assert.deepEqual(parseGraphQLRequest('{"query":"{ notes { totalCount } }"}'), { query: '{ notes { totalCount } }', variables: null, operationName: null });
    assert.deepEqual(parseGraphQLRequest('{"query":"q","variables":{"first":2},"operationName":"Q","extensions":{}}'),
      { query: 'q', variables: { first: 2 }, operationName: 'Q' });
    assert.deepEqual(parseGraphQLRequest('{"query":"q","variables":null,"operationName":null}'), { query: 'q', variables: null, operationName: null });
    for (const [text, message] of [['', /not JSON/], ['{"query":', /not JSON/], ['[{"query":"q"}]', /not a JSON object/], ['"q"', /not a JSON object/],
      ['{}', /no query/], ['{"query":" "}', /no query/], ['{"query":5}', /no query/], ['{"query":"q","variables":[1]}', /'variables' must be/],
      ['{"query":"q","variables":"{}"}', /'variables' must be/], ['{"query":"q","operationName":1}', /'operationName' must be/]]) {
      assert.throws(() => parseGraphQLRequest(text), (error) => error instanceof UsageError && message.test(error.message), text);
    }
  });

  test("cursors: base64 of arrayconnection:POSITION, as graphql-relay writes them; only those, written exactly so", () => {
    assert.equal(relayCursor(0), 'YXJyYXljb25uZWN0aW9uOjA=');
    assert.equal(Buffer.from(relayCursor(123), 'base64').toString(), 'arrayconnection:123');
    for (const position of [0, 1, 9, 10, 99, 12345]) assert.equal(relayPosition(relayCursor(position)), position);
    const b64 = (text) => Buffer.from(text).toString('base64');
    for (const cursor of ['', 'nope', b64('arrayconnection:'), b64('arrayconnection:-1'), b64('arrayconnection:01'), b64('arrayconnection:1.5'),
      b64('cursor:1'), 'YXJyYXljb25uZWN0aW9uOjA', `${relayCursor(1)}\n`, relayCursor(1).replace('=', '')]) {
      assert.equal(relayPosition(cursor), null, cursor);
    }
  });

  test('connectionSlice: first default 10, at most 100, not negative; after a known cursor only; --max-limit cuts; @PAGE', () => {
    assert.deepEqual(connectionSlice({}, 25), { start: 0, end: 10, size: 10, page: 1 });
    assert.deepEqual(connectionSlice({ first: null, after: null }, 25), { start: 0, end: 10, size: 10, page: 1 });
    assert.deepEqual(connectionSlice({ first: 10, after: relayCursor(9) }, 25), { start: 10, end: 20, size: 10, page: 2 });
    assert.deepEqual(connectionSlice({ first: 10, after: relayCursor(19) }, 25), { start: 20, end: 25, size: 10, page: 3 });
    assert.deepEqual(connectionSlice({ first: 10, after: relayCursor(24) }, 25), { start: 25, end: 25, size: 10, page: 3 });
    assert.deepEqual(connectionSlice({ first: 100 }, 1000), { start: 0, end: 100, size: 100, page: 1 });
    assert.deepEqual(connectionSlice({ first: 0 }, 5), { start: 0, end: 0, size: 0, page: 1 });
    assert.deepEqual(connectionSlice({ first: 50 }, 500, { maxLimit: 20 }), { start: 0, end: 20, size: 20, page: 1 });
    assert.deepEqual(connectionSlice({}, 0), { start: 0, end: 0, size: 10, page: 1 });
    assert.throws(() => connectionSlice({ first: 101 }, 500), { message: 'Requesting 101 records on the `notes` connection exceeds the `first` limit of 100 records.' });
    assert.throws(() => connectionSlice({ first: -1 }, 500), /cannot be less than zero/);
    assert.throws(() => connectionSlice({ after: 'nope' }, 500), { message: '`nope` does not appear to be a valid cursor.' });
    assert.throws(() => connectionSlice({ after: relayCursor(25) }, 25), /not appear to be a valid cursor/);
  });

  test('connectionPage: cursors and pageInfo as GitHub writes them; the last page keeps its endCursor', () => {
    const page = (start, end, length, faults) => connectionPage({ start, end }, length, faults);
    const first = page(0, 3, 5);
    assert.deepEqual(first.cursors, [0, 1, 2].map(relayCursor));
    assert.deepEqual(first.pageInfo, { hasNextPage: true, hasPreviousPage: false, startCursor: relayCursor(0), endCursor: relayCursor(2) });
    assert.deepEqual(page(3, 5, 5).pageInfo, { hasNextPage: false, hasPreviousPage: true, startCursor: relayCursor(3), endCursor: relayCursor(4) });
    assert.deepEqual(page(0, 0, 0).pageInfo, { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
    assert.deepEqual(page(5, 5, 5).pageInfo, { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
  });

  test('connectionPage faults: cycle names the cursor that asked for the page; endless never ends, repeating the cursor past the last note', () => {
    const cycle = connectionPage({ start: 3, end: 6 }, 10, { cycle: true });
    assert.deepEqual(cycle.cursors, [3, 4, 5].map(relayCursor));
    assert.equal(cycle.pageInfo.endCursor, relayCursor(2));
    assert.equal(cycle.pageInfo.hasNextPage, true);
    // Page 1: nothing asked for it, so nothing to cycle to.
    assert.equal(connectionPage({ start: 0, end: 3 }, 10, { cycle: true }).pageInfo.endCursor, relayCursor(2));
    const lastPage = connectionPage({ start: 6, end: 10 }, 10, { endless: true });
    assert.deepEqual(lastPage.pageInfo, { hasNextPage: true, hasPreviousPage: true, startCursor: relayCursor(6), endCursor: relayCursor(9) });
    const past = connectionPage({ start: 10, end: 10 }, 10, { endless: true });
    assert.deepEqual(past.pageInfo, { hasNextPage: true, hasPreviousPage: true, startCursor: null, endCursor: relayCursor(9) });
  });
});
