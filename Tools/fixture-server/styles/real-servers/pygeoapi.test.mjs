// Unit tests of the ogc style (pygeoapi.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ogcLinks, wrapOgc } from './pygeoapi.mjs';
import { bytes, listSettings as settings, parseList as parse, refusal } from '../../testing/units.mjs';

const items = [Buffer.from('[{"id":"a"},{"id":"b"}]')];

describe('ogc (pygeoapi)', () => {
  test('offset and limit as pygeoapi reads them; limit capped silently (on_exceed throttle); f', () => {
    assert.deepEqual(parse('ogc', ''), { offset: 0, limit: 10, format: null, totals: settings.totals });
    assert.deepEqual(parse('ogc', 'offset=30&limit=7&f=json&page=3'), { offset: 30, limit: 7, format: 'json', totals: settings.totals });
    assert.equal(parse('ogc', 'limit=500').limit, 50);
    assert.equal(parse('ogc', 'offset=+3&offset=9').offset, 3);
    assert.equal(parse('ogc', 'limit=true').limit, 1);
    const invalid = (description) => ({ status: 400, body: { code: 'InvalidParameterValue', type: 'InvalidParameterValue', description }, headers: {} });
    assert.deepEqual(refusal('ogc', 'offset=x'), invalid('offset value should be an integer'));
    assert.deepEqual(refusal('ogc', 'offset='), invalid('offset value should be an integer'));
    assert.deepEqual(refusal('ogc', 'offset=-1'), invalid('offset value should be positive or zero'));
    for (const limit of ['x', '05', '2.5', '', '1e3']) assert.deepEqual(refusal('ogc', `limit=${limit}`), invalid('limit value should be an integer'), limit);
    for (const limit of ['0', '-4', 'false']) assert.deepEqual(refusal('ogc', `limit=${limit}`), invalid('limit value should be strictly positive'), limit);
  });

  test('links as pygeoapi writes them: self, alternates, prev, next, collection; the query repeated, quoted', () => {
    const pairs = [['style', 'ogc'], ['limit', '2'], ['offset', '4'], ['fault', 'delay:1'], ['fault', 'x'], ['q', 'a b,c']];
    const query = '&style=ogc&limit=2&fault=delay%3A1&q=a%20b,c';
    const base = 'http://h:1';
    assert.deepEqual(ogcLinks(base, pairs, { prevOffset: 2, nextOffset: 6 }), [
      { type: 'application/geo+json', rel: 'self', title: 'This document as GeoJSON', href: `${base}/notes?f=json${query}` },
      { rel: 'alternate', type: 'application/ld+json', title: 'This document as RDF (JSON-LD)', href: `${base}/notes?f=jsonld${query}` },
      { type: 'text/html', rel: 'alternate', title: 'This document as HTML', href: `${base}/notes?f=html${query}` },
      { type: 'application/geo+json', rel: 'prev', title: 'Items (prev)', href: `${base}/notes?offset=2${query}` },
      { rel: 'next', type: 'application/geo+json', title: 'Items (next)', href: `${base}/notes?offset=6${query}` },
      { type: 'application/json', title: 'notes', rel: 'collection', href: base },
    ]);
    const withFormat = ogcLinks(base, [['f', 'jsonld']], { format: 'jsonld', nextOffset: 10 });
    assert.deepEqual(withFormat.map((link) => link.rel), ['alternate', 'self', 'alternate', 'next', 'collection']);
    assert.equal(withFormat[3].href, `${base}/notes?f=jsonld&offset=10`);
    assert.deepEqual(ogcLinks(base, [], {}).map((link) => link.rel), ['self', 'alternate', 'alternate', 'collection']);
  });

  test('the envelope: a FeatureCollection as application/geo+json; numberMatched left out when off', () => {
    const links = [{ rel: 'next', href: 'u' }];
    const page = wrapOgc(items, { links, numberMatched: 7, returned: 2 });
    assert.deepEqual(page.headers, { 'Content-Type': 'application/geo+json' });
    assert.equal(bytes(page.parts).toString(), '{"type":"FeatureCollection","features":[{"id":"a"},{"id":"b"}],"numberMatched":7,"numberReturned":2,"links":[{"rel":"next","href":"u"}]}');
    assert.equal(bytes(wrapOgc(items, { links: [], numberMatched: null, returned: 2 }).parts).toString(),
      '{"type":"FeatureCollection","features":[{"id":"a"},{"id":"b"}],"numberReturned":2,"links":[]}');
  });
});
