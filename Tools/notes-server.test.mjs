// Integration tests of notes-server: the server runs as a child process on port 0 and is asked over
// HTTP, serving a notes-gen directory built from Fixtures/contract (the files the Swift tests read)
// or generated pages. Run with `node --test Tools/`.
//
// Timing: only lower bounds are asserted (a drip or a delay takes at least so long), never upper ones.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./notes-server.mjs', import.meta.url));
const CONTRACT = fileURLToPath(new URL('../Fixtures/contract/', import.meta.url));
const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';

const contract = (name) => readFileSync(path.join(CONTRACT, name));
const expectedIds = Object.fromEntries(JSON.parse(contract('cases.json')).cases.map((c) => [c.file, c.expect.ids]));

// MARK: - Harness

/** Starts the server with `args`; resolves once it has printed its URL (the first line on stdout). */
async function startServer(args, env = {}) {
  const childEnv = { ...process.env, ...env };
  if (!('NOTES_SERVER_TOKEN' in env)) delete childEnv.NOTES_SERVER_TOKEN;
  const child = spawn(process.execPath, [SERVER, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (data) => { stderr += data; });
  const closed = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (data) => {
      stdout += data;
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    closed.then(({ code }) => reject(new Error(`the server exited (${code}) before printing its URL:\n${stderr}`)));
  });
  return {
    url,
    /** Signals the server and resolves with its exit code, signal and everything it logged. */
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return { ...(await closed), stderr };
    },
  };
}

/** Runs the server to its exit, for command-line errors and --help. */
function runServer(args) {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (data) => { stdout += data; });
  child.stderr.setEncoding('utf8').on('data', (data) => { stderr += data; });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * One HTTP request; resolves with status, headers and the whole body, and rejects when the connection
 * fails or the body ends short. A new connection each time unless an agent is given.
 */
function request(url, { method = 'GET', headers = {}, agent = false } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A GET over a plain socket: every byte the server sends until it closes, headers and body apart. */
function rawGet(url) {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks = [];
    const socket = net.connect(Number(port), hostname, () => {
      socket.end(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      resolve({ head: all.subarray(0, split).toString(), body: all.subarray(split + 4) });
    });
  });
}

const json = (res) => JSON.parse(res.body);
const timed = async (promise) => {
  const start = performance.now();
  const result = await promise;
  return { ...result, ms: performance.now() - start };
};

/** The URL of the page `cursor` requests (null: the first page), with extra query text. */
function pageUrl(base, cursor, extra = '') {
  const query = [cursor === null ? '' : `cursor=${encodeURIComponent(cursor)}`, extra].filter(Boolean).join('&');
  return query ? `${base}?${query}` : base;
}

/** The `rel="next"` target of a Link header, or null. */
function nextLink(header) {
  for (const [, url, rel] of (header ?? '').matchAll(/<([^>]*)>\s*;\s*rel="([^"]*)"/g)) if (rel === 'next') return url;
  return null;
}

/**
 * Follows a walk from `url` to its last page the way a client of `style` would, and returns each
 * response with its notes.
 */
async function walk(url, style, headers = {}) {
  const pages = [];
  while (url !== null) {
    assert.ok(pages.length < 50, 'the walk does not end');
    const res = await request(url, { headers });
    assert.equal(res.status, 200, `${url}: ${res.body}`);
    const body = json(res);
    let notes;
    if (style === 'contract') {
      notes = body.notes;
      const next = new URL(url);
      next.searchParams.set('cursor', body.next_cursor);
      url = body.next_cursor === null ? null : next.href;
    } else if (style === 'drf') {
      notes = body.results;
      url = body.next;
    } else {
      notes = body;
      url = nextLink(res.headers.link);
    }
    pages.push({ res, notes, ids: notes.map((note) => note.id) });
  }
  return pages;
}

// MARK: - A notes-gen directory of contract fixtures

/** The byte range [start, end) of the JSON array that opens at `start`. */
function arrayAt(bytes, start) {
  let depth = 0;
  let inString = false;
  for (let i = start; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
    } else if ((c === 0x5d || c === 0x7d) && --depth === 0) {
      return [start, i + 1];
    }
  }
  throw new Error('unterminated array');
}

/** The notes array of a contract fixture, byte for byte: under `key`, or the whole file. */
function notesOf(file, key) {
  const bytes = contract(file);
  const start = key === null ? 0 : bytes.indexOf(`"${key}": [`) + key.length + 4;
  return bytes.subarray(...arrayAt(bytes, start));
}

function fnv1a64(ids) {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(ids.map((id) => `${id}\n`).join(''))) {
    hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

// Five pages from the valid contract fixtures; the cursors need percent-encoding in every way.
const SOURCES = [
  ['valid-page.json', 'notes'],
  ['cursor-first.json', 'notes'],
  ['bare-array.json', null],
  ['drf-page.json', 'results'],
  ['empty-page.json', 'notes'],
];
const CURSORS = [null, 'pA+/Zw==', 'b64:Y3Vyc29yPTI=', 'c2', 'x/y z?&#='];

/** Writes the notes-gen directory (Fixtures/README.md) of SOURCES into a temporary directory. */
function makeNotesDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'notes-server-test-'));
  mkdirSync(path.join(dir, 'pages'));
  const pages = SOURCES.map(([source, key], i) => {
    const items = notesOf(source, key);
    const head = Buffer.from('{"notes":');
    const nextCursor = CURSORS[i + 1] ?? null;
    const body = Buffer.concat([head, items, Buffer.from(`,"next_cursor":${JSON.stringify(nextCursor)}}`)]);
    const file = `pages/${String(i).padStart(5, '0')}.json`;
    writeFileSync(path.join(dir, file), body);
    return { file, cursor: CURSORS[i], nextCursor, items, body, ids: expectedIds[source], range: [head.length, head.length + items.length] };
  });
  const ids = pages.flatMap((page) => page.ids);
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({
    format: 'notes-gen/1',
    count: ids.length,
    page_size: 3,
    seed: 0,
    faults: [],
    total_bytes: pages.reduce((sum, page) => sum + page.body.length, 0),
    ids_fnv1a64: fnv1a64(ids),
    pages: pages.map((page) => ({
      file: page.file, cursor: page.cursor, next_cursor: page.nextCursor, notes: page.ids.length, bytes: page.body.length, items: page.range,
    })),
  }, null, 1));
  return { dir, pages, ids };
}

// MARK: - Tests

describe('command line', () => {
  test('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await runServer(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: /);
    for (const flag of ['--dir', '--count', '--page-size', '--seed', '--host', '--port', '--style', '--fault', '--token-file', '--fixtures', '--cache-mb', '--quiet']) {
      assert.ok(stdout.includes(flag), flag);
    }
  });

  for (const args of [[], ['--count', 'many'], ['--count', '5', '--style', 'xml'], ['--count', '5', '--fault', 'explode'],
    ['--count', '5', '--fault', '503@9'], ['--count', '5', '--fault', 'auth'], ['--count', '5', '--fault', 'fixture:absent.json'],
    ['--count', '5', '--bogus'], ['--dir', 'x', '--count', '5']]) {
    test(`exits 64 on ${JSON.stringify(args)}`, async () => {
      const { code, stdout, stderr } = await runServer(args);
      assert.equal(code, 64);
      assert.equal(stdout, '');
      assert.match(stderr, /^Error: .+\n$/);
    });
  }

  test('exits 66 on a missing directory, 65 on a bad manifest or page', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'notes-server-test-'));
    try {
      assert.equal((await runServer(['--dir', path.join(dir, 'absent')])).code, 66);
      writeFileSync(path.join(dir, 'manifest.json'), '{"format":"notes-gen/2","pages":[]}');
      assert.match((await runServer(['--dir', dir])).stderr, /^Error: .*format/);
      assert.equal((await runServer(['--dir', dir])).code, 65);
      writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ format: 'notes-gen/1', pages: [{ file: 'p.json', cursor: null, next_cursor: null, items: [0, 4] }] }));
      assert.equal((await runServer(['--dir', dir])).code, 66);
      writeFileSync(path.join(dir, 'p.json'), '{"notes":[],"next_cursor":null}');
      assert.equal((await runServer(['--dir', dir])).code, 65);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('a notes-gen directory built from Fixtures/contract', () => {
  const fixture = makeNotesDir();
  const { pages } = fixture;
  let server;
  let base;
  const urlOf = (i, extra) => pageUrl(base, pages[i].cursor, extra);

  before(async () => {
    server = await startServer(['--dir', fixture.dir]);
    base = server.url;
  });
  after(async () => {
    const { code } = await server.stop();
    rmSync(fixture.dir, { recursive: true });
    assert.equal(code, 0);
  });

  test('prints a loopback URL of /notes', () => {
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/notes$/);
  });

  test('contract style: each page file byte for byte, with its headers', async () => {
    for (const [i, page] of pages.entries()) {
      const res = await request(urlOf(i));
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['content-length'], String(page.body.length));
      assert.deepEqual(res.body, page.body);
    }
  });

  test('walks every page in each style; the same notes, every id once', async () => {
    const walks = {};
    for (const style of ['contract', 'drf', 'link']) {
      walks[style] = await walk(style === 'contract' ? base : `${base}?style=${style}`, style);
      assert.deepEqual(walks[style].map((page) => page.ids), pages.map((page) => page.ids), style);
      const ids = walks[style].flatMap((page) => page.ids);
      assert.deepEqual(ids, fixture.ids);
      assert.equal(new Set(ids).size, ids.length);
    }
    assert.deepEqual(walks.drf.map((page) => page.notes), walks.contract.map((page) => page.notes));
    assert.deepEqual(walks.link.map((page) => page.notes), walks.contract.map((page) => page.notes));
  });

  test('drf style: the page items re-wrapped byte for byte, absolute next and previous URLs', async () => {
    for (const [i, page] of pages.entries()) {
      const res = await request(urlOf(i, 'style=drf'));
      const next = page.nextCursor === null ? null : pageUrl(base, page.nextCursor, 'style=drf');
      const previous = i === 0 ? null : urlOf(i - 1, 'style=drf');
      const expected = Buffer.concat([Buffer.from(`{"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"results":`), page.items, Buffer.from('}')]);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.body, expected);
    }
  });

  test('link style: the bare items byte for byte, Link next on every page but the last', async () => {
    for (const [i, page] of pages.entries()) {
      const res = await request(urlOf(i), { headers: { 'X-Notes-Style': 'link' } });
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.body, page.items);
      const links = [];
      if (i > 0) links.push(`<${urlOf(i - 1)}>; rel="prev"`);
      if (page.nextCursor !== null) links.push(`<${pageUrl(base, page.nextCursor)}>; rel="next"`);
      assert.equal(res.headers.link, links.length ? links.join(', ') : undefined);
    }
    assert.equal(nextLink((await request(urlOf(pages.length - 1, 'style=link'))).headers.link), null);
  });

  test('the style flag sets the default style', async () => {
    for (const style of ['drf', 'link']) {
      const styled = await startServer(['--dir', fixture.dir, '--style', style, '--quiet']);
      try {
        const walked = await walk(styled.url, style);
        assert.deepEqual(walked.flatMap((page) => page.ids), fixture.ids);
        // Chosen by flag, the style is not repeated in the URLs.
        assert.ok(!walked[0].res.body.includes('style=') && !(walked[0].res.headers.link ?? '').includes('style='));
        const overridden = await request(styled.url, { headers: { 'X-Notes-Style': 'contract' } });
        assert.deepEqual(overridden.body, pages[0].body);
      } finally {
        assert.equal((await styled.stop()).code, 0);
      }
    }
  });

  test('keep-alive: one connection serves a walk', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const reused = [];
      for (const i of pages.keys()) reused.push((await request(urlOf(i), { agent })).reused);
      assert.deepEqual(reused, [false, true, true, true, true]);
    } finally {
      agent.destroy();
    }
  });

  test('404 for other paths, 405 for other methods', async () => {
    for (const target of ['/', '/notes/', '/Notes', '/notes.json']) {
      const res = await request(new URL(target, base));
      assert.equal(res.status, 404, target);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(json(res).error, 'not-found');
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'HEAD']) {
      const res = await request(base, { method });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, 'GET');
    }
  });

  test('400 with a JSON body for an unknown cursor, a cursor not percent-encoded, or a bad parameter', async () => {
    const unknown = await request(`${base}?cursor=nope`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.headers['content-type'], JSON_TYPE);
    assert.deepEqual(json(unknown), { error: 'unknown-cursor', message: 'no page has this cursor' });
    // A raw `+` is a space in a query.
    assert.equal((await request(`${base}?cursor=${pages[1].cursor}`)).status, 400);
    assert.equal((await request(urlOf(1))).status, 200);
    for (const [query, message] of [['cursor=a&cursor=b', /more than one cursor/], ['style=xml', /unknown style/], ['fault=explode', /unknown fault kind/],
      ['fault=fixture:absent.json', /no fixture/], ['fault=auth', /needs a token/]]) {
      const res = await request(`${base}?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(json(res).error, 'bad-request');
      assert.match(json(res).message, message);
    }
    assert.equal((await request(base, { headers: { 'X-Notes-Fault': '503@0' } })).status, 400);
  });

  describe('faults chosen per request', () => {
    for (const [spec, status, retryAfter] of [['500', 500], ['502', 502], ['503', 503, '1'], ['503:7', 503, '7'],
      ['429', 429, '1'], ['429:0', 429, '0'], ['401', 401], ['403', 403]]) {
      test(`status ${spec}`, async () => {
        for (const res of [await request(`${base}?fault=${spec}`), await request(base, { headers: { 'X-Notes-Fault': spec } })]) {
          assert.equal(res.status, status);
          assert.equal(res.headers['retry-after'], retryAfter);
          assert.equal(res.headers['www-authenticate'], status === 401 ? 'Bearer realm="notes"' : undefined);
          assert.equal(res.headers['content-type'], JSON_TYPE);
          assert.equal(res.headers['cache-control'], 'no-store');
          assert.deepEqual(json(res), { error: 'injected', status });
        }
      });
    }

    for (const [spec, file] of [['html', 'html-body.html'], ['invalid-json', 'invalid-json.json'], ['missing-id', 'missing-id.json'],
      ['number-id', 'number-id.json'], ['fixture:truncated.json', 'truncated.json'], ['fixture:deep-nesting.json', 'deep-nesting.json']]) {
      test(`${spec} serves Fixtures/contract/${file} byte for byte, in every style`, async () => {
        for (const style of ['contract', 'drf', 'link']) {
          const res = await request(urlOf(2, `style=${style}&fault=${spec}`));
          assert.equal(res.status, 200);
          assert.equal(res.headers['content-type'], file.endsWith('.html') ? HTML_TYPE : JSON_TYPE);
          assert.equal(res.headers['content-length'], String(contract(file).length));
          assert.deepEqual(res.body, contract(file));
        }
      });
    }

    test('content-type: the page under a wrong type', async () => {
      const plain = await request(urlOf(1, 'fault=content-type'));
      assert.equal(plain.headers['content-type'], 'text/plain; charset=utf-8');
      assert.deepEqual(plain.body, pages[1].body);
      const xml = await request(urlOf(1), { headers: { 'X-Notes-Fault': 'content-type:application/xml' } });
      assert.equal(xml.headers['content-type'], 'application/xml');
      assert.deepEqual(xml.body, pages[1].body);
    });

    test('truncate: the full Content-Length, half the body, then the connection closes', async () => {
      const { head, body } = await rawGet(urlOf(0, 'fault=truncate'));
      assert.match(head, /^HTTP\/1\.1 200 /);
      assert.match(head, new RegExp(`\r\ncontent-length: ${pages[0].body.length}\r\n`, 'i'));
      assert.deepEqual(body, pages[0].body.subarray(0, Math.floor(pages[0].body.length / 2)));
      const ten = await rawGet(urlOf(0, 'fault=truncate:10'));
      assert.deepEqual(ten.body, pages[0].body.subarray(0, 10));
      const none = await rawGet(urlOf(0, 'fault=truncate:0'));
      assert.match(none.head, /^HTTP\/1\.1 200 /);
      assert.equal(none.body.length, 0);
      await assert.rejects(request(urlOf(0, 'fault=truncate')), { code: 'ECONNRESET' });
    });

    test('reset: the connection is reset before any response', async () => {
      await assert.rejects(request(urlOf(1, 'fault=reset')), { code: 'ECONNRESET' });
      await assert.rejects(request(urlOf(1), { headers: { 'X-Notes-Fault': 'reset' } }), { code: 'ECONNRESET' });
    });

    test('drip: the whole body, slowly', async () => {
      const res = await timed(request(urlOf(0, 'fault=drip:16/10')));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, pages[0].body);
      // At least ceil(bytes / 16) - 1 pauses of 10 ms; half of that is a safe lower bound.
      assert.ok(res.ms >= ((Math.ceil(pages[0].body.length / 16) - 1) * 10) / 2, `${res.ms} ms`);
    });

    test('delay: the page, late', async () => {
      const res = await timed(request(urlOf(1, 'fault=delay:200')));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, pages[1].body);
      assert.ok(res.ms >= 150, `${res.ms} ms`);
    });

    test("duplicate-id: a later page's last note takes page 1's first id", async () => {
      const res = await request(urlOf(1, 'fault=duplicate-id'));
      assert.equal(res.body.toString(), pages[1].body.toString().replace('"id": "b"', '"id": "n1"'));
      assert.deepEqual(json(res).notes.map((note) => note.id), ['a', 'n1']);
      const drf = await request(urlOf(3, 'style=drf&fault=duplicate-id'));
      assert.deepEqual(json(drf).results.map((note) => note.id), ['n1']);
      // Nothing to act on: the empty page stays as it is.
      assert.deepEqual((await request(urlOf(4, 'fault=duplicate-id'))).body, pages[4].body);
    });

    test("cycle: the next cursor points back to page 2's", async () => {
      const res = await request(urlOf(3), { headers: { 'X-Notes-Fault': 'cycle' } });
      assert.equal(res.body.toString(), pages[3].body.toString().replace(JSON.stringify(pages[3].nextCursor), JSON.stringify(pages[1].cursor)));
      const drf = await request(urlOf(4, 'style=drf&fault=cycle'));
      assert.equal(json(drf).next, urlOf(1, 'style=drf&fault=cycle'));
      // Page 1 has no cursor of its own and is left alone.
      assert.deepEqual((await request(base, { headers: { 'X-Notes-Fault': 'cycle' } })).body, pages[0].body);
    });

    test('huge-title: a 2 MiB first title by default, or ARG bytes', async () => {
      const res = await request(urlOf(0, 'fault=huge-title'));
      const notes = json(res).notes;
      assert.equal(notes[0].title.length, 2 * 1024 * 1024);
      assert.match(notes[0].title, /^(huge title )+/);
      assert.deepEqual(notes.map((note) => note.id), pages[0].ids);
      assert.equal(Number(res.headers['content-length']), res.body.length);
      const small = await request(urlOf(0, 'fault=huge-title:12'));
      assert.equal(small.body.toString(), pages[0].body.toString().replace('"Groceries"', '"huge title h"'));
    });

    test('deep: 100,000 nested arrays in the first note by default', async () => {
      const notes = json(await request(urlOf(1, 'fault=deep'))).notes;
      let depth = 0;
      for (let value = notes[0].deep; Array.isArray(value); value = value[0]) depth++;
      assert.equal(depth, 100_000);
      assert.deepEqual(notes.map((note) => note.id), pages[1].ids);
      const shallow = await request(urlOf(1, 'fault=deep:2'));
      assert.equal(shallow.body.toString(), pages[1].body.toString().replace('[{"id": "a"', '[{"deep":[[]],"id": "a"'));
    });

    test('redirect: to the same path and query on another port, which refuses forwarded credentials', async () => {
      const res = await request(urlOf(1, 'fault=redirect'));
      assert.equal(res.status, 302);
      const location = new URL(res.headers.location);
      assert.equal(location.hostname, '127.0.0.1');
      assert.notEqual(location.port, new URL(base).port);
      assert.equal(`${location.pathname}${location.search}`, new URL(urlOf(1, 'fault=redirect')).pathname + new URL(urlOf(1, 'fault=redirect')).search);
      // The redirect target serves the page (ignoring faults), unless the client brought its token along.
      const followed = await request(location);
      assert.equal(followed.status, 200);
      assert.deepEqual(followed.body, pages[1].body);
      const leaked = await request(location, { headers: { Authorization: 'Bearer leaked' } });
      assert.equal(leaked.status, 400);
      assert.equal(json(leaked).error, 'credentials-forwarded');
      const temporary = await request(base, { headers: { 'X-Notes-Fault': 'redirect:307' } });
      assert.equal(temporary.status, 307);
      assert.equal(new URL(temporary.headers.location).port, location.port);
    });

    test('a fault with @PAGE and xN: only on that page, only the first N times', async () => {
      const headers = { 'X-Notes-Fault': '503@2x2' };
      assert.equal((await request(urlOf(0), { headers })).status, 200);
      assert.deepEqual(
        [await request(urlOf(1), { headers }), await request(urlOf(1), { headers }), await request(urlOf(1), { headers })].map((res) => res.status),
        [503, 503, 200],
      );
      assert.equal((await request(urlOf(2), { headers })).status, 200);
      // The query form counts the same way.
      assert.deepEqual([(await request(`${base}?fault=500x1`)).status, (await request(`${base}?fault=500x1`)).status], [500, 200]);
    });

    test('faults combine, and drf and link URLs carry faults and style chosen in the query', async () => {
      const res = await timed(request(urlOf(0, 'style=drf&fault=delay:50,content-type')));
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.ok(res.ms >= 25);
      assert.equal(json(res).next, urlOf(1, 'style=drf&fault=delay%3A50%2Ccontent-type'));
      const walked = await walk(`${base}?style=link&fault=huge-title:3@2`, 'link');
      assert.deepEqual(walked.map((page) => page.notes[0]?.title), ['Groceries', 'hug', 'bare array page', 'drf', undefined]);
    });
  });
});

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

describe('log and shutdown', () => {
  test('one line per request: method, target, status, bytes, ms, faults', async () => {
    const server = await startServer(['--count', '5']);
    await request(server.url);
    await request(`${server.url}?fault=503`);
    await request(`${server.url}/x`, { method: 'POST' });
    await request(server.url, { headers: { 'X-Notes-Fault': 'truncate:7' } }).catch(() => {});
    const { code, stderr } = await server.stop();
    assert.equal(code, 0);
    const lines = stderr.trimEnd().split('\n');
    assert.match(lines[0], /^notes-server: 5 generated notes .* redirect target http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(lines[1], /^GET \/notes 200 \d+B \d+\.\dms$/);
    assert.match(lines[2], /^GET \/notes\?fault=503 503 33B \d+\.\dms fault=503$/);
    assert.match(lines[3], /^POST \/notes\/x 404 \d+B \d+\.\dms$/);
    assert.match(lines[4], /^GET \/notes 200 7B \d+\.\dms fault=truncate:7$/);
    assert.equal(lines.length, 5);
  });

  test('--quiet logs nothing', async () => {
    const server = await startServer(['--count', '5', '--quiet']);
    assert.equal((await request(server.url)).status, 200);
    const { code, stderr } = await server.stop();
    assert.equal(code, 0);
    assert.equal(stderr, '');
  });

  test('SIGINT exits 0', async () => {
    const server = await startServer(['--count', '5', '--quiet']);
    assert.equal((await request(server.url)).status, 200);
    assert.deepEqual(await server.stop('SIGINT'), { code: 0, signal: null, stderr: '' });
  });

  test('SIGTERM exits 0 with an idle keep-alive connection and a drip in flight', async () => {
    const server = await startServer(['--count', '500', '--quiet']);
    const agent = new http.Agent({ keepAlive: true });
    try {
      assert.equal((await request(server.url, { agent })).status, 200);
      const dripping = request(server.url, { headers: { 'X-Notes-Fault': 'drip:1/1000' } });
      dripping.catch(() => {}); // ends when the server stops
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(await server.stop(), { code: 0, signal: null, stderr: '' });
      await assert.rejects(dripping);
    } finally {
      agent.destroy();
    }
  });
});

describe('generated pages (--count)', () => {
  const args = ['--count', '25', '--page-size', '10', '--seed', '7', '--quiet'];
  const allIds = Array.from({ length: 25 }, (_, i) => `n${i}`);

  test('every style walks n0..n24 once; cursors are base64 that needs percent-encoding', async () => {
    const server = await startServer(args);
    try {
      const walks = {};
      for (const style of ['contract', 'drf', 'link']) {
        walks[style] = await walk(server.url, style, { 'X-Notes-Style': style });
        assert.deepEqual(walks[style].map((page) => page.ids.length), [10, 10, 5]);
        assert.deepEqual(walks[style].flatMap((page) => page.ids), allIds);
      }
      assert.deepEqual(walks.drf.map((page) => page.notes), walks.contract.map((page) => page.notes));
      assert.deepEqual(walks.link.map((page) => page.notes), walks.contract.map((page) => page.notes));
      const cursors = walks.contract.map((page) => json(page.res).next_cursor);
      assert.equal(cursors.pop(), null);
      for (const cursor of cursors) assert.match(cursor, /^[A-Za-z0-9+/]+={0,2}$/);
      assert.ok(cursors.some((cursor) => /[+/=]/.test(cursor)));
      for (const page of walks.contract) {
        assert.deepEqual(Object.keys(json(page.res)), ['notes', 'next_cursor']);
        for (const note of page.notes) assert.deepEqual(Object.keys(note).slice(0, 2), ['id', 'title']);
      }
      assert.ok(walks.contract.some((page) => page.notes.some((note) => /[^\x00-\x7f]/.test(note.title))));
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('the same seed gives the same bytes; another seed other cursors', async () => {
    const servers = await Promise.all([startServer(args), startServer(args), startServer([...args.slice(0, 5), '8', '--quiet'])]);
    try {
      const [a, b, c] = await Promise.all(servers.map((server) => walk(server.url, 'contract')));
      assert.deepEqual(a.map((page) => page.res.body), b.map((page) => page.res.body));
      assert.notEqual(json(a[0].res).next_cursor, json(c[0].res).next_cursor);
    } finally {
      for (const server of servers) assert.equal((await server.stop()).code, 0);
    }
  });

  test('--count 0 serves one empty page', async () => {
    const server = await startServer(['--count', '0', '--quiet']);
    try {
      assert.equal((await request(server.url)).body.toString(), '{"notes":[],"next_cursor":null}');
      assert.equal((await request(`${server.url}?style=drf`)).body.toString(), '{"next":null,"previous":null,"results":[]}');
      const link = await request(`${server.url}?style=link`);
      assert.equal(link.body.toString(), '[]');
      assert.equal(link.headers.link, undefined);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});
