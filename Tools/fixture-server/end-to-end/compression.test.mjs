// End-to-end tests: compression (--compress, compress=); the server runs as a child process on port 0 and
// is asked over HTTP (testing/harness.mjs). Run with `node --test Tools/`; only lower bounds of time are
// asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { json, JSON_TYPE, request, requestLines, startServer } from '../testing/harness.mjs';

const INFLATE = { gzip: zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync };

describe('compression (--compress, compress=)', () => {
  let server;
  let page1; // the first page, uncompressed

  before(async () => {
    server = await startServer(['--count', '250', '--page-size', '100', '--compress', 'gzip,deflate,br']);
    page1 = await request(`${server.url}?compress=none`);
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  for (const encoding of ['gzip', 'deflate', 'br']) {
    test(`${encoding}: the page compressed, Content-Length of the compressed bytes, inflating to the same bytes`, async () => {
      const res = await request(server.url, { headers: { 'Accept-Encoding': encoding } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], encoding);
      assert.equal(res.headers.vary, 'Accept-Encoding');
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(res.headers['content-length'], String(res.body.length));
      assert.ok(res.body.length < page1.body.length / 2, `${res.body.length} of ${page1.body.length} bytes`);
      assert.deepEqual(INFLATE[encoding](res.body), page1.body);
    });
  }

  test('no compression without an Accept-Encoding that allows one of the codings', async () => {
    for (const headers of [{}, { 'Accept-Encoding': 'identity' }, { 'Accept-Encoding': 'zstd' }, { 'Accept-Encoding': 'gzip;q=0, br;q=0, deflate;q=0' }]) {
      const res = await request(server.url, { headers });
      assert.equal(res.headers['content-encoding'], undefined, JSON.stringify(headers));
      assert.equal(res.headers.vary, 'Accept-Encoding');
      assert.deepEqual(res.body, page1.body);
    }
    // The preference goes by the client's weights, then by the order of --compress.
    assert.equal((await request(server.url, { headers: { 'Accept-Encoding': 'br, gzip' } })).headers['content-encoding'], 'gzip');
    assert.equal((await request(server.url, { headers: { 'Accept-Encoding': 'br, gzip;q=0.9' } })).headers['content-encoding'], 'br');
    // compress=none turns it off: the response is the one of a server without --compress.
    assert.equal(page1.headers.vary, undefined);
    assert.equal(page1.headers['content-encoding'], undefined);
  });

  test('compress= per request: chooses the codings, is carried in next URLs, 400 when bad', async () => {
    const res = await request(`${server.url}?compress=br&style=drf`, { headers: { 'Accept-Encoding': 'gzip, br' } });
    assert.equal(res.headers['content-encoding'], 'br');
    const body = JSON.parse(INFLATE.br(res.body));
    assert.equal(new URL(body.next).searchParams.get('compress'), 'br');
    assert.equal((await request(`${server.url}?compress=deflate`, { headers: { 'Accept-Encoding': 'gzip' } })).headers['content-encoding'], undefined);
    for (const query of ['compress=zip', 'compress=gzip&compress=br']) {
      const bad = await request(`${server.url}?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(json(bad).error, 'bad-request');
    }
    // A server without --compress compresses when the request asks.
    const plain = await startServer(['--count', '25', '--quiet']);
    try {
      const asked = await request(`${plain.url}?compress=gzip`, { headers: { 'Accept-Encoding': 'gzip' } });
      assert.equal(asked.headers['content-encoding'], 'gzip');
      const notAsked = await request(plain.url, { headers: { 'Accept-Encoding': 'gzip' } });
      assert.equal(notAsked.headers['content-encoding'], undefined);
      assert.equal(notAsked.headers.vary, undefined);
    } finally {
      assert.equal((await plain.stop()).code, 0);
    }
  });

  test('streamed bodies, errors and faults are compressed too; delivery faults act on the compressed bytes', async () => {
    const huge = await request(`${server.url}?fault=huge-title:3000000`, { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(JSON.parse(INFLATE.gzip(huge.body)).notes[0].title.length, 3_000_000);
    assert.equal(huge.headers['content-length'], String(huge.body.length));
    const status = await request(`${server.url}?fault=503:2`, { headers: { 'Accept-Encoding': 'deflate' } });
    assert.equal(status.status, 503);
    assert.equal(status.headers['retry-after'], '2');
    assert.deepEqual(JSON.parse(INFLATE.deflate(status.body)), { error: 'injected', status: 503 });
    const dripped = await request(`${server.url}?fault=drip:512/0`, { headers: { 'Accept-Encoding': 'br' } });
    assert.deepEqual(INFLATE.br(dripped.body), page1.body);
  });

  test('the log shows the compressed byte count (this test stops the server)', async () => {
    const res = await request(`${server.url}?compress=gzip&for=log`, { headers: { 'Accept-Encoding': 'gzip' } });
    assert.ok(res.body.length < page1.body.length);
    const { stderr } = await server.stop();
    const line = requestLines(stderr).find((l) => l.startsWith('GET /notes?compress=gzip&for=log '));
    assert.match(line, new RegExp(`^GET /notes\\?compress=gzip&for=log 200 ${res.body.length}B .* c=\\d+ t=\\d+$`));
  });
});
