// Unit tests of the jsonapi style (jsonapi.mjs): its envelope, Accept and query checks. Run with `node
// --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptsJsonApi, jsonApiErrorBody, jsonApiQueryProblem, wrapJsonApi } from './jsonapi.mjs';
import { bytes } from '../testing/units.mjs';

describe('envelopes', () => {
  test('jsonapi: links, data, meta.pagination; the JSON:API media type; totals left out when off', () => {
    const links = { first: 'http://h:1/notes?page%5Bnumber%5D=1', last: 'http://h:1/notes?page%5Bnumber%5D=3', next: 'http://h:1/notes?page%5Bnumber%5D=3', prev: 'http://h:1/notes?page%5Bnumber%5D=1' };
    const resources = [Buffer.from('[{"type":"notes","id":"1","attributes":{"title":"t"}}]')];
    const page = wrapJsonApi(resources, { links, page: 2, pages: 3, count: 7 });
    assert.deepEqual(page.headers, { 'Content-Type': 'application/vnd.api+json' });
    assert.equal(bytes(page.parts).toString(), `{"links":${JSON.stringify(links)},"data":[{"type":"notes","id":"1","attributes":{"title":"t"}}],"meta":{"pagination":{"page":2,"pages":3,"count":7}}}`);
    const bare = JSON.parse(bytes(wrapJsonApi([Buffer.from('[]')], { links: { ...links, last: null, next: null }, page: 4, pages: null, count: null }).parts));
    assert.deepEqual(bare, { links: { first: links.first, next: null, prev: links.prev }, data: [], meta: { pagination: { page: 4 } } });
  });

  test('jsonapi requests: Accept negotiation and the query parameter filter', () => {
    for (const accept of [undefined, '*/*', 'application/*', 'application/vnd.api+json', 'text/html, application/vnd.api+json;q=0.9',
      'Application/VND.API+JSON', 'application/vnd.api+json; ext="https://example.com/ext"', 'text/html,*/*;q=0.8']) {
      assert.ok(acceptsJsonApi(accept), accept);
    }
    for (const accept of ['', 'application/json', 'text/html', 'application/vnd.api+jsonx', 'application/json, text/*']) assert.ok(!acceptsJsonApi(accept), accept);
    const problem = (query) => jsonApiQueryProblem(new URLSearchParams(query));
    for (const query of ['', 'page[number]=2&page[size]=3', 'page%5Bnumber%5D=2', 'sort=-id&include=author&fields[notes]=title&filter[x]=1&filter[x]=2',
      'style=jsonapi&fault=503@2&fault=delay:1&totals=none&compress=gzip', 'page=2', 'page[cursor]=x']) {
      assert.equal(problem(query), null, query);
    }
    assert.equal(problem('foo=1'), 'invalid query parameter: foo');
    assert.equal(problem('page[number]=1&cursor=abc'), 'invalid query parameter: cursor');
    assert.equal(problem('page_size=10'), 'invalid query parameter: page_size');
    assert.equal(problem('page[a][b]=1'), 'invalid query parameter: page[a][b]');
    assert.equal(problem('page[size]=1&page%5Bsize%5D=2'), 'repeated query parameter not allowed: page[size]');
    assert.equal(problem('sort=a&sort=b'), 'repeated query parameter not allowed: sort');
    assert.deepEqual(jsonApiErrorBody(406, 'not_acceptable', 'No.'), { errors: [{ detail: 'No.', status: '406', source: { pointer: '/data' }, code: 'not_acceptable' }] });
  });
});
