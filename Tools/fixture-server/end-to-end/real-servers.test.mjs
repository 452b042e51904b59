// End-to-end tests: the styles of real servers (--count): walks by each one's own signal, and each one's
// pages; the server runs as a child process on port 0 and is asked over HTTP (testing/harness.mjs), one
// server for the file (testing/real-servers.mjs). Run with `node --test Tools/`.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { json, JSON_TYPE, request, startServer } from '../testing/harness.mjs';
import { REAL_STYLES, realServersSuite, scan, walkReal } from '../testing/real-servers.mjs';

describe('the styles of real servers (--count)', () => {
  const suite = realServersSuite();
  const { N, allIds, KEYS, LIMITS, get, notesBytes, noteIn } = suite;
  let base;
  before(() => {
    base = suite.base;
  });

  for (const style of REAL_STYLES) {
    test(`${style}: following its own signal yields n0..n${N - 1} once, in order, each note the same bytes as in contract style`, async () => {
      for (const limit of [null, 1, 7, 10, 24, 25, 1000]) {
        const start = style === 'dynamodb' || limit === null ? `${base}?style=${style}` : `${base}?style=${style}&${LIMITS[style]}=${limit}`;
        const pages = await walkReal(start, style, { limit: style === 'dynamodb' ? limit : null });
        const size = limit ?? 10;
        const sizes = Array.from({ length: Math.ceil(N / size) }, (_, i) => Math.min(size, N - i * size));
        // pygeoapi links a next page from every full page, so a last page that is full is followed by an empty one.
        if (style === 'ogc' && N % size === 0) sizes.push(0);
        assert.deepEqual(pages.map((p) => p.ids.length), sizes, `${style} limit ${limit}`);
        assert.deepEqual(pages.flatMap((p) => p.ids), allIds, `${style} limit ${limit}`);
        for (const page of pages) assert.deepEqual(notesBytes(page.res.body, KEYS[style]), page.ids.map((id) => noteIn(style, id)), `${style} limit ${limit}`);
      }
    });
  }

  test('--count 0: an empty list in every style, with no next page', async () => {
    const empty = await startServer(['--count', '0', '--quiet']);
    try {
      const at = (style) => request(`${empty.url}?style=${style}`);
      const kinto = await at('next-page');
      assert.equal(kinto.body.toString(), '{"data":[]}');
      assert.equal(kinto.headers['next-page'], undefined);
      assert.equal(kinto.headers['total-records'], '0');
      const ogc = json(await at('ogc'));
      assert.deepEqual([ogc.features, ogc.numberMatched, ogc.numberReturned], [[], 0, 0]);
      assert.deepEqual(ogc.links.map((link) => link.rel), ['self', 'alternate', 'alternate', 'collection']);
      const smorest = await at('x-pagination');
      assert.equal(smorest.body.toString(), '[]');
      assert.equal(smorest.headers['x-pagination'], '{"total": 0, "total_pages": 0}');
      assert.equal((await at('page-echo')).body.toString(), '{"items":[],"page_size":100,"current_page":1,"total_pages":0}');
      assert.equal((await at('offset-echo')).body.toString(), '{"items":[],"limit":100,"offset":0,"total":0}');
      const eve = await at('eve');
      assert.equal(eve.body.toString(), '{"_items":[],"_links":{"parent":{"title":"home","href":"/"},"self":{"title":"notes","href":"notes"}},"_meta":{"page":1,"max_results":100,"total":0}}');
      assert.equal(eve.headers['x-total-count'], '0');
      assert.equal((await scan(`${empty.url}?style=dynamodb`, { TableName: 'notes' })).body.toString(), '{"Count":0,"Items":[],"ScannedCount":0}');
      for (const style of REAL_STYLES) assert.deepEqual((await walkReal(`${empty.url}?style=${style}`, style)).map((p) => p.ids.length), [0], style);
    } finally {
      assert.equal((await empty.stop()).code, 0);
    }
  });

  test('next-page: {"data":[…]}, Next-Page with _limit and an opaque _token (base64 of JSON), Total-Records; none of it past the last page', async () => {
    const first = await get('style=next-page');
    assert.equal(first.headers['content-type'], JSON_TYPE);
    assert.deepEqual(Object.keys(json(first)), ['data']);
    assert.equal(first.headers['total-records'], String(N));
    const next = new URL(first.headers['next-page']);
    assert.equal(`${next.origin}${next.pathname}`, base);
    assert.deepEqual([...next.searchParams.keys()], ['style', '_limit', '_token']);
    assert.equal(next.searchParams.get('_limit'), '10');
    const token = next.searchParams.get('_token');
    // The token is standard base64, percent-encoded in the URL as Python's quote_plus encodes it.
    assert.equal(first.headers['next-page'], `${base}?style=next-page&_limit=10&_token=${encodeURIComponent(token)}`);
    const info = JSON.parse(Buffer.from(token, 'base64'));
    assert.deepEqual(Object.keys(info), ['last_object', 'offset', 'nonce']);
    assert.deepEqual(info.last_object, { id: 'n9' });
    assert.equal(info.offset, 11);
    assert.match(info.nonce, /^pagination-token-[0-9a-f-]{36}$/);
    assert.match(Buffer.from(token, 'base64').toString(), /^\{"last_object": \{"id": "n9"\}, "offset": 11, /);
    const pages = await walkReal(`${base}?style=next-page`, 'next-page');
    assert.deepEqual(pages.map((p) => p.res.headers['next-page'] === undefined), [false, false, true]);
    assert.deepEqual(pages.map((p) => p.res.headers['total-records']), [String(N), String(N), String(N)]);
    // The query the request had stays in Next-Page, _limit and _token where they were; the limit served.
    const kept = await get('style=next-page&_sort=-id&_limit=3&fault=delay:1');
    assert.match(kept.headers['next-page'], new RegExp(`^${base}\\?style=next-page&_sort=-id&_limit=3&fault=delay%3A1&_token=`));
    assert.equal(json(kept).data.length, 3);
    // A larger _limit is served as --max-limit (Kinto's paginate_by), silently.
    const capped = await get('style=next-page&_limit=2000');
    assert.deepEqual([json(capped).data.length, capped.headers['next-page']], [N, undefined]);
    // The totals: Total-Records with the header total, --total-lie too; HEAD counts as Kinto 12 does.
    assert.equal((await get('style=next-page&totals=count,link,pages')).headers['total-records'], undefined);
    const head = await request(`${base}?style=next-page`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.deepEqual([head.headers['total-objects'], head.headers['total-records'], head.headers['next-page']], [String(N), String(N), undefined]);
    assert.equal((await request(`${base}?style=next-page`, { method: 'DELETE' })).headers.allow, 'GET, HEAD');
  });

  test('next-page: any other query parameter is a filter on a field that no note has, as in Kinto: an empty page, no Next-Page', async () => {
    for (const query of ['cursor=abc', 'page=2', 'limit=5', 'offset=10', 'title=x', 'in_id=n1,n2', '_since=0']) {
      const res = await get(`style=next-page&${query}`);
      assert.equal(res.status, 200, query);
      assert.equal(res.body.toString(), '{"data":[]}', query);
      assert.equal(res.headers['next-page'], undefined, query);
      assert.equal(res.headers['total-records'], '0', query);
    }
    // Even on a later page: the token names where to go on, the filter what to keep.
    const second = (await get('style=next-page')).headers['next-page'];
    assert.equal((await request(`${second}&cursor=abc`)).body.toString(), '{"data":[]}');
    // Kinto's own names (those that start with `_`) and the server's are not filters.
    for (const query of ['_fields=id', '_expected=1', '_sort=title', 'fault=delay:1&totals=header&compress=none']) {
      assert.equal(json(await get(`style=next-page&${query}`)).data.length, 10, query);
    }
  });

  test("next-page: Kinto's 400 for a bad _token or _limit, and for a token whose note is gone", async () => {
    const invalid = async (query, message, name) => {
      const res = await get(`style=next-page&${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(json(res), { code: 400, errno: 107, error: 'Invalid parameters', message, details: [{ location: 'querystring', name, description: message.replace(/^.* in querystring: |^querystring: /, '') }] }, query);
    };
    await invalid('_token=abc', 'querystring: _token has invalid content', null);
    await invalid(`_token=${encodeURIComponent(Buffer.from('{"last_object":{"id":"n99"},"offset":1,"nonce":"x"}').toString('base64'))}`, 'querystring: _token has invalid content', null);
    await invalid('_limit=ten', '_limit in querystring: "ten" is not a number', '_limit');
    await invalid('_limit=0', '_limit in querystring: 0 is less than minimum value 1', '_limit');
    // A token made by hand, as Kinto reads it: its last_object names where the page starts.
    const token = Buffer.from('{"last_object": {"id": "n20"}, "offset": 21, "nonce": "x"}').toString('base64');
    assert.deepEqual(json(await get(`style=next-page&_token=${encodeURIComponent(token)}`)).data.map((n) => n.id), allIds.slice(21));
  });

  test('ogc: a FeatureCollection as application/geo+json, numberMatched and numberReturned, pygeoapi\'s links', async () => {
    const first = await get('style=ogc');
    assert.equal(first.headers['content-type'], 'application/geo+json');
    const body = json(first);
    assert.deepEqual(Object.keys(body), ['type', 'features', 'numberMatched', 'numberReturned', 'links']);
    assert.deepEqual([body.type, body.numberMatched, body.numberReturned], ['FeatureCollection', N, 10]);
    assert.deepEqual(body.links, [
      { type: 'application/geo+json', rel: 'self', title: 'This document as GeoJSON', href: `${base}?f=json&style=ogc` },
      { rel: 'alternate', type: 'application/ld+json', title: 'This document as RDF (JSON-LD)', href: `${base}?f=jsonld&style=ogc` },
      { type: 'text/html', rel: 'alternate', title: 'This document as HTML', href: `${base}?f=html&style=ogc` },
      { rel: 'next', type: 'application/geo+json', title: 'Items (next)', href: `${base}?offset=10&style=ogc` },
      { type: 'application/json', title: 'notes', rel: 'collection', href: base.replace(/\/notes$/, '') },
    ]);
    const third = json(await get('style=ogc&offset=20&limit=10&fault=delay:1'));
    assert.deepEqual(third.links.filter((link) => link.rel === 'prev' || link.rel === 'next'), [
      { type: 'application/geo+json', rel: 'prev', title: 'Items (prev)', href: `${base}?offset=10&style=ogc&limit=10&fault=delay%3A1` },
    ]);
    assert.equal(third.numberReturned, 5);
    // With f=json, next and prev name the format first, as pygeoapi does.
    assert.equal(json(await get('f=json&style=ogc&offset=3')).links.find((link) => link.rel === 'next').href, `${base}?f=json&offset=13&style=ogc`);
    // Without numberMatched (totals=none), only a full page has a next link: the walk ends on a short or empty page.
    const counted = await walkReal(`${base}?style=ogc&limit=5&totals=none`, 'ogc');
    assert.deepEqual(counted.map((p) => p.ids.length), [5, 5, 5, 5, 5, 0]);
    assert.ok(counted.every((p) => !('numberMatched' in p.body)));
    const invalid = (description) => ({ code: 'InvalidParameterValue', type: 'InvalidParameterValue', description });
    for (const [query, description] of [['offset=x', 'offset value should be an integer'], ['offset=-5', 'offset value should be positive or zero'],
      ['limit=2.5', 'limit value should be an integer'], ['limit=0', 'limit value should be strictly positive']]) {
      const res = await get(`style=ogc&${query}`);
      assert.equal(res.status, 400, query);
      assert.deepEqual(json(res), invalid(description), query);
    }
    assert.equal(json(await get('style=ogc&limit=5000')).features.length, N);
  });

  test('x-pagination: a bare array, X-Pagination as flask-smorest writes it; unknown parameters ignored; 422', async () => {
    const header = async (query) => (await get(`style=x-pagination&${query}`)).headers['x-pagination'];
    assert.equal(await header(''), '{"total": 25, "total_pages": 3, "first_page": 1, "last_page": 3, "page": 1, "next_page": 2}');
    assert.equal(await header('page=2'), '{"total": 25, "total_pages": 3, "first_page": 1, "last_page": 3, "page": 2, "previous_page": 1, "next_page": 3}');
    assert.equal(await header('page=3'), '{"total": 25, "total_pages": 3, "first_page": 1, "last_page": 3, "page": 3, "previous_page": 2}');
    assert.equal(await header('page=4'), '{"total": 25, "total_pages": 3, "first_page": 1, "last_page": 3}');
    assert.equal(await header('page=2&page_size=24'), '{"total": 25, "total_pages": 2, "first_page": 1, "last_page": 2, "page": 2, "previous_page": 1}');
    assert.equal((await get('style=x-pagination&page=4')).body.toString(), '[]');
    assert.deepEqual(json(await get('style=x-pagination&page=2&cursor=x&per_page=3&offset=1')).map((n) => n.id), allIds.slice(10, 20));
    assert.equal(await header('totals=count'), undefined);
    const refused = await get('style=x-pagination&page=0&page_size=1001');
    assert.equal(refused.status, 422);
    assert.deepEqual(json(refused), {
      code: 422,
      errors: { query: { page: ['Must be greater than or equal to 1.'], page_size: ['Must be greater than or equal to 1 and less than or equal to 1000.'] } },
      status: 'Unprocessable Entity',
    });
    assert.deepEqual(json(await get('style=x-pagination&page_size=ten')).errors, { query: { page_size: ['Not a valid integer.'] } });
  });

  test('page-echo and offset-echo: the page as served echoed; unknown parameters ignored (page=2 is page 1); Litestar\'s 400', async () => {
    const paged = json(await get('style=page-echo&current_page=2&page_size=4'));
    assert.deepEqual(Object.keys(paged), ['items', 'page_size', 'current_page', 'total_pages']);
    assert.deepEqual([paged.page_size, paged.current_page, paged.total_pages], [4, 2, 7]);
    assert.deepEqual(paged.items.map((n) => n.id), allIds.slice(4, 8));
    const ignored = json(await get('style=page-echo&page=2&per_page=3&limit=2'));
    assert.deepEqual([ignored.current_page, ignored.page_size, ignored.items[0].id], [1, 10, 'n0']);
    assert.deepEqual(json(await get('style=page-echo&current_page=9')).items, []);
    assert.equal(json(await get('style=page-echo&page_size=5000')).page_size, 1000);
    const offset = json(await get('style=offset-echo&offset=20&limit=10&page=4'));
    assert.deepEqual(Object.keys(offset), ['items', 'limit', 'offset', 'total']);
    assert.deepEqual([offset.limit, offset.offset, offset.total, offset.items.length], [10, 20, N, 5]);
    assert.deepEqual(json(await get('style=offset-echo&offset=30')).items, []);
    assert.equal(json(await get('style=offset-echo&totals=none')).total, undefined);
    assert.equal(json(await get('style=page-echo&totals=count')).total_pages, undefined);
    const refused = await get('style=page-echo&current_page=0&page_size=x');
    assert.equal(refused.status, 400);
    assert.deepEqual(json(refused), {
      status_code: 400,
      detail: 'Validation failed for GET /notes?style=page-echo&current_page=0&page_size=x',
      extra: [{ message: 'Expected `int`, got `str`', key: 'page_size', source: 'query' }, { message: 'Expected `int` >= 1', key: 'current_page', source: 'query' }],
    });
    assert.deepEqual(json(await get('style=offset-echo&offset=-1')).extra, [{ message: 'Expected `int` >= 0', key: 'offset', source: 'query' }]);
  });

  test('eve: _items with _id, _links with relative hrefs without a leading slash, _meta, X-Total-Count', async () => {
    const first = await get('style=eve');
    assert.equal(first.headers['x-total-count'], String(N));
    const body = json(first);
    assert.deepEqual(Object.keys(body), ['_items', '_links', '_meta']);
    assert.deepEqual(body._items.map((n) => Object.keys(n)[0]), Array(10).fill('_id'));
    assert.ok(body._items.every((n) => !('id' in n)));
    assert.deepEqual(body._links, {
      parent: { title: 'home', href: '/' },
      self: { title: 'notes', href: 'notes?style=eve' },
      next: { title: 'next page', href: 'notes?page=2&style=eve' },
      last: { title: 'last page', href: 'notes?page=3&style=eve' },
    });
    assert.deepEqual(body._meta, { page: 1, max_results: 10, total: N });
    // max_results appears when it is not the default (--page-size), before the page; the other parameters raw.
    const sized = json(await get('style=eve&page=2&max_results=5&fault=delay:1'));
    assert.deepEqual(sized._links, {
      parent: { title: 'home', href: '/' },
      self: { title: 'notes', href: 'notes?max_results=5&page=2&style=eve&fault=delay:1' },
      next: { title: 'next page', href: 'notes?max_results=5&page=3&style=eve&fault=delay:1' },
      last: { title: 'last page', href: 'notes?max_results=5&page=5&style=eve&fault=delay:1' },
      prev: { title: 'previous page', href: 'notes?max_results=5&style=eve&fault=delay:1' },
    });
    assert.equal(json(await get('style=eve&max_results=10'))._links.next.href, 'notes?page=2&style=eve');
    for (const page of await walkReal(`${base}?style=eve&max_results=4`, 'eve')) {
      for (const link of Object.values(page.body._links)) assert.ok(link.href === '/' || /^notes(\?|$)/.test(link.href), link.href);
    }
    const beyond = json(await get('style=eve&page=9'));
    assert.deepEqual([beyond._items, Object.keys(beyond._links), beyond._meta], [[], ['parent', 'self', 'prev'], { page: 9, max_results: 10, total: N }]);
    // Without the count, Eve (OPTIMIZE_PAGINATION_FOR_SPEED) has no total and a next link on every page: a client stops at an empty page.
    const uncounted = json(await get('style=eve&page=9&totals=none'));
    assert.deepEqual([uncounted._items, uncounted._meta, uncounted._links.next.href, uncounted._links.self.href], [[], { page: 9, max_results: 10 }, 'notes?page=10&style=eve&totals=none', 'notes']);
    assert.equal((await get('style=eve&totals=none')).headers['x-total-count'], undefined);
    await assert.rejects(walkReal(`${base}?style=eve&totals=none`, 'eve', { maxPages: 6 }), /does not end/);
  });

  test('dynamodb: POST a Scan; Count, Items, ScannedCount and LastEvaluatedKey, which the last page lacks', async () => {
    const dynamo = `${base}?style=dynamodb`;
    const first = await scan(dynamo, { TableName: 'notes', Limit: 10, ReturnConsumedCapacity: 'NONE' });
    assert.equal(first.status, 200);
    assert.equal(first.headers['content-type'], 'application/x-amz-json-1.0');
    const body = json(first);
    assert.deepEqual(Object.keys(body), ['Count', 'Items', 'ScannedCount', 'LastEvaluatedKey']);
    assert.deepEqual([body.Count, body.ScannedCount, body.LastEvaluatedKey], [10, 10, { id: { S: 'n9' } }]);
    assert.match(first.body.toString(), /,"ScannedCount":10,"LastEvaluatedKey":\{"id":\{"S":"n9"\}\}\}$/);
    const last = json(await scan(dynamo, { TableName: 'notes', Limit: 10, ExclusiveStartKey: { id: { S: 'n19' } } }));
    assert.deepEqual(Object.keys(last), ['Count', 'Items', 'ScannedCount']);
    assert.deepEqual(last.Items.map((n) => n.id), allIds.slice(20));
    // As moto: a last page that is full has no LastEvaluatedKey either.
    const full = json(await scan(dynamo, { TableName: 'notes', Limit: 5, ExclusiveStartKey: { id: { S: 'n19' } } }));
    assert.deepEqual([full.Count, full.LastEvaluatedKey], [5, undefined]);
    // Without Limit, --page-size notes; Limit above --max-limit is cut to it.
    assert.equal(json(await scan(dynamo, { TableName: 'notes' })).Count, 10);
    assert.equal(json(await scan(dynamo, { TableName: 'notes', Limit: 5000 })).Count, N);
    // The request's own headers: without X-Amz-Target is fine, another operation or media type is not.
    const untargeted = await request(dynamo, { method: 'POST', headers: { 'Content-Type': 'application/x-amz-json-1.0' }, body: '{"TableName":"notes"}' });
    assert.equal(untargeted.status, 200);
    const error = (type, message) => ({ __type: type, message });
    const refusals = [
      [{ TableName: 'notes', ExclusiveStartKey: { id: { S: 'n99' } } }, {}, error('com.amazon.coral.validation#ValidationException', 'The provided starting key is invalid: The provided key element does not match the schema')],
      [{ TableName: 'notes', ExclusiveStartKey: { id: 'n9' } }, {}, error('com.amazon.coral.validation#ValidationException', 'The provided starting key is invalid: The provided key element does not match the schema')],
      [{ TableName: 'notes', ExclusiveStartKey: { id: { N: '9' } } }, {}, error('com.amazon.coral.validation#ValidationException', 'The provided starting key is invalid: The provided key element does not match the schema')],
      [{ TableName: 'notes', Limit: 0 }, {}, error('com.amazon.coral.validation#ValidationException', "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")],
      [{ TableName: 'others' }, {}, error('com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', 'Requested resource not found')],
      ['{"TableName":', {}, error('com.amazon.coral.service#SerializationException', 'the body is not JSON')],
      [{ TableName: 'notes' }, { 'X-Amz-Target': 'DynamoDB_20120810.Query' }, error('com.amazon.coral.service#UnknownOperationException', 'this endpoint answers X-Amz-Target: DynamoDB_20120810.Scan only')],
      [{ TableName: 'notes' }, { 'Content-Type': 'application/json' }, error('com.amazon.coral.service#SerializationException', 'a Scan is a POST of a JSON body with Content-Type: application/x-amz-json-1.0')],
    ];
    for (const [request, headers, expected] of refusals) {
      const res = await scan(dynamo, request, headers);
      assert.equal(res.status, 400, JSON.stringify(request));
      assert.equal(res.headers['content-type'], 'application/x-amz-json-1.0');
      assert.deepEqual(json(res), expected, JSON.stringify(request));
    }
    // GET is a 400 as well; other methods a 405.
    const got = await get('style=dynamodb');
    assert.equal(got.status, 400);
    assert.deepEqual(json(got), error('com.amazon.coral.service#SerializationException', 'a Scan is a POST of a JSON body with Content-Type: application/x-amz-json-1.0'));
    const put = await request(`${base}?style=dynamodb`, { method: 'PUT' });
    assert.deepEqual([put.status, put.headers.allow], [405, 'POST']);
  });
});
