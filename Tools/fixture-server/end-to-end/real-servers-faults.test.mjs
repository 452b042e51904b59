// End-to-end tests: the styles of real servers (--count): faults in each one's terms, totals, integer ids,
// the style by flag; the server runs as a child process on port 0 and is asked over HTTP
// (testing/harness.mjs), one server for the file (testing/real-servers.mjs). Run with `node --test Tools/`.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { json, request, runServer, startServer, walk } from '../testing/harness.mjs';
import { REAL_STYLES, realServersSuite, scan, walkReal } from '../testing/real-servers.mjs';

describe('the styles of real servers (--count): faults, totals, ids and flags', () => {
  const suite = realServersSuite();
  const { N, allIds, KEYS, get } = suite;
  let base;
  before(() => {
    base = suite.base;
  });

  // The second page of each style in its own terms (10 notes a page), and a request for it.
  const kintoSecond = async () => (await get('style=next-page')).headers['next-page'].slice(base.length + 1);
  const SECOND = {
    ogc: 'style=ogc&offset=10', 'x-pagination': 'style=x-pagination&page=2', 'page-echo': 'style=page-echo&current_page=2',
    'offset-echo': 'style=offset-echo&offset=15', eve: 'style=eve&page=2',
  };
  const secondPage = async (style, fault) => {
    if (style === 'dynamodb') return scan(`${base}?style=dynamodb&fault=${fault}`, { TableName: 'notes', ExclusiveStartKey: { id: { S: 'n9' } } });
    return get(`${style === 'next-page' ? await kintoSecond() : SECOND[style]}&fault=${fault}`);
  };

  test('503@2 and duplicate-id@2 act on the second page in each style\'s terms; Eve\'s _id too', async () => {
    for (const style of REAL_STYLES) {
      const res = await secondPage(style, '503@2');
      assert.equal(res.status, 503, style);
      assert.deepEqual(json(res), { error: 'injected', status: 503 });
      assert.equal((await secondPage(style, '503@3')).status, 200, style);
      const duplicated = json(await secondPage(style, 'duplicate-id@2'));
      const notes = KEYS[style] === null ? duplicated : duplicated[KEYS[style]];
      assert.equal(style === 'eve' ? notes.at(-1)._id : notes.at(-1).id, 'n0', style);
    }
  });

  test('cycle: the next page points back (page 2, or the previous page); page-echo and offset-echo refuse it', async () => {
    for (const style of ['next-page', 'ogc', 'x-pagination', 'eve', 'dynamodb']) {
      await assert.rejects(walkReal(`${base}?style=${style}&fault=cycle@3`, style, { maxPages: 8 }), /does not end/, style);
    }
    assert.equal(json(await get('style=ogc&offset=20&fault=cycle')).links.find((link) => link.rel === 'next').href, `${base}?offset=10&style=ogc&fault=cycle`);
    assert.equal(json(await get('style=eve&page=3&fault=cycle'))._links.next.href, 'notes?page=2&style=eve&fault=cycle');
    assert.match((await get('style=x-pagination&page=3&fault=cycle')).headers['x-pagination'], /"page": 3, "previous_page": 2, "next_page": 2\}$/);
    assert.deepEqual(json(await scan(`${base}?style=dynamodb&fault=cycle`, { TableName: 'notes', ExclusiveStartKey: { id: { S: 'n19' } } })).LastEvaluatedKey, { id: { S: 'n9' } });
    for (const style of ['page-echo', 'offset-echo']) {
      const res = await get(`style=${style}&fault=cycle@2`);
      assert.equal(res.status, 400);
      assert.equal(json(res).message, `fault 'cycle@2' cannot work in ${style} style: the client computes the next page from the totals, so nothing can point back`);
    }
  });

  test('shift:K@2: the offset and page styles serve the end of page 1 again; next-page and dynamodb go on after the last id', async () => {
    // Requests with the same spec share its notes once it has acted: each walk has a spec of its own.
    for (const [k, style] of ['ogc', 'x-pagination', 'page-echo', 'offset-echo', 'eve'].entries()) {
      const pages = await walkReal(`${base}?style=${style}&fault=shift:${k + 1}@2`, style);
      assert.deepEqual(pages.map((p) => p.ids[0]), ['n0', `n${9 - k}`, `n${19 - k}`], style);
      assert.equal(pages.flatMap((p) => p.ids).length, N + k + 1, style);
    }
    assert.deepEqual(json(await get('style=offset-echo&limit=4&fault=shift:3@2')).items.map((n) => n.id), ['new0', 'new1', 'new2', 'n0']);
    for (const [k, style] of ['next-page', 'dynamodb'].entries()) {
      const pages = await walkReal(`${base}?style=${style}&fault=shift:${k + 6}@2`, style);
      assert.deepEqual(pages.flatMap((p) => p.ids), allIds, style);
    }
  });

  test('--total-lie and --totals: the announced total is off; where the real server derives its next page from it, so does the style', async () => {
    const lying = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--total-lie', '10', '--quiet']);
    const silent = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--totals', 'none', '--quiet']);
    try {
      const at = (server, query) => request(`${server.url}?${query}`);
      assert.equal((await at(lying, 'style=next-page')).headers['total-records'], '35');
      assert.deepEqual((await walkReal(`${lying.url}?style=next-page`, 'next-page')).map((p) => p.ids.length), [10, 10, 5]);
      assert.equal((await at(lying, 'style=x-pagination&page=3')).headers['x-pagination'],
        '{"total": 35, "total_pages": 4, "first_page": 1, "last_page": 4, "page": 3, "previous_page": 2, "next_page": 4}');
      assert.deepEqual((await walkReal(`${lying.url}?style=x-pagination`, 'x-pagination')).map((p) => p.ids.length), [10, 10, 5, 0]);
      assert.deepEqual((await walkReal(`${lying.url}?style=eve`, 'eve')).map((p) => p.ids.length), [10, 10, 5, 0]);
      assert.deepEqual((await walkReal(`${lying.url}?style=ogc`, 'ogc')).map((p) => p.ids.length), [10, 10, 5, 0]);
      assert.deepEqual((await walkReal(`${lying.url}?style=page-echo`, 'page-echo')).map((p) => p.ids.length), [10, 10, 5, 0]);
      assert.equal(json(await at(lying, 'style=offset-echo')).total, 35);
      assert.equal(json(await at(lying, 'style=ogc')).numberMatched, 35);
      assert.equal((await at(silent, 'style=next-page')).headers['total-records'], undefined);
      assert.equal((await at(silent, 'style=x-pagination')).headers['x-pagination'], undefined);
      assert.equal(json(await at(silent, 'style=ogc')).numberMatched, undefined);
      assert.equal(json(await at(silent, 'style=offset-echo')).total, undefined);
      assert.equal(json(await at(silent, 'style=page-echo')).total_pages, undefined);
      assert.equal(json(await at(silent, 'style=eve'))._meta.total, undefined);
      assert.equal(json(await at(lying, 'style=eve&totals=count,header'))._links.last, undefined);
    } finally {
      assert.equal((await lying.stop()).code, 0);
      assert.equal((await silent.stop()).code, 0);
    }
  });

  test('integer ids: DynamoDB keys of type N, Kinto tokens with numbers, Eve\'s _id a number', async () => {
    const ints = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--id-kind', 'int', '--quiet']);
    try {
      const ids = (await walk(`${ints.url}?style=contract`, 'contract')).flatMap((p) => p.ids);
      for (const style of REAL_STYLES) assert.deepEqual((await walkReal(`${ints.url}?style=${style}`, style)).flatMap((p) => p.ids), ids, style);
      const first = json(await scan(`${ints.url}?style=dynamodb`, { TableName: 'notes' }));
      assert.deepEqual(first.LastEvaluatedKey, { id: { N: String(ids[9]) } });
      const token = new URL((await request(`${ints.url}?style=next-page`)).headers['next-page']).searchParams.get('_token');
      assert.deepEqual(JSON.parse(Buffer.from(token, 'base64')).last_object, { id: ids[9] });
    } finally {
      assert.equal((await ints.stop()).code, 0);
    }
  });

  test('the style by flag: --style dynamodb takes POST /notes, --style next-page HEAD; a directory refuses them', async () => {
    const flagged = await startServer(['--count', '5', '--style', 'dynamodb', '--quiet']);
    try {
      assert.equal(json(await scan(flagged.url, { TableName: 'notes', Limit: 2 })).Count, 2);
      assert.equal((await request(flagged.url)).status, 400);
      assert.equal((await request(flagged.url, { headers: { 'X-Notes-Style': 'next-page' }, method: 'HEAD' })).headers['total-objects'], '5');
    } finally {
      assert.equal((await flagged.stop()).code, 0);
    }
    const { code, stderr } = await runServer(['--dir', '/nonexistent', '--style', 'eve']);
    assert.equal(code, 64);
    assert.match(stderr, /style 'eve' pages through generated notes: it needs --count, not --dir/);
  });
});
