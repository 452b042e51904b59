// End-to-end tests: faults set by flag, auth, stalls, bombs and rate limits; the server runs as a child
// process on port 0 and is asked over HTTP (testing/harness.mjs). Run with `node --test Tools/`; only lower
// bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import { json, JSON_TYPE, pageUrl, request, requestLines, startServer, walk } from '../testing/harness.mjs';
import { contract } from '../testing/notes-dir.mjs';

describe('faults set by flag', () => {
  test('--fault with @PAGE and xN', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--fault', '503:2@2x2', '--fault', 'html@3']);
    try {
      const page1 = await request(server.url);
      assert.equal(page1.status, 200);
      const page2 = pageUrl(server.url, json(page1).next_cursor);
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const res = await request(page2);
        statuses.push([res.status, res.headers['retry-after']]);
      }
      assert.deepEqual(statuses, [[503, '2'], [503, '2'], [200, undefined]]);
      const page3 = await request(pageUrl(server.url, json(await request(page2)).next_cursor));
      assert.deepEqual(page3.body, contract('html-body.html'));
      assert.deepEqual((await request(page2)).status, 200);
      assert.deepEqual((await request(server.url)).body, page1.body);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

describe('auth', () => {
  const TOKEN = 'S3cr3t-t0ken+/=';
  const lowerEscapes = encodeURIComponent(TOKEN).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());

  test('401 without the bearer token, 200 with it; the log never shows it', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--fault', 'auth'], { NOTES_SERVER_TOKEN: TOKEN });
    let log;
    try {
      for (const headers of [{}, { Authorization: 'Bearer wrong' }, { Authorization: TOKEN }, { Authorization: `Basic ${TOKEN}` }]) {
        const res = await request(server.url, { headers });
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="notes"');
        assert.equal(json(res).error, 'unauthorized');
      }
      const authorization = { Authorization: `Bearer ${TOKEN}` };
      const walked = await walk(server.url, 'contract', authorization);
      assert.deepEqual(walked.flatMap((page) => page.ids), Array.from({ length: 25 }, (_, i) => `n${i}`));
      // Tokens in the query, in any encoding, stay out of the log.
      const query = `token=${encodeURIComponent(TOKEN)}&access_token=${TOKEN}&other=${lowerEscapes}`;
      assert.equal((await request(`${server.url}?${query}`, { headers: authorization })).status, 200);
      // A client that follows a redirect with its token gets refused at the other origin.
      const redirect = await request(`${server.url}?fault=redirect`, { headers: authorization });
      assert.equal(redirect.status, 302);
      assert.equal((await request(redirect.headers.location, { headers: authorization })).status, 400);
      assert.equal((await request(redirect.headers.location)).status, 200);
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      log = stopped.stderr;
    }
    assert.match(log, /GET \/notes 401 /);
    assert.match(log, /token=REDACTED&access_token=REDACTED&other=REDACTED 200 /);
    assert.match(log, /\[redirect target\] GET \/notes\?fault=redirect 400 /);
    for (const form of [TOKEN, encodeURIComponent(TOKEN), lowerEscapes, 'S3cr3t']) {
      assert.ok(!log.includes(form), `the log shows ${form}`);
    }
  });

  test('--token-file, and auth on one page the first time only', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'notes-server-test-'));
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const server = await startServer(['--count', '25', '--page-size', '10', '--token-file', tokenFile, '--fault', 'auth@2x1'], { NOTES_SERVER_TOKEN: 'other' });
    try {
      const page1 = await request(server.url);
      assert.equal(page1.status, 200);
      const page2 = `${server.url}?cursor=${encodeURIComponent(json(page1).next_cursor)}`;
      assert.equal((await request(page2, { headers: { Authorization: 'Bearer other' } })).status, 401);
      assert.equal((await request(page2)).status, 200);
      const again = await startServer(['--count', '25', '--page-size', '10', '--token-file', tokenFile, '--fault', 'auth@2x1', '--quiet']);
      try {
        const res = await request(`${again.url}?cursor=${encodeURIComponent(json(page1).next_cursor)}`, { headers: { Authorization: `bearer ${TOKEN}` } });
        assert.equal(res.status, 200);
      } finally {
        assert.equal((await again.stop()).code, 0);
      }
    } finally {
      assert.equal((await server.stop()).code, 0);
      rmSync(dir, { recursive: true });
    }
  });
});

describe('shift set by flag, and the log of the list styles', () => {
  test('--fault shift:2@2 shifts the list for every request from page 2 on; the log lines keep their format', async () => {
    const server = await startServer(['--count', '12', '--page-size', '4', '--style', 'offset', '--fault', 'shift:2@2', '--fault', '503@3x1']);
    let stderr;
    try {
      const first = json(await request(server.url));
      assert.deepEqual(first.results.map((n) => n.id), ['n0', 'n1', 'n2', 'n3']);
      const second = json(await request(first.next));
      assert.deepEqual(second.results.map((n) => n.id), ['n2', 'n3', 'n4', 'n5']);
      assert.equal((await request(second.next)).status, 503);
      const third = json(await request(second.next));
      assert.deepEqual(third.results.map((n) => n.id), ['n6', 'n7', 'n8', 'n9']);
      assert.deepEqual(json(await request(`${server.url}?limit=3`)).results.map((n) => n.id), ['new0', 'new1', 'n0']);
      assert.deepEqual(json(await request(`${server.url}?style=page&per_page=3`)).results.map((n) => n.id), ['new0', 'new1', 'n0']);
      assert.equal((await request(`${server.url}?style=contract`)).status, 400);
      // The redirect target serves the same list.
      const redirected = await request(`${server.url}?limit=3&fault=redirect`);
      assert.deepEqual(json(await request(redirected.headers.location)).results.map((n) => n.id), ['new0', 'new1', 'n0']);
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      stderr = stopped.stderr;
    }
    const lines = stderr.trimEnd().split('\n');
    assert.match(lines[0], /^notes-server: 12 generated notes \(page size 4, seed 42\), 3 pages, style offset; redirect target http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(lines[1], /^GET \/notes 200 \d+B \d+\.\dms c=1 t=\d+$/);
    assert.match(lines[2], /^GET \/notes\?offset=4 200 \d+B \d+\.\dms fault=shift:2@2 c=2 t=\d+$/);
    assert.match(lines[3], /^GET \/notes\?offset=8 503 33B \d+\.\dms fault=503@3x1 c=3 t=\d+$/);
    assert.match(lines[4], /^GET \/notes\?offset=8 200 \d+B \d+\.\dms c=4 t=\d+$/);
    assert.match(lines[8], /^GET \/notes\?limit=3&fault=redirect 302 0B \d+\.\dms fault=redirect c=8 t=\d+$/);
    assert.match(lines[9], /^\[redirect target\] GET \/notes\?limit=3&fault=redirect 200 \d+B \d+\.\dms c=9 t=\d+$/);
    assert.equal(lines.length, 10);
  });
});

/**
 * GETs `url` and inflates the gzip body as it comes, counting: resolves with the response's headers,
 * the compressed and the inflated byte counts, and the first `keep` inflated bytes.
 */
function inflateCounting(url, keep = 0) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      let compressed = 0;
      let inflated = 0;
      const kept = [];
      const gunzip = zlib.createGunzip();
      res.on('data', (chunk) => { compressed += chunk.length; });
      res.on('error', reject);
      gunzip.on('data', (chunk) => {
        if (inflated < keep) kept.push(chunk.subarray(0, keep - inflated));
        inflated += chunk.length;
      });
      gunzip.on('error', reject);
      gunzip.on('end', () => resolve({ status: res.statusCode, headers: res.headers, compressed, inflated, head: Buffer.concat(kept) }));
      res.pipe(gunzip);
    });
    req.on('error', reject);
  });
}

describe('bomb', () => {
  test('1 GiB by default: a small gzip body, sent whatever the request accepts, inflating to exactly 2^30 bytes', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10']);
    let res;
    try {
      res = await inflateCounting(`${server.url}?fault=bomb`);
    } finally {
      const { code, stderr } = await server.stop();
      assert.equal(code, 0);
      if (res) assert.match(requestLines(stderr)[0], new RegExp(`^GET /notes\\?fault=bomb 200 ${res.compressed}B \\d+\\.\\dms fault=bomb c=1 t=\\d+$`));
    }
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(res.headers['content-type'], JSON_TYPE);
    assert.equal(res.headers['content-length'], undefined);
    assert.equal(res.headers['transfer-encoding'], 'chunked');
    assert.equal(res.inflated, 2 ** 30);
    assert.ok(res.compressed < 2_000_000, `${res.compressed} compressed bytes`);
  });

  test('bomb:BYTES inflates to exactly BYTES of a notes array with unique ids; @PAGE and xN', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--quiet']);
    try {
      for (const bytes of [0, 7, 200_000]) {
        const res = await inflateCounting(`${server.url}?fault=bomb:${bytes}`, bytes);
        assert.equal(res.inflated, bytes);
        assert.equal(res.head.toString(), '{"notes":['.slice(0, bytes) + res.head.toString().slice(10));
        if (bytes === 200_000) {
          const text = res.head.toString();
          const notes = JSON.parse(`${text.slice(0, text.lastIndexOf('"}') + 2)}]}`).notes;
          assert.deepEqual(notes.map((note) => note.id), ['bomb0', 'bomb1', 'bomb2']);
        }
      }
      const headers = { 'X-Notes-Fault': 'bomb:1000@2x1', 'Accept-Encoding': 'identity' };
      const page1 = await request(server.url, { headers });
      assert.equal(page1.headers['content-encoding'], undefined);
      const page2 = pageUrl(server.url, json(page1).next_cursor);
      const bombed = await request(page2, { headers });
      assert.equal(bombed.headers['content-encoding'], 'gzip');
      assert.equal(zlib.gunzipSync(bombed.body).length, 1000);
      assert.equal((await request(page2, { headers })).headers['content-encoding'], undefined);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

/**
 * A GET over a plain socket that stays open: resolves once the head and `bodyBytes` of the body have
 * arrived, with them and a way to see what arrives later and to close the socket.
 */
function openGet(url, bodyBytes) {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let all = Buffer.alloc(0);
    let done = false;
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
    });
    socket.on('data', (chunk) => {
      all = Buffer.concat([all, chunk]);
      const split = all.indexOf('\r\n\r\n');
      if (done || split === -1 || all.length - split - 4 < bodyBytes) return;
      done = true;
      const received = all.length;
      resolve({
        head: all.subarray(0, split).toString(),
        body: all.subarray(split + 4),
        later: () => all.length - received,
        closed: () => socket.destroyed,
        close: () => socket.destroy(),
      });
    });
    socket.on('error', reject);
    socket.on('close', () => { if (!done) reject(new Error(`closed after ${all.length} bytes`)); });
  });
}

describe('stall', () => {
  test('the head and BYTES of the body, then nothing for at least a second, the connection open; SIGTERM still exits 0', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10']);
    const page = await request(`${server.url}?for=length`);
    let stderr;
    try {
      const stalls = [['stall', 10], ['stall:100', 100], ['stall:0', 0]];
      const responses = [];
      for (const [spec, bytes] of stalls) responses.push(await openGet(`${server.url}?fault=${spec}`, bytes));
      responses.forEach((res, i) => {
        assert.match(res.head, /^HTTP\/1\.1 200 /);
        assert.match(res.head, new RegExp(`\r\ncontent-length: ${page.body.length}\r\n`, 'i'));
        assert.match(res.head, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
        assert.deepEqual(res.body, page.body.subarray(0, stalls[i][1]));
      });
      await sleep(1000);
      responses.forEach((res, i) => {
        assert.equal(res.later(), 0, `${stalls[i][0]}: more bytes after the stall`);
        assert.equal(res.closed(), false);
        res.close();
      });
      // One left stalled: the server stops all the same.
      await openGet(`${server.url}?fault=stall:3`, 3);
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      stderr = stopped.stderr;
    }
    // The lines come as the responses close; each has the bytes sent before the stall.
    const line = (spec) => requestLines(stderr).find((l) => l.startsWith(`GET /notes?fault=${spec} `));
    assert.match(line('stall'), /^GET \/notes\?fault=stall 200 10B \d+\.\dms fault=stall c=2 t=\d+$/);
    assert.ok(Number(/ (\d+)\.\dms/.exec(line('stall'))[1]) >= 1000, line('stall'));
    assert.match(line('stall:100'), /^GET \/notes\?fault=stall:100 200 100B /);
    assert.match(line('stall:0'), /^GET \/notes\?fault=stall:0 200 0B /);
    assert.match(line('stall:3'), /^GET \/notes\?fault=stall:3 200 3B /);
    assert.equal(requestLines(stderr).length, 5);
  });
});

describe('rate limits', () => {
  let server;
  before(async () => {
    server = await startServer(['--count', '25', '--page-size', '10', '--quiet', '--fault', 'ratelimit-ietf:4@3x1']);
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  /** Requests `url` and checks that an epoch-second reset header lies `seconds` after the request, rounded up. */
  async function withReset(url, seconds, headers) {
    const before = Date.now();
    const res = await request(url, { headers });
    const after = Date.now();
    const reset = Number(res.headers['x-ratelimit-reset']);
    assert.ok(reset >= Math.ceil(before / 1000 + seconds) && reset <= Math.ceil(after / 1000 + seconds), `reset ${reset} at ${before}`);
    assert.equal(res.headers['x-ratelimit-remaining'], '0');
    assert.equal(res.headers['x-ratelimit-limit'], '60');
    return res;
  }

  test('ratelimit-github: 403, X-RateLimit-Remaining: 0 and the reset in epoch seconds', async () => {
    for (const [spec, seconds] of [['ratelimit-github', 1], ['ratelimit-github:30', 30]]) {
      const res = await withReset(`${server.url}?fault=${spec}`, seconds);
      assert.equal(res.status, 403);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(res.headers['retry-after'], undefined);
      assert.deepEqual(json(res), { message: 'API rate limit exceeded' });
    }
  });

  test('ratelimit-ietf: 429 with RateLimit and RateLimit-Policy', async () => {
    for (const [spec, seconds] of [['ratelimit-ietf', 1], ['ratelimit-ietf:5', 5]]) {
      const res = await request(server.url, { headers: { 'X-Notes-Fault': spec } });
      assert.equal(res.status, 429);
      assert.equal(res.headers.ratelimit, `limit=10, remaining=0, reset=${seconds}`);
      assert.equal(res.headers['ratelimit-policy'], '10;w=60');
      assert.equal(res.headers['retry-after'], undefined);
      assert.equal(res.headers['x-ratelimit-remaining'], undefined);
      assert.equal(json(res).error, 'rate-limited');
    }
  });

  test('ratelimit-retry-after: 403 with Retry-After', async () => {
    for (const [spec, seconds] of [['ratelimit-retry-after', '1'], ['ratelimit-retry-after:7', '7']]) {
      const res = await request(`${server.url}?fault=${spec}`);
      assert.equal(res.status, 403);
      assert.equal(res.headers['retry-after'], seconds);
      assert.equal(res.headers['x-ratelimit-remaining'], undefined);
      assert.match(json(res).message, /secondary rate limit/);
    }
  });

  test('remaining-zero: the page as it is, with X-RateLimit-Remaining: 0 and the reset', async () => {
    const plain = await request(`${server.url}?for=remaining-zero`);
    assert.equal(plain.headers['x-ratelimit-remaining'], undefined);
    for (const [spec, seconds] of [['remaining-zero', 1], ['remaining-zero:60', 60]]) {
      const res = await withReset(`${server.url}?for=remaining-zero&fault=${spec}`, seconds);
      assert.equal(res.status, 200);
      assert.deepEqual(json(res), json(plain));
    }
    // It decorates a replaced page too.
    const status = await request(`${server.url}?fault=503:0,remaining-zero`);
    assert.equal(status.status, 503);
    assert.equal(status.headers['x-ratelimit-remaining'], '0');
  });

  test('with @PAGE and xN, by request and by flag', async () => {
    const headers = { 'X-Notes-Fault': 'ratelimit-github:2@2x1, remaining-zero@1x1' };
    const first = await request(server.url, { headers });
    assert.equal(first.status, 200);
    assert.equal(first.headers['x-ratelimit-remaining'], '0');
    assert.equal((await request(server.url, { headers })).headers['x-ratelimit-remaining'], undefined);
    const page2 = pageUrl(server.url, json(first).next_cursor);
    assert.deepEqual([(await request(page2, { headers })).status, (await request(page2, { headers })).status], [403, 200]);
    const page3 = pageUrl(server.url, json(await request(page2)).next_cursor);
    const limited = await request(page3);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.ratelimit, 'limit=10, remaining=0, reset=4');
    assert.equal((await request(page3)).status, 200);
  });
});
