// Unit tests of the next-page style (kinto.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kintoErrorBody, kintoFilters, kintoNextUrl, kintoToken, parseKintoToken, wrapNextPage } from './kinto.mjs';
import { bytes, listSettings as settings, parseList as parse, refusal } from '../../testing/units.mjs';

const items = [Buffer.from('[{"id":"a"},{"id":"b"}]')];

describe('next-page (Kinto)', () => {
  test('_limit (default --page-size, capped at --max-limit; empty is the default; the last value), _token, filters', () => {
    assert.deepEqual(parse('next-page', ''), { startingAfter: null, tokenOffset: 0, limit: 10, filtered: false, totals: settings.totals });
    assert.equal(parse('next-page', '_limit=7').limit, 7);
    assert.equal(parse('next-page', '_limit=99').limit, 50);
    assert.equal(parse('next-page', '_limit=').limit, 10);
    assert.equal(parse('next-page', '_limit=3&_limit=+4').limit, 4);
    assert.equal(parse('next-page', 'totals=none').totals.header, false);
    const token = kintoToken('n41', 43);
    assert.deepEqual(parse('next-page', `_token=${encodeURIComponent(token)}&_limit=5`), { startingAfter: 'n41', tokenOffset: 43, limit: 5, filtered: false, totals: settings.totals });
    assert.equal(parse('next-page', `_token=${encodeURIComponent(kintoToken(12, 3))}`).startingAfter, '12');
    for (const query of ['cursor=abc', 'title=x', 'in_id=n1', '_since=0', '_before=9', 'style=next-page&has_rank=true']) {
      assert.equal(parse('next-page', query).filtered, true, query);
    }
    for (const query of ['style=next-page&fault=503@9&totals=count&compress=gzip', '_sort=-id', '_fields=id', '_expected=1', '_limit=2']) {
      assert.equal(parse('next-page', query).filtered, false, query);
    }
    assert.deepEqual(kintoFilters(new URLSearchParams('a=1&a=2&_x=1&_to=3&style=eve')), ['a', '_to']);
  });

  test('the token: base64 of json.dumps of last_object, offset and a nonce, as Kinto makes it', () => {
    const token = kintoToken('n41', 43);
    assert.match(token, /^[A-Za-z0-9+/]+={0,2}$/);
    const text = Buffer.from(token, 'base64').toString();
    assert.match(text, /^\{"last_object": \{"id": "n41"\}, "offset": 43, "nonce": "pagination-token-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"\}$/);
    assert.equal(kintoToken('n41', 43), token);
    assert.notEqual(kintoToken('n41', 44), token);
    assert.deepEqual(parseKintoToken(token), { lastId: 'n41', offset: 43 });
    // Characters outside base64's alphabet are dropped, as Python's b64decode drops them.
    assert.deepEqual(parseKintoToken(`${token.slice(0, 5)} \n${token.slice(5)}`), { lastId: 'n41', offset: 43 });
  });

  test("Kinto's 400 for a bad _limit or _token", () => {
    const invalid = (description, name = null) => ({
      status: 400,
      body: { code: 400, errno: 107, error: 'Invalid parameters', message: name === null ? `querystring: ${description}` : `${name} in querystring: ${description}`, details: [{ location: 'querystring', name, description }] },
      headers: {},
    });
    assert.deepEqual(refusal('next-page', '_limit=abc'), invalid('"abc" is not a number', '_limit'));
    assert.deepEqual(refusal('next-page', '_limit=2.5'), invalid('"2.5" is not a number', '_limit'));
    assert.deepEqual(refusal('next-page', '_limit=0'), invalid('0 is less than minimum value 1', '_limit'));
    assert.deepEqual(refusal('next-page', '_limit=-3'), invalid('-3 is less than minimum value 1', '_limit'));
    const b64 = (text) => encodeURIComponent(Buffer.from(text).toString('base64'));
    for (const token of ['abc', 'eyJ4IjoxfQ', b64('[1]'), b64('{"last_object":{"id":"n1"},"offset":1}'), b64('{"last_object":[],"offset":1,"nonce":"x"}'),
      b64('{"last_object":{},"offset":1,"nonce":"x"}'), b64('{"last_object":{"id":null},"offset":1,"nonce":"x"}'), b64('not json'), '%FF%FE']) {
      assert.deepEqual(refusal('next-page', `_token=${token}`), invalid('_token has invalid content'), token);
    }
    assert.deepEqual(kintoErrorBody('_limit', '_limit is bad'), { ...invalid('_limit is bad', '_limit').body, message: '_limit is bad' });
  });

  test('Next-Page: the request\'s query, _limit and _token set where they were or last, as quote_plus writes them', () => {
    const token = kintoToken('n9', 11);
    const quoted = token.replaceAll('+', '%2B').replaceAll('/', '%2F').replaceAll('=', '%3D');
    assert.equal(kintoNextUrl('http://h:1', [], 10, token), `http://h:1/notes?_limit=10&_token=${quoted}`);
    assert.equal(kintoNextUrl('http://h:1', [['style', 'next-page'], ['_token', 'old'], ['fault', 'delay:1'], ['fault', '503@2'], ['_limit', '99']], 50, token),
      `http://h:1/notes?style=next-page&_token=${quoted}&fault=503%402&_limit=50`);
  });

  test('the envelope: {"data":[…]} with Next-Page and Total-Records', () => {
    const page = wrapNextPage(items, { nextUrl: 'http://h:1/notes?_limit=2&_token=T', totalHeader: 7 });
    assert.deepEqual(page.headers, { 'Next-Page': 'http://h:1/notes?_limit=2&_token=T', 'Total-Records': '7' });
    assert.equal(bytes(page.parts).toString(), '{"data":[{"id":"a"},{"id":"b"}]}');
    assert.deepEqual(wrapNextPage(items, { nextUrl: null, totalHeader: null }).headers, {});
  });
});
