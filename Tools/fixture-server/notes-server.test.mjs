// Integration tests of notes-server: the server runs as a child process on port 0 and is asked over
// HTTP (and HTTPS, with certificates that openssl makes at test time), serving a notes-gen directory
// built from Fixtures/contract (the files the Swift tests read) or generated pages. Run with
// `node --test Tools/`.
//
// Timing: only lower bounds are asserted (a drip or a delay takes at least so long), never upper ones.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { scanNotes } from './notes/scan.mjs';

const SERVER = fileURLToPath(new URL('./notes-server.mjs', import.meta.url));
const CONTRACT = fileURLToPath(new URL('../../Fixtures/contract/', import.meta.url));
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
 * One HTTP or HTTPS request; resolves with status, headers and the whole body, and rejects when the
 * connection fails or the body ends short. A new connection each time unless an agent is given. `ca`
 * is the certificate authority an HTTPS request trusts; `family: 4` resolves `localhost` to 127.0.0.1;
 * `body` is sent as the request's body.
 */
function request(url, { method = 'GET', headers = {}, agent = false, ca, family, body } = {}) {
  const client = String(url).startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method, headers, agent, ca, family }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end(body);
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
/** The fields of a request's log line: `c=` (the connection) and `t=` (ms since start, on arrival). */
const connectionOf = (line) => Number(/ c=(\d+) t=\d+$/.exec(line)[1]);
const arrival = (line) => Number(/ t=(\d+)$/.exec(line)[1]);
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
 * response with its notes: contract and header send the next cursor (in the body, in X-Next-Cursor),
 * drf and offset a `next` URL, link and page a Link rel="next", keyset `has_more` (the next page
 * starts after the last id), and jsonapi `links.next`.
 */
async function walk(url, style, headers = {}, maxPages = 50) {
  const pages = [];
  while (url !== null) {
    assert.ok(pages.length < maxPages, 'the walk does not end');
    const res = await request(url, { headers });
    assert.equal(res.status, 200, `${url}: ${res.body}`);
    const body = json(res);
    let notes;
    if (style === 'contract') {
      notes = body.notes;
      const next = new URL(url);
      next.searchParams.set('cursor', body.next_cursor);
      url = body.next_cursor === null ? null : next.href;
    } else if (style === 'drf' || style === 'offset') {
      notes = body.results;
      url = body.next;
    } else if (style === 'page') {
      notes = body.results;
      assert.equal(body.next, nextLink(res.headers.link), 'the body and the Link header agree');
      url = nextLink(res.headers.link);
    } else if (style === 'keyset') {
      notes = body.data;
      const next = new URL(url);
      if (body.has_more) next.searchParams.set('starting_after', String(notes.at(-1).id));
      url = body.has_more ? next.href : null;
    } else if (style === 'jsonapi') {
      notes = body.data;
      url = body.links.next;
    } else if (style === 'header') {
      notes = body.notes;
      const cursor = res.headers['x-next-cursor'];
      const next = new URL(url);
      if (cursor !== undefined) next.searchParams.set('cursor', cursor);
      url = cursor === undefined ? null : next.href;
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
    for (const flag of ['--dir', '--count', '--page-size', '--seed', '--host', '--port', '--style', '--fault', '--token-file', '--fixtures', '--cache-mb', '--quiet',
      '--max-limit', '--totals', '--total-lie', 'offset', 'page', 'keyset', 'header', 'shift', '--id-kind', 'jsonapi', 'page[size]', 'page_size', '406',
      '--tls-cert', '--tls-key', '--url-host', '--compress', 'stall', 'bomb', 'ratelimit-github', 'ratelimit-ietf',
      'ratelimit-retry-after', 'remaining-zero', 'c=', 't=', '--updates', 'since=T', 'updated_at', '/admin/touch?count=K',
      '/admin/touch?id=ID', '/admin/add?count=K', '422']) {
      assert.ok(stdout.includes(flag), flag);
    }
  });

  for (const args of [[], ['--count', 'many'], ['--count', '5', '--style', 'xml'], ['--count', '5', '--fault', 'explode'],
    ['--count', '5', '--fault', '503@9'], ['--count', '5', '--fault', 'auth'], ['--count', '5', '--fault', 'fixture:absent.json'],
    ['--count', '5', '--bogus'], ['--dir', 'x', '--count', '5'], ['--dir', 'x', '--style', 'offset'], ['--dir', 'x', '--totals', 'none'],
    ['--count', '500', '--fault', 'shift:2@2'], ['--count', '500', '--style', 'header', '--fault', 'shift:2@2'],
    ['--count', '500', '--style', 'keyset', '--fault', 'cycle@2'], ['--count', '500', '--style', 'offset', '--fault', 'shift:2@2x1'],
    ['--count', '5', '--totals', 'some'], ['--count', '5', '--max-limit', '0'], ['--count', '5', '--total-lie', 'x'],
    ['--count', '5', '--tls-cert', 'cert.pem'], ['--count', '5', '--compress', 'zip'], ['--count', '5', '--url-host', 'a b'],
    ['--count', '5', '--fault', 'ratelimit-ietf:soon'], ['--count', '5', '--id-kind', 'uuid'], ['--dir', 'x', '--id-kind', 'int'],
    ['--dir', 'x', '--style', 'jsonapi'], ['--count', '500', '--style', 'drf', '--fault', 'shift:2@2'],
    ['--dir', 'x', '--updates'], ['--count', '5', '--updates', '--style', 'offset'], ['--count', '5', '--updates', '--style', 'keyset'],
    ['--count', '5', '--updates', '--style', 'drf', '--id-kind', 'int'], ['--count', '5', '--updates=1']]) {
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

  test('header style: {"notes":items} byte for byte, X-Next-Cursor on every page but the last', async () => {
    for (const [i, page] of pages.entries()) {
      const res = await request(urlOf(i, 'style=header'));
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.body, Buffer.concat([Buffer.from('{"notes":'), page.items, Buffer.from('}')]));
      assert.equal(res.headers['x-next-cursor'], page.nextCursor ?? undefined);
    }
    const walked = await walk(`${base}?style=header`, 'header');
    assert.deepEqual(walked.map((page) => page.ids), pages.map((page) => page.ids));
    const cycled = await request(urlOf(3, 'style=header&fault=cycle'));
    assert.equal(cycled.headers['x-next-cursor'], pages[1].cursor);
  });

  test('offset, page and keyset styles need generated notes: 400 here', async () => {
    for (const style of ['offset', 'page', 'keyset']) {
      const res = await request(`${base}?style=${style}`);
      assert.equal(res.status, 400, style);
      assert.deepEqual(json(res), { error: 'bad-request', message: `style '${style}' pages through generated notes: it needs --count, not --dir` });
    }
    assert.equal((await request(base, { headers: { 'X-Notes-Style': 'page' } })).status, 400);
    assert.equal((await request(`${base}?fault=shift:2@2`)).status, 400);
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
  test('one line per request: method, target, status, bytes, ms, faults, connection, arrival time', async () => {
    const server = await startServer(['--count', '5']);
    await request(server.url);
    await request(`${server.url}?fault=503`);
    await request(`${server.url}/x`, { method: 'POST' });
    await request(server.url, { headers: { 'X-Notes-Fault': 'truncate:7' } }).catch(() => {});
    const { code, stderr } = await server.stop();
    assert.equal(code, 0);
    const lines = stderr.trimEnd().split('\n');
    assert.match(lines[0], /^notes-server: 5 generated notes .* redirect target http:\/\/127\.0\.0\.1:\d+$/);
    // A new connection per request: c= counts them.
    assert.match(lines[1], /^GET \/notes 200 \d+B \d+\.\dms c=1 t=\d+$/);
    assert.match(lines[2], /^GET \/notes\?fault=503 503 33B \d+\.\dms fault=503 c=2 t=\d+$/);
    assert.match(lines[3], /^POST \/notes\/x 404 \d+B \d+\.\dms c=3 t=\d+$/);
    assert.match(lines[4], /^GET \/notes 200 7B \d+\.\dms fault=truncate:7 c=4 t=\d+$/);
    assert.equal(lines.length, 5);
    // Fields 0-2 are still the method, the target and the status; t= never goes back.
    assert.deepEqual(lines.slice(1).map((line) => line.split(' ').slice(0, 3).join(' ')),
      ['GET /notes 200', 'GET /notes?fault=503 503', 'POST /notes/x 404', 'GET /notes 200']);
    const times = lines.slice(1).map(arrival);
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
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

describe('next-ref: hostile next references (--count)', () => {
  const args = ['--count', '25', '--page-size', '10', '--seed', '7', '--quiet'];
  let server;
  let cursors; // the real cursors of pages 2 and 3
  before(async () => {
    server = await startServer(args);
    cursors = (await walk(server.url, 'contract')).map((page) => json(page.res).next_cursor).slice(0, 2);
  });
  after(async () => assert.equal((await server.stop()).code, 0));
  // long-name's Link and X-Next-Cursor are over the 16 KiB of headers that Node's client takes by default.
  const request = (url) => new Promise((resolve, reject) => {
    http.get(url, { agent: false, maxHeaderSize: 1 << 20 }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
  const origin = () => new URL(server.url).origin;
  const real = (extra) => `${server.url}?cursor=${encodeURIComponent(cursors[0])}&${extra}`;

  test('drf and link: the next URL of each kind, the others left alone', async () => {
    const q = (spec) => `style=drf&fault=${spec}`;
    const [host] = origin().split('//').slice(1);
    const expected = {
      'brackets-raw': (fault) => `${origin()}/notes?page[offset]=100&cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'brackets-encoded': (fault) => `${origin()}/notes?page%5Boffset%5D=100&cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'space': (fault) => `${origin()}/notes?q=a b&cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'bad-escape': (fault) => `${origin()}/notes%zz?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'unicode': (fault) => `${origin()}/notes/é?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'fragment': (fault) => `${real(fault)}#frag`,
      'userinfo': (fault) => `http://user:pass@${host}/notes?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'ftp': (fault) => `ftp://${host}/notes?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'file': () => 'file:///etc/passwd',
      'empty-host': (fault) => `http:///notes?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'long-name': (fault) => `${real(fault)}&${'n'.repeat(64 * 1024)}=1`,
    };
    for (const [kind, url] of Object.entries(expected)) {
      const spec = `next-ref:${kind}@1`;
      const drf = await request(`${server.url}?${q(spec)}`);
      assert.equal(drf.status, 200, kind);
      assert.equal(json(drf).next, url(`style=drf&fault=${encodeURIComponent(spec)}`), kind);
      const link = await request(`${server.url}?style=link&fault=${spec}`);
      const target = Buffer.from(link.headers.link, 'latin1').toString('utf8'); // raw UTF-8 bytes in the header
      assert.equal(nextLink(target), url(`style=link&fault=${encodeURIComponent(spec)}`), kind);
      // Page 2 is not page 1: its next URL is the real one; the notes are untouched.
      const page2 = json(await request(`${server.url}?cursor=${encodeURIComponent(cursors[0])}&${q(spec)}`));
      assert.equal(page2.next, `${server.url}?cursor=${encodeURIComponent(cursors[1])}&style=drf&fault=${encodeURIComponent(spec)}`);
      assert.deepEqual(json(drf).results.map((note) => note.id), Array.from({ length: 10 }, (_, i) => `n${i}`));
    }
  });

  test('contract and header: the hostile cursor, which the server takes as the real one', async () => {
    for (const [kind, suffix] of [['brackets-raw', 'page[offset]=100'], ['brackets-encoded', 'page%5Boffset%5D=100'],
      ['space', ' and space'], ['bad-escape', '%zz'], ['unicode', 'é'], ['long-name', 'n'.repeat(64 * 1024)]]) {
      const res = await request(`${server.url}?fault=next-ref:${kind}@1`);
      const hostile = json(res).next_cursor;
      assert.equal(hostile, `${cursors[0]}${suffix}`, kind);
      const header = await request(`${server.url}?style=header&fault=next-ref:${kind}@1`);
      assert.equal(Buffer.from(header.headers['x-next-cursor'], 'latin1').toString('utf8'), hostile, kind);
      // (A 64 KiB cursor is over the 16 KiB request head that Node's server takes: the client must refuse it.)
      if (kind === 'long-name') continue;
      const followed = await request(`${server.url}?cursor=${encodeURIComponent(hostile)}`);
      assert.deepEqual(followed.body, (await request(`${server.url}?cursor=${encodeURIComponent(cursors[0])}`)).body, kind);
    }
    // The last page has no next reference to replace.
    const last = await request(`${server.url}?cursor=${encodeURIComponent(cursors[1])}&fault=next-ref:space`);
    assert.equal(json(last).next_cursor, null);
  });

  test("the URL kinds' targets serve the next page where they can: /notes/é, extra parameters", async () => {
    const want = (await request(`${server.url}?cursor=${encodeURIComponent(cursors[0])}`)).body;
    for (const url of [`${origin()}/notes/%C3%A9?cursor=${encodeURIComponent(cursors[0])}`,
      `${origin()}/notes?page%5Boffset%5D=100&cursor=${encodeURIComponent(cursors[0])}`,
      `${origin()}/notes?q=a%20b&cursor=${encodeURIComponent(cursors[0])}`]) {
      assert.deepEqual((await request(url)).body, want, url);
    }
    assert.equal((await request(`${origin()}/notes%25zz?cursor=${encodeURIComponent(cursors[0])}`)).status, 404);
  });

  test('refused: a URL kind where the next reference is a cursor, next-ref outside the cursor styles, an unknown kind', async () => {
    for (const [query, message] of [
      ['fault=next-ref:ftp', /in contract style the next reference is a cursor, and 'ftp' is a URL's/],
      ['style=header&fault=next-ref:fragment', /in header style the next reference is a cursor/],
      ['style=offset&fault=next-ref:space', /works in the contract, header, drf, link styles only, not offset/],
      ['fault=next-ref:gopher', /fault 'next-ref' needs one of brackets-raw/],
      ['fault=next-ref', /fault 'next-ref' needs one of/],
    ]) {
      const res = await request(`${server.url}?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(json(res).message, message, query);
    }
    for (const extra of [['--fault', 'next-ref:file@2'], ['--style', 'keyset', '--fault', 'next-ref:space'], ['--fault', 'next-ref:space@9']]) {
      const { code, stderr } = await runServer([...args, ...extra]);
      assert.equal(code, 64, extra.join(' '));
      assert.match(stderr, /^Error: .*next-ref/);
    }
  });

  test('a flag fault acts on its page only, and is logged', async () => {
    const flagged = await startServer(['--count', '25', '--page-size', '10', '--seed', '7', '--style', 'drf', '--fault', 'next-ref:ftp@2']);
    const page1 = json(await request(flagged.url));
    const page2 = json(await request(page1.next));
    const page3 = json(await request(page2.next.replace(/^ftp:/, 'http:')));
    const { code, stderr } = await flagged.stop();
    assert.equal(code, 0);
    assert.match(page1.next, /^http:\/\//);
    assert.match(page2.next, /^ftp:\/\//);
    assert.equal(page3.next, null);
    assert.match(stderr, /GET \/notes\?cursor=\S+ 200 \d+B \S+ fault=next-ref:ftp@2 /);
  });
});

// MARK: - The list styles: offset, page, keyset (and header, cursor pages in a header)

describe('offset, page, keyset and header styles (--count)', () => {
  const N = 25;
  const allIds = Array.from({ length: N }, (_, i) => `n${i}`);
  let server;
  let base;
  const rawNotes = new Map(); // id -> the note's bytes, from the contract pages

  /** The notes array of a response body under `key`, and its notes' bytes. */
  function itemsOf(body, key) {
    const start = body.indexOf(`"${key}":[`) + key.length + 3;
    const items = body.subarray(...arrayAt(body, start));
    return { items, notes: scanNotes(items).map((note) => items.subarray(note.start, note.end).toString()) };
  }
  const KEYS = { offset: 'results', page: 'results', keyset: 'data', header: 'notes' };
  const get = (query, headers) => request(`${base}?${query}`, { headers });
  const statusOf = async (query) => (await get(query)).status;

  before(async () => {
    server = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--quiet']);
    base = server.url;
    for (const page of await walk(base, 'contract')) {
      for (const note of itemsOf(page.res.body, 'notes').notes) rawNotes.set(JSON.parse(note).id, note);
    }
    assert.deepEqual([...rawNotes.keys()], allIds);
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  for (const style of ['offset', 'page', 'keyset', 'header']) {
    test(`${style}: following the next page yields n0..n${N - 1} once, in order, each note the same bytes as in contract style`, async () => {
      for (const limit of style === 'header' ? [null] : [null, 1, 7, 10, 24, 25, 1000]) {
        const param = style === 'page' ? 'per_page' : 'limit';
        const start = `${base}?style=${style}${limit === null ? '' : `&${param}=${limit}`}`;
        const pages = await walk(start, style, {}, 60);
        const size = limit ?? 10;
        assert.deepEqual(pages.map((p) => p.ids.length), Array.from({ length: Math.ceil(N / size) }, (_, i) => Math.min(size, N - i * size)), `${style} ${limit}`);
        assert.deepEqual(pages.flatMap((p) => p.ids), allIds, `${style} limit ${limit}`);
        for (const page of pages) {
          const { items, notes } = itemsOf(page.res.body, KEYS[style]);
          assert.deepEqual(notes, page.ids.map((id) => rawNotes.get(id)));
          assert.equal(items.toString(), `[${notes.join(',')}]`);
        }
      }
    });
  }

  test('the style by flag and by header; URLs carry only what the query chose', async () => {
    const flagged = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--style', 'offset', '--quiet']);
    try {
      const pages = await walk(flagged.url, 'offset');
      assert.deepEqual(pages.flatMap((p) => p.ids), allIds);
      // No limit in the request, none in the links: a walk from /notes changes only the offset.
      assert.deepEqual(pages.map((p) => json(p.res).next), [`${flagged.url}?offset=10`, `${flagged.url}?offset=20`, null]);
      assert.equal(json((await request(`${flagged.url}?limit=10`))).next, `${flagged.url}?offset=10&limit=10`);
      const contract = await request(flagged.url, { headers: { 'X-Notes-Style': 'contract' } });
      assert.deepEqual(Object.keys(json(contract)), ['notes', 'next_cursor']);
    } finally {
      assert.equal((await flagged.stop()).code, 0);
    }
    const page = await get('per_page=5&page=2', { 'X-Notes-Style': 'page' });
    assert.deepEqual(json(page).results.map((n) => n.id), ['n5', 'n6', 'n7', 'n8', 'n9']);
    assert.equal(json(page).next, `${base}?page=3&per_page=5`);
    const carried = json(await get('style=offset&limit=5&foo=bar&totals=count&fault=delay:1'));
    assert.equal(carried.next, `${base}?offset=5&limit=5&style=offset&totals=count&fault=delay%3A1`);
  });

  test('offset: computing offsets directly reaches every note once; previous links; past the end is an empty page', async () => {
    for (const limit of [1, 4, 10, 13]) {
      const ids = [];
      for (let offset = 0; offset < N; offset += limit) {
        const res = await get(`style=offset&offset=${offset}&limit=${limit}`);
        const body = json(res);
        assert.deepEqual(Object.keys(body), ['count', 'next', 'previous', 'results']);
        assert.equal(body.count, N);
        assert.equal(body.next, offset + limit < N ? `${base}?offset=${offset + limit}&limit=${limit}&style=offset` : null);
        assert.equal(body.previous, offset === 0 ? null : `${base}?offset=${Math.max(0, offset - limit)}&limit=${limit}&style=offset`);
        ids.push(...body.results.map((n) => n.id));
      }
      assert.deepEqual(ids, allIds, `limit ${limit}`);
    }
    // Any offset, not only multiples of the limit.
    assert.deepEqual(json(await get('style=offset&offset=3&limit=4')).results.map((n) => n.id), ['n3', 'n4', 'n5', 'n6']);
    assert.equal(json(await get('style=offset&offset=3&limit=4')).previous, `${base}?offset=0&limit=4&style=offset`);
    for (const offset of [N, N + 1, 1000]) {
      const res = await get(`style=offset&offset=${offset}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-total-count'], String(N));
      assert.deepEqual(json(res), { count: N, next: null, previous: `${base}?offset=${offset - 10}&style=offset`, results: [] });
    }
  });

  test('page: computing pages directly reaches every note once; Link next and last, X-Total-Count; past the end is empty', async () => {
    for (const perPage of [1, 4, 10, 13]) {
      const ids = [];
      const last = Math.ceil(N / perPage);
      for (let p = 1; p <= last; p++) {
        const res = await get(`style=page&page=${p}&per_page=${perPage}`);
        const body = json(res);
        assert.deepEqual(Object.keys(body), ['count', 'total_pages', 'next', 'previous', 'results']);
        assert.equal(body.count, N);
        assert.equal(body.total_pages, last);
        assert.equal(res.headers['x-total-count'], String(N));
        const url = (n) => `${base}?page=${n}&per_page=${perPage}&style=page`;
        assert.equal(body.next, p < last ? url(p + 1) : null);
        assert.equal(body.previous, p > 1 ? url(p - 1) : null);
        assert.equal(res.headers.link, [...(p < last ? [`<${url(p + 1)}>; rel="next"`] : []), `<${url(last)}>; rel="last"`].join(', '));
        ids.push(...body.results.map((n) => n.id));
      }
      assert.deepEqual(ids, allIds, `per_page ${perPage}`);
    }
    const beyond = await get('style=page&page=4');
    assert.equal(beyond.status, 200);
    assert.deepEqual(json(beyond), { count: N, total_pages: 3, next: null, previous: `${base}?page=3&style=page`, results: [] });
    assert.equal(beyond.headers.link, `<${base}?page=3&style=page>; rel="last"`);
  });

  test('keyset: starting after any id; after the last one, an empty page', async () => {
    const body = json(await get('style=keyset&starting_after=n3&limit=4'));
    assert.deepEqual(Object.keys(body), ['object', 'data', 'has_more', 'url']);
    assert.deepEqual(body.data.map((n) => n.id), ['n4', 'n5', 'n6', 'n7']);
    assert.equal(body.has_more, true);
    assert.equal(body.object, 'list');
    assert.equal(body.url, '/notes');
    assert.deepEqual(json(await get('style=keyset&starting_after=n20')).data.map((n) => n.id), ['n21', 'n22', 'n23', 'n24']);
    assert.equal(json(await get('style=keyset&starting_after=n20')).has_more, false);
    assert.equal(json(await get('style=keyset&starting_after=n14&limit=10')).has_more, false);
    assert.deepEqual(json(await get('style=keyset&starting_after=n24')), { object: 'list', data: [], has_more: false, url: '/notes' });
    const res = await get('style=keyset');
    assert.equal(res.headers['x-total-count'], undefined);
    assert.equal(res.headers.link, undefined);
  });

  test('totals per request: totals=none, each one alone', async () => {
    const keys = async (query) => {
      const res = await get(query);
      return { keys: Object.keys(json(res)), header: res.headers['x-total-count'], link: res.headers.link };
    };
    const next = `<${base}?page=2&style=page&totals=none>; rel="next"`;
    assert.deepEqual(await keys('style=page&totals=none'), { keys: ['next', 'previous', 'results'], header: undefined, link: next });
    assert.deepEqual(await keys('style=offset&totals=none'), { keys: ['next', 'previous', 'results'], header: undefined, link: undefined });
    assert.deepEqual((await keys('style=page&totals=count')).keys, ['count', 'next', 'previous', 'results']);
    assert.deepEqual((await keys('style=page&totals=pages')).keys, ['total_pages', 'next', 'previous', 'results']);
    assert.equal((await keys('style=page&totals=header')).header, String(N));
    assert.equal((await keys('style=page&page=3&totals=header')).link, undefined);
    assert.equal((await keys('style=page&page=3&totals=link')).link, `<${base}?page=3&style=page&totals=link>; rel="last"`);
    assert.deepEqual(await keys('style=offset&totals=pages,link'), { keys: ['next', 'previous', 'results'], header: undefined, link: undefined });
    // The next URLs keep totals=, so a walk keeps them off.
    const pages = await walk(`${base}?style=offset&totals=none&limit=7`, 'offset');
    assert.deepEqual(pages.flatMap((p) => p.ids), allIds);
    assert.ok(pages.every((p) => !('count' in json(p.res)) && p.res.headers['x-total-count'] === undefined));
  });

  test('--totals and --total-lie: the announced total is off, the notes and next links are not', async () => {
    const lying = await startServer(['--count', String(N), '--page-size', '5', '--seed', '7', '--total-lie', '4', '--quiet']);
    const modest = await startServer(['--count', String(N), '--page-size', '5', '--seed', '7', '--total-lie=-100', '--totals', 'count,pages', '--quiet']);
    try {
      const first = await request(`${lying.url}?style=page`);
      assert.equal(json(first).count, N + 4);
      assert.equal(json(first).total_pages, 6);
      assert.equal(first.headers['x-total-count'], String(N + 4));
      assert.match(first.headers.link, /\?page=6&style=page>; rel="last"$/);
      const pages = await walk(`${lying.url}?style=page`, 'page');
      assert.deepEqual(pages.flatMap((p) => p.ids), allIds);
      assert.equal(pages.length, 5);
      assert.equal(json(await request(`${lying.url}?style=offset`)).count, N + 4);
      const sixth = json(await request(`${lying.url}?style=page&page=6`));
      assert.deepEqual([sixth.results, sixth.next], [[], null]);

      const none = await request(`${modest.url}?style=page`);
      assert.deepEqual(Object.keys(json(none)), ['count', 'total_pages', 'next', 'previous', 'results']);
      assert.deepEqual([json(none).count, json(none).total_pages], [0, 1]);
      assert.equal(none.headers['x-total-count'], undefined);
      assert.equal(none.headers.link, `<${modest.url}?page=2&style=page>; rel="next"`);
      assert.deepEqual((await walk(`${modest.url}?style=page`, 'page')).flatMap((p) => p.ids), allIds);
      // The request's totals= wins over --totals.
      assert.equal((await request(`${modest.url}?style=page&totals=header`)).headers['x-total-count'], '0');
    } finally {
      assert.equal((await lying.stop()).code, 0);
      assert.equal((await modest.stop()).code, 0);
    }
  });

  test('limits are capped at --max-limit (default 1000, or --page-size if larger)', async () => {
    const capped = await startServer(['--count', String(N), '--page-size', '5', '--max-limit', '8', '--quiet']);
    const big = await startServer(['--count', '2500', '--page-size', '1200', '--quiet']);
    try {
      const offset = json(await request(`${capped.url}?style=offset&limit=20`));
      assert.equal(offset.results.length, 8);
      assert.equal(offset.next, `${capped.url}?offset=8&limit=8&style=offset`);
      const page = json(await request(`${capped.url}?style=page&per_page=9999999999999999999999&page=2`));
      assert.deepEqual(page.results.map((n) => n.id), ['n8', 'n9', 'n10', 'n11', 'n12', 'n13', 'n14', 'n15']);
      assert.equal(page.total_pages, 4);
      assert.equal(json(await request(`${capped.url}?style=keyset&limit=100`)).data.length, 8);
      assert.equal(json(await request(`${capped.url}?style=offset`)).results.length, 5);
      assert.equal(json(await request(`${big.url}?style=offset`)).results.length, 1200);
      assert.equal(json(await request(`${big.url}?style=offset&limit=2000`)).results.length, 1200);
      assert.equal(json(await request(`${big.url}?style=page&per_page=1000`)).results.length, 1000);
    } finally {
      assert.equal((await capped.stop()).code, 0);
      assert.equal((await big.stop()).code, 0);
    }
    assert.equal(json(await get('style=offset&limit=1001')).results.length, N);
  });

  test('bad parameters: 400 with the error JSON', async () => {
    for (const [query, error, message] of [
      ['style=offset&offset=-1', 'bad-request', "offset must be an integer of at least 0, not '-1'"],
      ['style=offset&offset=2.5', 'bad-request', "offset must be an integer of at least 0, not '2.5'"],
      ['style=offset&limit=0', 'bad-request', "limit must be an integer of at least 1, not '0'"],
      ['style=offset&limit=many', 'bad-request', "limit must be an integer of at least 1, not 'many'"],
      ['style=offset&offset=1&offset=2', 'bad-request', 'more than one offset'],
      ['style=page&page=0', 'bad-request', "page must be an integer of at least 1, not '0'"],
      ['style=page&page=-2', 'bad-request', "page must be an integer of at least 1, not '-2'"],
      ['style=page&per_page=0', 'bad-request', "per_page must be an integer of at least 1, not '0'"],
      ['style=page&totals=all', 'bad-request', "totals= takes a comma-separated list of count, header, link, pages, or none; not 'all'"],
      ['style=keyset&limit=0', 'bad-request', "limit must be an integer of at least 1, not '0'"],
      ['style=keyset&starting_after=n25', 'unknown-cursor', 'no note has this id'],
      ['style=keyset&starting_after=nope', 'unknown-cursor', 'no note has this id'],
      ['style=keyset&starting_after=', 'unknown-cursor', 'no note has this id'],
      ['style=keyset&starting_after=new0', 'unknown-cursor', 'no note has this id'],
      ['style=header&cursor=nope', 'unknown-cursor', 'no page has this cursor'],
      ['style=keyset&fault=cycle', 'bad-request', "fault 'cycle' cannot work in keyset style: the next page starts after the last id served, so nothing can point back"],
      ['style=header&fault=shift:2@2', 'bad-request', "fault 'shift:2@2' works in the offset, page, keyset, jsonapi, next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb styles (and drf with --id-kind int) only, not header"],
      ['fault=shift:2@2', 'bad-request', "fault 'shift:2@2' works in the offset, page, keyset, jsonapi, next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb styles (and drf with --id-kind int) only, not contract"],
      ['style=drf&fault=shift:2@2', 'bad-request', "fault 'shift:2@2' works in the offset, page, keyset, jsonapi, next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb styles (and drf with --id-kind int) only, not drf"],
      ['style=offset&fault=shift:2@2x1', 'bad-request', "fault 'shift' acts once and takes no xN ('shift:2@2x1')"],
      ['style=offset&fault=shift', 'bad-request', "fault 'shift' needs the number of notes to insert, as in shift:5@2 ('shift')"],
    ]) {
      const res = await get(query);
      assert.equal(res.status, 400, query);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(json(res), { error, message }, query);
    }
    // Other styles ignore the list parameters, and the list styles the cursor.
    assert.equal(await statusOf('offset=-1&page=0'), 200);
    assert.equal(await statusOf('style=offset&cursor=nope'), 200);
  });

  test('--count 0: an empty list in every style', async () => {
    const empty = await startServer(['--count', '0', '--quiet']);
    try {
      const at = (query) => request(`${empty.url}?${query}`);
      assert.deepEqual(json(await at('style=offset')), { count: 0, next: null, previous: null, results: [] });
      const page = await at('style=page');
      assert.deepEqual(json(page), { count: 0, total_pages: 1, next: null, previous: null, results: [] });
      assert.equal(page.headers.link, `<${empty.url}?page=1&style=page>; rel="last"`);
      assert.equal(page.headers['x-total-count'], '0');
      assert.deepEqual(json(await at('style=keyset')), { object: 'list', data: [], has_more: false, url: '/notes' });
      const header = await at('style=header');
      assert.equal(header.body.toString(), '{"notes":[]}');
      assert.equal(header.headers['x-next-cursor'], undefined);
    } finally {
      assert.equal((await empty.stop()).code, 0);
    }
  });

  // The second page of each style, in its own terms, and a request for its first page.
  const SECOND = {
    offset: ['style=offset&offset=10', 'style=offset&offset=15', 'style=offset&offset=5&limit=5', 'style=offset&offset=19&limit=10'],
    page: ['style=page&page=2', 'style=page&page=2&per_page=3'],
    keyset: ['style=keyset&starting_after=n9', 'style=keyset&starting_after=n4&limit=5', 'style=keyset&starting_after=n18'],
  };
  const FIRST = {
    offset: ['style=offset', 'style=offset&offset=9', 'style=offset&offset=4&limit=5', 'style=offset&offset=20&limit=10'],
    page: ['style=page&page=1', 'style=page&page=3&per_page=3'],
    keyset: ['style=keyset', 'style=keyset&starting_after=n8', 'style=keyset&starting_after=n3&limit=5'],
  };
  const headerSecond = async () => `style=header&cursor=${encodeURIComponent((await get('style=header')).headers['x-next-cursor'])}`;

  test('503@2, with @2 the second page in each style\'s terms', async () => {
    const SECOND_ALL = { ...SECOND, header: [await headerSecond()] };
    const FIRST_ALL = { ...FIRST, header: ['style=header'] };
    for (const [style, queries] of Object.entries(SECOND_ALL)) {
      for (const query of queries) {
        const res = await get(`${query}&fault=503@2`);
        assert.equal(res.status, 503, query);
        assert.equal(res.headers['retry-after'], '1');
        assert.deepEqual(json(res), { error: 'injected', status: 503 });
      }
      // Not on other pages (a different @PAGE of the same spec, so a different spec's counter).
      for (const query of FIRST_ALL[style]) assert.equal(await statusOf(`${query}&fault=503@2`), 200, query);
      assert.equal(await statusOf(`${queries[0]}&fault=503@3`), 200);
    }
    // Page 3 in keyset terms: the first note served is n20 (limit 10).
    assert.equal(await statusOf('style=keyset&starting_after=n19&fault=503@3'), 503);
    assert.equal(await statusOf('style=page&page=7&per_page=2&fault=503@7'), 503);
    // Past the end is still a page in each style's terms.
    assert.equal(await statusOf('style=offset&offset=40&limit=10&fault=503@5'), 503);
  });

  test('duplicate-id@2: the last note of the second page takes the first id, in each style', async () => {
    for (const query of [SECOND.offset[0], SECOND.page[0], SECOND.keyset[0], await headerSecond()]) {
      const style = new URLSearchParams(query).get('style');
      const plain = await get(query);
      const res = await get(`${query}&fault=duplicate-id@2`);
      const ids = json(res)[KEYS[style]].map((n) => n.id);
      assert.deepEqual(ids, [...json(plain)[KEYS[style]].map((n) => n.id).slice(0, -1), 'n0'], query);
      // Only the id changed (the URLs also carry the fault).
      assert.equal(res.body.toString().replaceAll('&fault=duplicate-id%402', ''), plain.body.toString().replace('"id":"n19"', '"id":"n0"'), query);
    }
    const first = json(await get('style=offset&fault=duplicate-id@2'));
    assert.deepEqual(first.results.map((n) => n.id), allIds.slice(0, 10));
  });

  test('truncate@2: the full Content-Length, half the body, in each style', async () => {
    for (const query of [SECOND.offset[0], SECOND.page[0], SECOND.keyset[0], await headerSecond()]) {
      // The same page with a fault that does not act here: its URLs carry a spec of the same length.
      const full = (await get(`${query}&fault=truncate@3`)).body;
      const { head, body } = await rawGet(`${base}?${query}&fault=truncate@2`);
      assert.match(head, /^HTTP\/1\.1 200 /);
      assert.match(head, new RegExp(`\r\ncontent-length: ${full.length}\r\n`, 'i'), query);
      assert.equal(body.toString('latin1'), full.subarray(0, Math.floor(full.length / 2)).toString('latin1').replaceAll('truncate%403', 'truncate%402'), query);
      await assert.rejects(get(`${query}&fault=truncate@2`), { code: 'ECONNRESET' });
    }
    const whole = (await get('style=offset&fault=truncate@2')).body;
    assert.doesNotThrow(() => JSON.parse(whole));
  });

  test('content faults on list pages: huge-title, deep', async () => {
    const huge = json(await get('style=keyset&starting_after=n9&fault=huge-title:12@2'));
    assert.equal(huge.data[0].title, 'huge title h');
    const deep = json(await get('style=page&page=2&fault=deep:3@2'));
    assert.deepEqual(deep.results[0].deep, [[[]]]);
    assert.deepEqual(deep.results.map((n) => n.id), allIds.slice(10, 20));
  });

  test('cycle: next points back to the previous page in offset and page; keyset refuses it', async () => {
    const offset = json(await get('style=offset&offset=20&fault=cycle'));
    assert.equal(offset.next, `${base}?offset=10&style=offset&fault=cycle`);
    assert.equal(offset.next, offset.previous);
    const page = await get('style=page&page=2&fault=cycle');
    assert.equal(json(page).next, `${base}?page=1&style=page&fault=cycle`);
    assert.equal(nextLink(page.headers.link), json(page).next);
    // Page 1 has no previous page and is left alone.
    assert.equal(json(await get('style=offset&fault=cycle')).next, `${base}?offset=10&style=offset&fault=cycle`);
    // A walk with cycle@3 loops between pages 2 and 3.
    await assert.rejects(walk(`${base}?style=page&fault=cycle@3`, 'page', {}, 10), /does not end/);
    assert.equal(await statusOf('style=keyset&fault=cycle@3'), 400);
    assert.equal((await get('style=keyset', { 'X-Notes-Fault': 'cycle' })).status, 400);
  });

  test('redirect: the target serves the list styles too', async () => {
    for (const query of [SECOND.offset[0], SECOND.page[0], SECOND.keyset[0], await headerSecond()]) {
      const res = await get(`${query}&fault=redirect@2`);
      assert.equal(res.status, 302, query);
      const followed = await request(res.headers.location);
      assert.equal(followed.status, 200);
      const style = new URLSearchParams(query).get('style');
      assert.deepEqual(json(followed)[KEYS[style]].map((n) => n.id), allIds.slice(10, 20), query);
    }
    const followed = json(await request((await get('style=offset&offset=10&fault=redirect@2')).headers.location));
    // Its next URL names the main listener, with the query as sent.
    assert.equal(followed.next, `${base}?offset=20&style=offset&fault=redirect%402`);
  });

  test('shift:3@2 in offset style: from page 2 on, three new notes first, so page 2 repeats the end of page 1', async () => {
    const pages = await walk(`${base}?style=offset&fault=shift:3@2`, 'offset');
    const ids = pages.flatMap((p) => p.ids);
    assert.deepEqual(pages.map((p) => p.ids[0]), ['n0', 'n7', 'n17']);
    assert.deepEqual(ids, [...allIds.slice(0, 10), ...allIds.slice(7, 17), ...allIds.slice(17)]);
    assert.deepEqual(pages.map((p) => json(p.res).count), [N, N + 3, N + 3]);
    assert.deepEqual(pages.map((p) => p.res.headers['x-total-count']), [String(N), String(N + 3), String(N + 3)]);
    // From now on, every request with this fault sees the new notes; the others do not.
    const now = json(await get('style=offset&fault=shift:3@2&limit=5'));
    assert.deepEqual(now.results.map((n) => n.id), ['new0', 'new1', 'new2', 'n0', 'n1']);
    assert.deepEqual(Object.keys(now.results[0]), ['id', 'title', 'rank', 'pinned']);
    assert.equal(typeof now.results[0].title, 'string');
    assert.deepEqual(json(await get('style=page&per_page=5&fault=shift:3@2')).results.map((n) => n.id), ['new0', 'new1', 'new2', 'n0', 'n1']);
    assert.deepEqual(json(await get('style=offset&limit=3')).results.map((n) => n.id), ['n0', 'n1', 'n2']);
    // The keyset style finds the new ids too.
    assert.deepEqual(json(await get('style=keyset&limit=2&starting_after=new1&fault=shift:3@2')).data.map((n) => n.id), ['new2', 'n0']);
  });

  test('shift in page and keyset style; a keyset walk is not disturbed', async () => {
    const pages = await walk(`${base}?style=page&fault=shift:2@3`, 'page');
    assert.deepEqual(pages.map((p) => p.ids[0]), ['n0', 'n10', 'n18']);
    assert.deepEqual(pages.map((p) => json(p.res).total_pages), [3, 3, 3]);
    assert.deepEqual(pages.map((p) => json(p.res).count), [N, N, N + 2]);
    const keyset = await walk(`${base}?style=keyset&limit=5&fault=shift:4@2`, 'keyset');
    assert.deepEqual(keyset.flatMap((p) => p.ids), allIds);
    assert.deepEqual(json(await get('style=keyset&limit=5&fault=shift:4@2')).data.map((n) => n.id), ['new0', 'new1', 'new2', 'new3', 'n0']);
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

describe('the notes of the Swift tests (--count 250 --page-size 100 --seed 7)', () => {
  test('the same notes, byte for byte, in every style and at any page size', async () => {
    const server = await startServer(['--count', '250', '--page-size', '100', '--seed', '7', '--quiet']);
    try {
      const contract = await walk(server.url, 'contract');
      assert.deepEqual(contract.map((p) => p.ids.length), [100, 100, 50]);
      const items = contract.map((p) => {
        const body = p.res.body;
        return body.subarray(...arrayAt(body, body.indexOf('[')));
      });
      const all = Buffer.concat([Buffer.from('['), ...items.map((i, n) => Buffer.concat([i.subarray(1, -1), Buffer.from(n < items.length - 1 ? ',' : '')])), Buffer.from(']')]);
      const offset = await request(`${server.url}?style=offset&limit=250`);
      assert.deepEqual(offset.body.subarray(...arrayAt(offset.body, offset.body.indexOf('"results":[') + 10)), all);
      const keyset = await request(`${server.url}?style=keyset&limit=1000`);
      assert.deepEqual(keyset.body.subarray(...arrayAt(keyset.body, keyset.body.indexOf('"data":[') + 7)), all);
      for (const style of ['drf', 'link', 'header', 'page']) {
        const walked = await walk(`${server.url}?style=${style}`, style);
        assert.deepEqual(walked.map((p) => p.notes), contract.map((p) => p.notes), style);
      }
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

// MARK: - Integer ids, JSON:API, and the size cap

const JSONAPI_TYPE = 'application/vnd.api+json';
const withoutId = ({ id, ...rest }) => rest;
/** A JSON:API resource object as the plain note it stands for. */
const plainNote = ({ id, attributes }) => ({ id, ...attributes });

describe('integer ids (--id-kind int)', () => {
  const N = 25;
  const args = ['--count', String(N), '--page-size', '10', '--seed', '7', '--quiet'];
  let server;
  let base;
  let stringNotes; // the notes with string ids, n0..n24
  const get = (query, headers) => request(`${base}?${query}`, { headers });

  before(async () => {
    server = await startServer([...args, '--id-kind', 'int']);
    base = server.url;
    const strings = await startServer(args);
    try {
      stringNotes = (await walk(strings.url, 'contract')).flatMap((p) => p.notes);
    } finally {
      assert.equal((await strings.stop()).code, 0);
    }
    assert.deepEqual(stringNotes.map((n) => n.id), Array.from({ length: N }, (_, i) => `n${i}`));
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  test('every style walks the same integer ids once, rising with gaps; each note is otherwise the one with a string id', async () => {
    let expected = null;
    for (const style of ['contract', 'drf', 'link', 'header', 'offset', 'page', 'keyset', 'jsonapi']) {
      const pages = await walk(`${base}?style=${style}`, style);
      assert.deepEqual(pages.map((p) => p.ids.length), [10, 10, 5], style);
      const notes = pages.flatMap((p) => p.notes).map((n) => (style === 'jsonapi' ? plainNote(n) : n));
      const ids = notes.map((n) => n.id);
      if (style === 'jsonapi') {
        assert.ok(ids.every((id) => typeof id === 'string' && /^[1-9]\d*$/.test(id)), 'JSON:API ids are strings');
        assert.deepEqual(ids, expected.map(String));
      } else {
        assert.ok(ids.every(Number.isSafeInteger), style);
        expected ??= ids;
        assert.deepEqual(ids, expected, style);
        // The id is a bare JSON number on the wire.
        assert.match(pages[0].res.body.toString(), new RegExp(`\\{"id":${ids[0]},"title":`), style);
      }
      assert.deepEqual(notes.map(withoutId), stringNotes.map(withoutId), style);
    }
    assert.equal(expected[0], 1);
    for (let i = 1; i < N; i++) assert.ok(expected[i] > expected[i - 1], `ids rise at ${i}`);
    assert.ok(expected.at(-1) > N, 'some ids are missing');
    assert.ok(expected.some((id, i) => i > 0 && id - expected[i - 1] > 1), 'with gaps');
    // The same seed gives the same ids on another server; another seed, other gaps.
    const again = await startServer([...args, '--id-kind', 'int']);
    const other = await startServer([...args.slice(0, 5), '8', '--id-kind', 'int', '--quiet']);
    try {
      assert.deepEqual((await walk(again.url, 'contract')).flatMap((p) => p.ids), expected);
      assert.notDeepEqual((await walk(other.url, 'contract')).flatMap((p) => p.ids), expected);
    } finally {
      assert.equal((await again.stop()).code, 0);
      assert.equal((await other.stop()).code, 0);
    }
  });

  test('drf is Django REST framework\'s PageNumberPagination: count, page and page_size, next and previous as DRF writes them', async () => {
    const first = await get('style=drf');
    assert.equal(first.headers['content-type'], JSON_TYPE);
    assert.equal(first.headers['x-total-count'], undefined);
    assert.deepEqual(Object.keys(json(first)), ['count', 'next', 'previous', 'results']);
    assert.deepEqual(json(first), { count: N, next: `${base}?page=2&style=drf`, previous: null, results: json(first).results });
    assert.deepEqual(Object.keys(json(first).results[0]), ['id', 'title', 'rank', 'pinned']);
    const second = json(await get('style=drf&page=2'));
    assert.equal(second.next, `${base}?page=3&style=drf`);
    // The previous page of page 2 drops the page number, as DRF's does; the other parameters are sorted.
    assert.equal(second.previous, `${base}?style=drf`);
    const sized = json(await get('style=drf&page_size=4&page=3&fault=delay:1'));
    assert.equal(sized.results.length, 4);
    assert.equal(sized.next, `${base}?fault=delay%3A1&page=4&page_size=4&style=drf`);
    assert.equal(sized.previous, `${base}?fault=delay%3A1&page=2&page_size=4&style=drf`);
    const last = json(await get('style=drf&page=3'));
    assert.deepEqual([last.results.length, last.next, last.previous], [5, null, `${base}?page=2&style=drf`]);
    assert.deepEqual(json(await get('style=drf&page=last')), last);
    // A page number that names no page is 404, as Django REST framework answers it.
    for (const page of ['4', '0', '-1', 'two', '2.0']) {
      const beyond = await get(`style=drf&page=${page}`);
      assert.equal(beyond.status, 404, page);
      assert.equal(beyond.headers['content-type'], JSON_TYPE);
      assert.deepEqual(json(beyond), { detail: 'Invalid page.' });
    }
    assert.equal((await get('style=drf&page=4&fault=503@4')).status, 404);
    // A page size that is not a positive integer is the default; the last value of a parameter counts.
    for (const size of ['0', '-5', 'x']) assert.equal(json(await get(`style=drf&page_size=${size}`)).results.length, 10, size);
    assert.equal(json(await get('style=drf&page=1&page=2')).previous, `${base}?style=drf`);
    // totals= (and --totals) decide the count; the other announcements do not apply to drf.
    assert.deepEqual(Object.keys(json(await get('style=drf&totals=none'))), ['next', 'previous', 'results']);
    assert.deepEqual(Object.keys(json(await get('style=drf&totals=header,link,pages'))), ['next', 'previous', 'results']);
    assert.deepEqual(Object.keys(json(await get('style=drf&totals=count'))), ['count', 'next', 'previous', 'results']);
    const pages = await walk(`${base}?style=drf&totals=none&page_size=7`, 'drf');
    assert.deepEqual(pages.map((p) => p.ids.length), [7, 7, 7, 4]);
    assert.ok(pages.every((p) => !('count' in json(p.res))));
    const bad = await get('style=drf&totals=every');
    assert.equal(bad.status, 400);
    assert.equal(json(bad).error, 'bad-request');
    const flagged = await startServer([...args, '--id-kind', 'int', '--style', 'drf', '--totals', 'none', '--total-lie', '3']);
    try {
      const page1 = json(await request(flagged.url));
      assert.deepEqual(Object.keys(page1), ['next', 'previous', 'results']);
      assert.equal(page1.next, `${flagged.url}?page=2`);
      assert.equal(json(await request(page1.next)).previous, flagged.url);
      assert.equal(json(await request(`${flagged.url}?totals=count`)).count, N + 3);
      // The announced count is off, the pages are not: page 3 is the last.
      assert.equal((await request(`${flagged.url}?page=4`)).status, 404);
    } finally {
      assert.equal((await flagged.stop()).code, 0);
    }
    // With string ids, drf is the cursor style it always was.
    const strings = await startServer(args);
    try {
      const page1 = json(await request(`${strings.url}?style=drf`));
      assert.deepEqual(Object.keys(page1), ['next', 'previous', 'results']);
      assert.match(page1.next, /\?cursor=/);
    } finally {
      assert.equal((await strings.stop()).code, 0);
    }
  });

  test('keyset: starting_after takes the digits of an id; a missing or string id is unknown', async () => {
    const ids = (await walk(`${base}?style=keyset`, 'keyset')).flatMap((p) => p.ids);
    const body = json(await get(`style=keyset&starting_after=${ids[3]}&limit=4`));
    assert.deepEqual(body.data.map((n) => n.id), ids.slice(4, 8));
    assert.equal(body.has_more, true);
    assert.deepEqual(json(await get(`style=keyset&starting_after=${ids.at(-1)}`)), { object: 'list', data: [], has_more: false, url: '/notes' });
    const missing = Array.from({ length: ids.at(-1) }, (_, i) => i + 1).filter((id) => !ids.includes(id));
    assert.ok(missing.length > 0);
    for (const id of [missing[0], ids.at(-1) + 1, 0, `0${ids[1]}`, 'n3', `${ids[1]}.0`, '']) {
      const res = await get(`style=keyset&starting_after=${id}`);
      assert.equal(res.status, 400, String(id));
      assert.deepEqual(json(res), { error: 'unknown-cursor', message: 'no note has this id' });
    }
  });

  test('faults: duplicate-id gives the first integer id; shift inserts notes with ids after the last; @PAGE in drf is the page number', async () => {
    const ids = (await walk(base, 'contract')).flatMap((p) => p.ids);
    const cursor = json(await get('')).next_cursor;
    const duplicated = json(await get(`cursor=${encodeURIComponent(cursor)}&fault=duplicate-id@2`));
    assert.deepEqual(duplicated.notes.map((n) => n.id), [...ids.slice(10, 19), 1]);
    assert.deepEqual(json(await get('style=offset&offset=10&fault=duplicate-id@2')).results.at(-1).id, 1);
    assert.equal(json(await get('style=jsonapi&page[number]=2&fault=duplicate-id@2')).data.at(-1).id, '1');
    const last = ids.at(-1);
    const pages = await walk(`${base}?style=drf&fault=shift:2@2`, 'drf');
    assert.deepEqual(pages.flatMap((p) => p.ids), [...ids.slice(0, 10), ...ids.slice(8)]);
    assert.deepEqual(json(await get('style=drf&page_size=3&fault=shift:2@2')).results.map((n) => n.id), [last + 1, last + 2, 1]);
    assert.deepEqual(json(await get(`style=keyset&limit=2&starting_after=${last + 2}&fault=shift:2@2`)).data.map((n) => n.id), [1, ids[1]]);
    assert.equal((await get('style=drf&page=2&fault=503@2')).status, 503);
    assert.equal((await get('style=drf&page=1&fault=503@2')).status, 200);
    const cycled = json(await get('style=drf&page=3&fault=cycle'));
    assert.equal(cycled.next, `${base}?fault=cycle&page=2&style=drf`);
  });
});

describe('jsonapi style (--count)', () => {
  const N = 25;
  let server;
  let base;
  let contractNotes;
  const get = (query, headers) => request(`${base}?${query}`, { headers });

  before(async () => {
    server = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--quiet']);
    base = server.url;
    contractNotes = (await walk(base, 'contract')).flatMap((p) => p.notes);
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  test('the body of djangorestframework-jsonapi: links, data of resource objects, meta.pagination; its media type', async () => {
    const res = await get('style=jsonapi');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], JSONAPI_TYPE);
    assert.equal(res.headers['x-total-count'], undefined);
    assert.equal(res.headers.link, undefined);
    const body = json(res);
    assert.deepEqual(Object.keys(body), ['links', 'data', 'meta']);
    assert.deepEqual(body.links, {
      first: `${base}?page%5Bnumber%5D=1&style=jsonapi`,
      last: `${base}?page%5Bnumber%5D=3&style=jsonapi`,
      next: `${base}?page%5Bnumber%5D=2&style=jsonapi`,
      prev: null,
    });
    assert.deepEqual(body.meta, { pagination: { page: 1, pages: 3, count: N } });
    assert.equal(body.data.length, 10);
    for (const [i, resource] of body.data.entries()) {
      assert.deepEqual(Object.keys(resource), ['type', 'id', 'attributes']);
      assert.equal(resource.type, 'notes');
      assert.equal(resource.id, `n${i}`);
      assert.deepEqual(plainNote(resource), contractNotes[i]);
    }
    const pages = await walk(`${base}?style=jsonapi`, 'jsonapi');
    assert.deepEqual(pages.map((p) => p.ids.length), [10, 10, 5]);
    assert.deepEqual(pages.flatMap((p) => p.notes).map(plainNote), contractNotes);
    assert.deepEqual(pages.map((p) => json(p.res).meta.pagination.page), [1, 2, 3]);
    assert.deepEqual(json(pages[2].res).links, {
      first: `${base}?page%5Bnumber%5D=1&style=jsonapi`,
      last: `${base}?page%5Bnumber%5D=3&style=jsonapi`,
      next: null,
      prev: `${base}?page%5Bnumber%5D=2&style=jsonapi`,
    });
    // The style by flag: the printed URL is page 1.
    const flagged = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--style', 'jsonapi', '--quiet']);
    try {
      const walked = await walk(flagged.url, 'jsonapi');
      assert.deepEqual(walked.map((p) => json(p.res).links.next), [`${flagged.url}?page%5Bnumber%5D=2`, `${flagged.url}?page%5Bnumber%5D=3`, null]);
      assert.deepEqual(walked.flatMap((p) => p.notes).map(plainNote), contractNotes);
    } finally {
      assert.equal((await flagged.stop()).code, 0);
    }
  });

  test('page[number] and page[size], raw or percent-encoded; links percent-encoded and sorted, as the library writes them', async () => {
    const raw = await get('style=jsonapi&page[number]=2&page[size]=4');
    assert.match(new URL(`${base}?page[number]=2`).search, /\[number\]/, 'the brackets go raw on the wire');
    for (const query of ['style=jsonapi&page%5Bnumber%5D=2&page%5Bsize%5D=4', 'page%5bsize%5d=4&style=jsonapi&page[number]=2']) {
      assert.deepEqual(json(await get(query)), json(raw), query);
    }
    const body = json(raw);
    assert.deepEqual(body.data.map((r) => r.id), ['n4', 'n5', 'n6', 'n7']);
    assert.deepEqual(body.links, {
      first: `${base}?page%5Bnumber%5D=1&page%5Bsize%5D=4&style=jsonapi`,
      last: `${base}?page%5Bnumber%5D=7&page%5Bsize%5D=4&style=jsonapi`,
      next: `${base}?page%5Bnumber%5D=3&page%5Bsize%5D=4&style=jsonapi`,
      prev: `${base}?page%5Bnumber%5D=1&page%5Bsize%5D=4&style=jsonapi`,
    });
    assert.deepEqual(body.meta.pagination, { page: 2, pages: 7, count: N });
    const carried = json(await get('style=jsonapi&page[size]=4&fault=delay:1&compress=none&totals=count,pages,link'));
    assert.equal(carried.links.next, `${base}?compress=none&fault=delay%3A1&page%5Bnumber%5D=2&page%5Bsize%5D=4&style=jsonapi&totals=count%2Cpages%2Clink`);
    for (const size of [1, 7, 25, 100]) {
      const pages = await walk(`${base}?style=jsonapi&page[size]=${size}`, 'jsonapi', {}, 30);
      assert.deepEqual(pages.flatMap((p) => p.ids), contractNotes.map((n) => n.id), `page[size]=${size}`);
    }
    assert.deepEqual(json(await get('style=jsonapi&page[number]=last')), json(await get('style=jsonapi&page[number]=3')));
    // A page number that names no page is 404, as the library answers it; a bad size is the default.
    for (const page of ['4', '0', '-1', 'abc']) {
      const beyond = await get(`style=jsonapi&page[number]=${page}`);
      assert.equal(beyond.status, 404, page);
      assert.equal(beyond.headers['content-type'], JSONAPI_TYPE);
      assert.deepEqual(json(beyond), { errors: [{ detail: 'Invalid page.', status: '404', source: { pointer: '/data' }, code: 'not_found' }] });
    }
    for (const size of ['0', '-3', 'big']) {
      const res = json(await get(`style=jsonapi&page%5Bsize%5D=${size}`));
      assert.equal(res.data.length, 10, size);
      assert.equal(res.links.next, `${base}?page%5Bnumber%5D=2&page%5Bsize%5D=${size}&style=jsonapi`);
    }
    const empty = await startServer(['--count', '0', '--quiet']);
    try {
      const page1 = await request(`${empty.url}?style=jsonapi`);
      assert.equal(page1.status, 200);
      assert.deepEqual(json(page1), {
        links: { first: `${empty.url}?page%5Bnumber%5D=1&style=jsonapi`, last: `${empty.url}?page%5Bnumber%5D=1&style=jsonapi`, next: null, prev: null },
        data: [],
        meta: { pagination: { page: 1, pages: 1, count: 0 } },
      });
      assert.equal((await request(`${empty.url}?style=jsonapi&page[number]=2`)).status, 404);
    } finally {
      assert.equal((await empty.stop()).code, 0);
    }
  });

  test('406 unless Accept admits application/vnd.api+json', async () => {
    for (const accept of ['application/json', 'text/html', '', 'application/json, text/*;q=0.5', 'application/vnd.api+jsonp']) {
      const res = await get('style=jsonapi', { Accept: accept });
      assert.equal(res.status, 406, accept);
      assert.equal(res.headers['content-type'], JSONAPI_TYPE);
      assert.deepEqual(json(res), { errors: [{ detail: 'Could not satisfy the request Accept header.', status: '406', source: { pointer: '/data' }, code: 'not_acceptable' }] });
    }
    for (const accept of [undefined, '*/*', 'application/*', JSONAPI_TYPE, 'text/html, application/vnd.api+json;q=0.9', 'text/html,*/*;q=0.8']) {
      const res = await get('style=jsonapi', accept === undefined ? {} : { Accept: accept });
      assert.equal(res.status, 200, accept);
    }
    // Negotiation comes before the query is checked, and only the jsonapi style negotiates.
    assert.equal((await get('style=jsonapi&foo=1', { Accept: 'application/json' })).status, 406);
    assert.equal((await get('style=page', { Accept: 'text/html' })).status, 200);
    assert.equal((await get('', { Accept: 'text/html', 'X-Notes-Style': 'jsonapi' })).status, 406);
    // The redirect target negotiates too.
    const redirected = await get('style=jsonapi&fault=redirect');
    assert.equal(redirected.status, 302);
    assert.equal((await request(redirected.headers.location, { headers: { Accept: 'application/json' } })).status, 406);
    assert.equal((await request(redirected.headers.location)).status, 200);
  });

  test('400 for query parameters the library refuses; the server\'s own are fine', async () => {
    for (const [query, detail] of [
      ['style=jsonapi&foo=1', 'invalid query parameter: foo'],
      ['style=jsonapi&cursor=abc', 'invalid query parameter: cursor'],
      ['style=jsonapi&page_size=5', 'invalid query parameter: page_size'],
      ['style=jsonapi&per_page=5', 'invalid query parameter: per_page'],
      ['style=jsonapi&limit=5&offset=0', 'invalid query parameter: limit'],
      ['style=jsonapi&page[size]=2&page%5Bsize%5D=3', 'repeated query parameter not allowed: page[size]'],
      ['style=jsonapi&totals=every', "totals= takes a comma-separated list of count, header, link, pages, or none; not 'every'"],
    ]) {
      const res = await get(query);
      assert.equal(res.status, 400, query);
      assert.equal(res.headers['content-type'], JSONAPI_TYPE);
      assert.deepEqual(json(res), { errors: [{ detail, status: '400', source: { pointer: '/data' }, code: 'invalid' }] }, query);
    }
    for (const query of ['style=jsonapi&fault=delay:1&fault=delay:2&totals=count&compress=gzip', 'style=jsonapi&sort=-id&include=x&fields[notes]=title&filter[a]=1&filter[a]=2']) {
      assert.equal((await get(query)).status, 200, query);
    }
    // The server's own errors keep their form.
    const style = await get('style=jsonapi&fault=explode');
    assert.equal(style.status, 400);
    assert.equal(json(style).error, 'bad-request');
  });

  test('totals: meta.pagination.count, .pages and links.last, each by its name', async () => {
    const of = async (query) => json(await get(`style=jsonapi&${query}`));
    const none = await of('totals=none');
    assert.deepEqual(Object.keys(none.links), ['first', 'next', 'prev']);
    assert.deepEqual(none.meta, { pagination: { page: 1 } });
    assert.deepEqual((await of('totals=count')).meta.pagination, { page: 1, count: N });
    assert.deepEqual((await of('totals=pages')).meta.pagination, { page: 1, pages: 3 });
    assert.deepEqual(Object.keys((await of('totals=link')).links), ['first', 'last', 'next', 'prev']);
    assert.deepEqual((await of('totals=header')).meta.pagination, { page: 1 });
    const pages = await walk(`${base}?style=jsonapi&totals=none`, 'jsonapi');
    assert.deepEqual(pages.flatMap((p) => p.ids), contractNotes.map((n) => n.id));
    const lying = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--total-lie', '10', '--quiet']);
    try {
      const body = json(await request(`${lying.url}?style=jsonapi`));
      assert.deepEqual(body.meta.pagination, { page: 1, pages: 4, count: N + 10 });
      assert.equal(body.links.last, `${lying.url}?page%5Bnumber%5D=4&style=jsonapi`);
      assert.equal((await walk(`${lying.url}?style=jsonapi`, 'jsonapi')).length, 3);
      // A client that believes the announced pages asks for a page that is not there.
      assert.equal((await request(body.links.last)).status, 404);
    } finally {
      assert.equal((await lying.stop()).code, 0);
    }
  });

  test('faults: @PAGE is page[number]; duplicate-id, huge-title, deep, cycle, shift and truncate', async () => {
    assert.equal((await get('style=jsonapi&page[number]=2&fault=503@2')).status, 503);
    assert.equal((await get('style=jsonapi&page[number]=2&page[size]=3&fault=503@2')).status, 503);
    assert.equal((await get('style=jsonapi&fault=503@2')).status, 200);
    const second = json(await get('style=jsonapi&page[number]=2&fault=duplicate-id@2,huge-title:9@2,deep:2@2'));
    assert.deepEqual(second.data.map((r) => r.id), [...contractNotes.slice(10, 19).map((n) => n.id), 'n0']);
    assert.equal(second.data[0].attributes.title, 'huge titl');
    assert.deepEqual(second.data[0].deep, [[]]);
    const cycled = json(await get('style=jsonapi&page[number]=3&fault=cycle'));
    assert.equal(cycled.links.next, cycled.links.prev);
    const pages = await walk(`${base}?style=jsonapi&fault=shift:2@2`, 'jsonapi');
    assert.deepEqual(pages.flatMap((p) => p.ids), [...contractNotes.slice(0, 10), ...contractNotes.slice(8)].map((n) => n.id));
    assert.deepEqual(json(await get('style=jsonapi&page[size]=3&fault=shift:2@2')).data.map((r) => r.id), ['new0', 'new1', 'n0']);
    const full = (await get('style=jsonapi&page[number]=2&fault=truncate@3')).body;
    const { head, body } = await rawGet(`${base}?style=jsonapi&page[number]=2&fault=truncate@2`);
    assert.match(head, new RegExp(`\r\ncontent-length: ${full.length}\r\n`, 'i'));
    assert.equal(body.length, Math.floor(full.length / 2));
  });

  test('needs generated notes: a directory refuses it', async () => {
    const fixture = makeNotesDir();
    const dirServer = await startServer(['--dir', fixture.dir, '--quiet']);
    try {
      const res = await request(`${dirServer.url}?style=jsonapi`);
      assert.equal(res.status, 400);
      assert.deepEqual(json(res), { error: 'bad-request', message: "style 'jsonapi' pages through generated notes: it needs --count, not --dir" });
    } finally {
      assert.equal((await dirServer.stop()).code, 0);
      rmSync(fixture.dir, { recursive: true });
    }
  });
});

describe('the size cap (--max-limit) in the offset, page, drf and jsonapi styles, with and without totals', () => {
  const N = 25;
  const CAP = 8;
  // Each style's size parameter, the page of a request, and how its next link names the size: the offset
  // and page styles repeat the size served, drf and jsonapi the request's (as Django REST framework does).
  const STYLES = {
    offset: { size: 'limit', next: (base, totals) => `${base}?offset=${CAP}&limit=${CAP}&style=offset${totals}` },
    page: { size: 'per_page', next: (base, totals) => `${base}?page=2&per_page=${CAP}&style=page${totals}` },
    drf: { size: 'page_size', next: (base, totals) => `${base}?page=2&page_size=20&style=drf${totals}` },
    jsonapi: { size: 'page%5Bsize%5D', next: (base, totals) => `${base}?page%5Bnumber%5D=2&page%5Bsize%5D=20&style=jsonapi${totals}` },
    keyset: { size: 'limit', next: null },
  };
  const notesOf = (style, body) => (style === 'keyset' || style === 'jsonapi' ? body.data : body.results);
  const nextOf = (style, body) => (style === 'jsonapi' ? body.links.next : body.next);
  let capped;
  let silent;

  before(async () => {
    const args = ['--count', String(N), '--page-size', '5', '--seed', '7', '--max-limit', String(CAP), '--id-kind', 'int', '--quiet'];
    [capped, silent] = await Promise.all([startServer(args), startServer([...args, '--totals', 'none'])]);
  });
  after(async () => {
    assert.equal((await capped.stop()).code, 0);
    assert.equal((await silent.stop()).code, 0);
  });

  for (const [label, server, totalsQuery] of [['totals announced', () => capped, ''], ['totals=none', () => capped, '&totals=none'], ['--totals none', () => silent, '']]) {
    test(`a larger size is served as the cap, silently; next and totals stay true (${label})`, async () => {
      const { url } = server();
      const announced = label === 'totals announced';
      const ids = (await walk(`${url}?style=contract`, 'contract')).flatMap((p) => p.ids);
      for (const [style, { size, next }] of Object.entries(STYLES)) {
        const res = await request(`${url}?style=${style}&${size}=20${totalsQuery}`);
        assert.equal(res.status, 200, style);
        const body = json(res);
        assert.deepEqual(notesOf(style, body).map((n) => (style === 'jsonapi' ? Number(n.id) : n.id)), ids.slice(0, CAP), style);
        if (next) assert.equal(nextOf(style, body), next(url, totalsQuery), style);
        if (style === 'offset' || style === 'page' || style === 'drf') assert.equal(body.count, announced ? N : undefined, style);
        if (style === 'offset' || style === 'page') assert.equal(res.headers['x-total-count'], announced ? String(N) : undefined, style);
        if (style === 'page') {
          assert.equal(body.total_pages, announced ? 4 : undefined);
          assert.equal(/rel="last"/.test(res.headers.link), announced);
        }
        if (style === 'jsonapi') {
          assert.deepEqual(body.meta.pagination, announced ? { page: 1, pages: 4, count: N } : { page: 1 });
          assert.equal(body.links.last, announced ? `${url}?page%5Bnumber%5D=4&page%5Bsize%5D=20&style=jsonapi` : undefined);
        }
        // Following the links reaches every note once, in pages of the cap.
        const pages = await walk(`${url}?style=${style}&${size}=20${totalsQuery}`, style);
        assert.deepEqual(pages.map((p) => p.ids.length), [8, 8, 8, 1], style);
        assert.deepEqual(pages.flatMap((p) => p.ids).map(Number), ids, style);
      }
      // A size within the cap is served as asked, and no size means --page-size.
      assert.equal(json(await request(`${url}?style=jsonapi&page[size]=${CAP}${totalsQuery}`)).data.length, CAP);
      assert.equal(json(await request(`${url}?style=drf&page_size=3${totalsQuery}`)).results.length, 3);
      assert.equal(json(await request(`${url}?style=drf${totalsQuery}`)).results.length, 5);
    });
  }
});

// MARK: - Real servers: compression, bombs, stalls, rate limits, connections, HTTPS

const INFLATE = { gzip: zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync };

/** The log lines of requests (all but the start-up line). */
const requestLines = (stderr) => stderr.trimEnd().split('\n').slice(1);

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

describe('connections and arrival times in the log', () => {
  test('keep-alive: one connection (one c=) per lane; t= grows with the time between requests', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10']);
    const lanes = [new http.Agent({ keepAlive: true, maxSockets: 1 }), new http.Agent({ keepAlive: true, maxSockets: 1 })];
    let stderr;
    try {
      await Promise.all(lanes.map(async (agent, lane) => {
        let url = `${server.url}?lane=${lane}`;
        for (let i = 0; i < 3; i++) {
          const res = await request(url, { agent });
          url = pageUrl(`${server.url}?lane=${lane}`, json(res).next_cursor);
        }
      }));
      await request(`${server.url}?at=1`);
      await sleep(300);
      await request(`${server.url}?at=2`);
    } finally {
      lanes.forEach((agent) => agent.destroy());
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      stderr = stopped.stderr;
    }
    const lines = requestLines(stderr);
    for (const lane of [0, 1]) {
      const connections = new Set(lines.filter((line) => line.includes(`lane=${lane}`)).map(connectionOf));
      assert.equal(connections.size, 1, `lane ${lane}: ${[...connections]}`);
    }
    assert.deepEqual(new Set(lines.slice(0, 6).map(connectionOf)), new Set([1, 2]));
    const [at1, at2] = ['at=1', 'at=2'].map((tag) => lines.find((line) => line.includes(tag)));
    assert.equal(connectionOf(at2), connectionOf(at1) + 1);
    assert.ok(arrival(at2) - arrival(at1) >= 250, `${at1}\n${at2}`);
  });

  test('reset@2x1: the reset request is logged (status -) on the old connection, its retry on a new one', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--fault', 'reset@2x1']);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let stderr;
    let page2;
    try {
      const page1 = await request(server.url, { agent });
      page2 = pageUrl(server.url, json(page1).next_cursor);
      await assert.rejects(request(page2, { agent }), { code: 'ECONNRESET' });
      assert.equal((await request(page2, { agent })).status, 200);
    } finally {
      agent.destroy();
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      stderr = stopped.stderr;
    }
    const lines = requestLines(stderr);
    const target = new URL(page2).search;
    const page2Lines = lines.filter((line) => line.startsWith(`GET /notes${target} `));
    assert.equal(page2Lines.length, 2, lines.join('\n'));
    assert.match(page2Lines[0], /^GET \S+ - 0B \d+\.\dms fault=reset@2x1 c=1 t=\d+$/);
    assert.match(page2Lines[1], /^GET \S+ 200 \d+B \d+\.\dms c=2 t=\d+$/);
    assert.equal(connectionOf(lines[0]), 1);
  });
});

// MARK: - HTTPS

const OPENSSL = spawnSync('openssl', ['version'], { encoding: 'utf8' });
const HAS_OPENSSL = OPENSSL.status === 0;

/** Runs openssl with `args` in `cwd`; throws with its stderr when it fails. */
function openssl(args, cwd) {
  const result = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${result.stderr || result.error}`);
}

/**
 * A throwaway CA (ca.pem) and, signed by it, a certificate for each name: `NAME.pem` and `NAME.key`,
 * with the subjectAltName `sans` (e.g. DNS:localhost,IP:127.0.0.1). EC P-256 keys, valid for 2 days.
 */
function makeCertificates(dir, certificates) {
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(['req', '-x509', ...ecKey, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=notes-server test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  certificates.forEach(([name, sans], i) => {
    writeFileSync(path.join(dir, `${name}.ext`),
      `subjectAltName=${sans}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`);
    openssl(['req', ...ecKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost'], dir);
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', String(i + 2), '-days', '2',
      '-out', `${name}.pem`, '-extfile', `${name}.ext`], dir);
  });
}

describe('HTTPS (--tls-cert, --tls-key, --url-host)', { skip: HAS_OPENSSL ? false : 'openssl is not installed: no test certificate can be made' }, () => {
  let dir;
  let ca;
  const file = (name) => path.join(dir, name);

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'notes-server-tls-'));
    makeCertificates(dir, [['both', 'DNS:localhost,IP:127.0.0.1'], ['localhost', 'DNS:localhost']]);
    ca = readFileSync(file('ca.pem'));
  });
  after(() => rmSync(dir, { recursive: true }));

  test('a page and the redirect target over HTTPS, trusted through the CA; reset; the log', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--style', 'drf', '--tls-cert', file('both.pem'), '--tls-key', file('both.key')]);
    let stderr;
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+\/notes$/);
      const page = await request(server.url, { ca });
      assert.equal(page.status, 200);
      assert.deepEqual(json(page).results.map((note) => note.id), Array.from({ length: 10 }, (_, i) => `n${i}`));
      assert.match(json(page).next, /^https:\/\/127\.0\.0\.1:\d+\/notes\?cursor=/);
      const redirect = await request(`${server.url}?fault=redirect`, { ca });
      assert.equal(redirect.status, 302);
      assert.match(redirect.headers.location, /^https:\/\/127\.0\.0\.1:\d+\/notes\?fault=redirect$/);
      const target = await request(redirect.headers.location, { ca });
      assert.equal(target.status, 200);
      assert.deepEqual(json(target).results, json(page).results);
      assert.match(json(target).next, /^https:\/\/127\.0\.0\.1:\d+\/notes\?cursor=/);
      // Without the CA the certificate is not trusted; plain HTTP gets no page.
      await assert.rejects(request(server.url), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      await assert.rejects(request(server.url.replace('https:', 'http:')));
      // A reset is a TCP reset under TLS too.
      await assert.rejects(request(`${server.url}?fault=reset`, { ca }), { code: 'ECONNRESET' });
      // Compression and the other faults work the same.
      const gzip = await request(`${server.url}?compress=gzip`, { ca, headers: { 'Accept-Encoding': 'gzip' } });
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.deepEqual(JSON.parse(zlib.gunzipSync(gzip.body)).results, json(page).results);
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      stderr = stopped.stderr;
    }
    const lines = stderr.trimEnd().split('\n');
    assert.match(lines[0], /redirect target https:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(lines.some((line) => /^\[redirect target\] GET \/notes\?fault=redirect 200 \d+B \d+\.\dms c=\d+ t=\d+$/.test(line)), stderr);
    assert.ok(lines.some((line) => /^GET \/notes\?fault=reset - 0B \d+\.\dms fault=reset c=\d+ t=\d+$/.test(line)), stderr);
  });

  test('--url-host localhost: URLs name localhost; a certificate for localhost only fails at 127.0.0.1', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--quiet', '--url-host', 'localhost',
      '--tls-cert', file('localhost.pem'), '--tls-key', file('localhost.key')]);
    try {
      assert.match(server.url, /^https:\/\/localhost:\d+\/notes$/);
      const page = await request(`${server.url}?style=drf`, { ca, family: 4 });
      assert.equal(page.status, 200);
      assert.match(json(page).next, /^https:\/\/localhost:\d+\/notes\?cursor=.*&style=drf$/);
      const redirect = await request(`${server.url}?fault=redirect:307`, { ca, family: 4 });
      assert.match(redirect.headers.location, /^https:\/\/localhost:\d+\//);
      assert.equal((await request(redirect.headers.location, { ca, family: 4 })).status, 200);
      await assert.rejects(request(server.url.replace('localhost', '127.0.0.1'), { ca }), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
    // --url-host names plain HTTP URLs too.
    const plain = await startServer(['--count', '5', '--quiet', '--url-host', 'localhost']);
    assert.match(plain.url, /^http:\/\/localhost:\d+\/notes$/);
    assert.equal((await request(plain.url, { family: 4 })).status, 200);
    assert.equal((await plain.stop()).code, 0);
  });

  test('--http2: pages over HTTP/2 (ALPN h2) and still over HTTP/1.1; the log marks h2; exit 64 without TLS', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--http2', '--tls-cert', file('both.pem'), '--tls-key', file('both.key')]);
    let stderr;
    try {
      const session = http2.connect(server.url, { ca });
      try {
        const page = await new Promise((resolve, reject) => {
          const stream = session.request({ ':path': '/notes' });
          const chunks = [];
          let head;
          stream.on('response', (headers) => { head = headers; });
          stream.on('data', (chunk) => chunks.push(chunk));
          stream.on('end', () => resolve({ head, body: Buffer.concat(chunks) }));
          stream.on('error', reject);
        });
        assert.equal(session.alpnProtocol, 'h2');
        assert.equal(page.head[':status'], 200);
        assert.deepEqual(JSON.parse(page.body).notes.map((note) => note.id).length, 10);
      } finally {
        session.close();
      }
      const overHTTP1 = await request(server.url, { ca });
      assert.equal(overHTTP1.status, 200);
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      stderr = stopped.stderr;
    }
    const gets = stderr.trimEnd().split('\n').filter((line) => line.startsWith('GET /notes '));
    assert.equal(gets.length, 2, stderr);
    assert.match(gets[0], / h2$/);
    assert.doesNotMatch(gets[1], / h2$/);
    const plain = await runServer(['--count', '5', '--http2']);
    assert.equal(plain.code, 64);
    assert.match(plain.stderr, /^Error: --http2 needs --tls-cert and --tls-key/);
  });

  test('exit 64 for only one of the two, 66 for an unreadable file, 65 for a file that is no PEM or a key of another certificate', async () => {
    const cases = [
      [['--tls-cert', file('both.pem')], 64],
      [['--tls-key', file('both.key')], 64],
      [['--tls-cert', file('absent.pem'), '--tls-key', file('both.key')], 66],
      [['--tls-cert', file('both.pem'), '--tls-key', file('absent.key')], 66],
      [['--tls-cert', file('both.ext'), '--tls-key', file('both.key')], 65],
      [['--tls-cert', file('both.pem'), '--tls-key', file('localhost.key')], 65],
    ];
    for (const [args, code] of cases) {
      const result = await runServer(['--count', '5', ...args]);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^Error: .+\n$/);
    }
  });
});

describe('notes that change (--updates)', () => {
  const args = ['--count', '25', '--page-size', '10', '--seed', '7', '--updates'];
  const EPOCH = Date.UTC(2026, 10, 30, 8, 0, 0);
  const minute = (i) => new Date(EPOCH + i * 60_000).toISOString().replace('.000Z', 'Z');
  const post = (url, target) => request(url.replace(/\/notes$/, target), { method: 'POST' });
  const walkIds = (pages) => pages.flatMap((page) => page.ids);
  const CURSOR_STYLES = ['contract', 'drf', 'link', 'header'];

  test('without --updates nothing changes: since is ignored, /admin/ is a path like any other (404)', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--seed', '7', '--quiet']);
    try {
      const plain = await request(server.url);
      const since = await request(`${server.url}?since=2026-11-30T08:05:00Z`);
      assert.deepEqual(since.body, plain.body);
      assert.ok(!plain.body.includes('updated_at'));
      assert.equal((await request(`${server.url}?since=yesterday`)).status, 200);
      const admin = await post(server.url, '/admin/touch?count=1');
      assert.equal(admin.status, 404);
      assert.match(json(admin).message, /^no such path; pages are at \/notes/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('every note has updated_at, a minute apart by position; otherwise the notes of --count, in every cursor style', async () => {
    const servers = await Promise.all([startServer([...args, '--quiet']), startServer([...args.slice(0, -1), '--quiet'])]);
    try {
      const [updating, plain] = servers;
      const expected = walkIds(await walk(plain.url, 'contract'));
      const plainNotes = (await walk(plain.url, 'contract')).flatMap((page) => page.notes);
      for (const style of CURSOR_STYLES) {
        const pages = await walk(updating.url, style, { 'X-Notes-Style': style });
        assert.deepEqual(pages.map((page) => page.ids.length), [10, 10, 5], style);
        const notes = pages.flatMap((page) => page.notes);
        assert.deepEqual(notes.map((note) => note.id), expected, style);
        assert.deepEqual(notes.map((note) => note.updated_at), expected.map((_, i) => minute(i)), style);
        assert.deepEqual(notes.map(({ updated_at: _, ...rest }) => rest), plainNotes, style);
        for (const note of notes) assert.equal(Object.keys(note).at(-1), 'updated_at');
      }
      // The same cursors as --count's, and the same bytes with updated_at before each note's end.
      const [first, firstPlain] = await Promise.all([request(updating.url), request(plain.url)]);
      assert.equal(json(first).next_cursor, json(firstPlain).next_cursor);
      assert.equal(first.body.toString().replace(/,"updated_at":"[^"]*"/g, ''), firstPlain.body.toString());
    } finally {
      for (const server of servers) assert.equal((await server.stop()).code, 0);
    }
  });

  test('since=T keeps the notes updated at or after T on every page, cursors and next URLs included, in every cursor style', async () => {
    const server = await startServer([...args, '--quiet']);
    try {
      for (const style of CURSOR_STYLES) {
        // Notes n3 … n24: 22 notes, three pages of the filtered list.
        for (const since of ['2026-11-30T08:03:00Z', '2026-11-30T08:02:00.001Z', '2026-11-30t09:03:00%2B01:00', '2026-11-30T03:03:00-05:00']) {
          const pages = await walk(`${server.url}?since=${since}`, style, { 'X-Notes-Style': style });
          assert.deepEqual(pages.map((page) => page.ids.length), [10, 10, 2], `${style} ${since}`);
          assert.deepEqual(walkIds(pages), Array.from({ length: 22 }, (_, i) => `n${i + 3}`), `${style} ${since}`);
        }
        const inclusive = await walk(`${server.url}?since=${minute(24)}`, style, { 'X-Notes-Style': style });
        assert.deepEqual(walkIds(inclusive), ['n24'], style);
        const none = await walk(`${server.url}?since=2027-01-01T00:00:00Z`, style, { 'X-Notes-Style': style });
        assert.deepEqual(none.map((page) => page.ids), [[]], style);
        const all = await walk(`${server.url}?since=2000-01-01T00:00:00Z`, style, { 'X-Notes-Style': style });
        assert.equal(walkIds(all).length, 25, style);
      }
      // drf and link carry since in their next URLs; a cursor past the filtered list's last page is an empty page.
      const drf = json(await request(`${server.url}?style=drf&since=${minute(3)}`));
      assert.equal(new URL(drf.next).searchParams.get('since'), minute(3));
      const link = await request(`${server.url}?style=link&since=${minute(3)}`);
      assert.equal(new URL(nextLink(link.headers.link)).searchParams.get('since'), minute(3));
      const lastCursor = json(await request(pageUrl(server.url, json(await request(server.url)).next_cursor))).next_cursor;
      const past = await request(pageUrl(server.url, lastCursor, `since=${minute(20)}`));
      assert.equal(past.body.toString(), '{"notes":[],"next_cursor":null}');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('a since that is no RFC 3339 date-time is a 422 JSON error (a raw + included); two are a 400', async () => {
    const server = await startServer([...args, '--quiet']);
    try {
      for (const since of ['yesterday', '2026-11-30', '2026-11-30T08:00:00', '2026-11-30T09:00:00+01:00', '2026-02-30T08:00:00Z', '', '1796025600']) {
        for (const extra of ['', `&cursor=${encodeURIComponent(json(await request(server.url)).next_cursor)}`, '&style=link']) {
          const res = await request(`${server.url}?since=${since}${extra}`);
          assert.equal(res.status, 422, `${since}${extra}`);
          assert.equal(res.headers['content-type'], JSON_TYPE);
          assert.equal(json(res).error, 'invalid-since');
          assert.match(json(res).message, /^since must be an RFC 3339 date-time/);
        }
      }
      const twice = await request(`${server.url}?since=${minute(1)}&since=${minute(2)}`);
      assert.equal(twice.status, 400);
      assert.deepEqual(json(twice), { error: 'bad-request', message: 'more than one since' });
      // The list styles are not served: their pages are places in a list that changes.
      const offset = await request(`${server.url}?style=offset`);
      assert.equal(offset.status, 400);
      assert.match(json(offset).message, /--updates serves the cursor styles \(contract, drf, link, header\), not offset/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('POST /admin/touch and /admin/add change the notes at once: a walk since the newest before gets exactly them', async () => {
    const server = await startServer(args);
    let stderr;
    try {
      const touched = await post(server.url, '/admin/touch?count=3');
      assert.equal(touched.status, 200);
      assert.equal(touched.headers['content-type'], JSON_TYPE);
      const edits = json(touched);
      assert.deepEqual(Object.keys(edits), ['touched', 'count', 'newest']);
      assert.equal(edits.touched.length, 3);
      assert.deepEqual(edits.touched.map((note) => note.updated_at), [minute(25), minute(26), minute(27)]);
      for (const note of edits.touched) assert.match(note.title, /^Edit 1: /);
      assert.deepEqual([edits.count, edits.newest], [25, minute(27)]);

      const added = json(await post(server.url, '/admin/add?count=2'));
      assert.deepEqual(added.added.map((note) => [note.id, note.title, note.updated_at]),
        [['new0', 'New note 0', minute(28)], ['new1', 'New note 1', minute(29)]]);
      assert.deepEqual([added.count, added.newest], [27, minute(29)]);
      const byId = json(await post(server.url, '/admin/touch?id=n0&id=new0'));
      assert.deepEqual(byId.touched.map((note) => [note.id, note.updated_at]), [['n0', minute(30)], ['new0', minute(31)]]);

      for (const style of CURSOR_STYLES) {
        const all = (await walk(server.url, style, { 'X-Notes-Style': style })).flatMap((page) => page.notes);
        assert.equal(all.length, 27, style);
        assert.deepEqual(all.map((note) => note.updated_at), [...all.map((note) => note.updated_at)].sort(), style);
        // Served as the answers showed them, in updated_at order.
        const changed = [...edits.touched.filter((note) => note.id !== 'n0'), added.added[1], ...byId.touched];
        assert.deepEqual(all.slice(-changed.length).map((note) => note.id), changed.map((note) => note.id), style);
        assert.deepEqual(all.slice(-changed.length), changed, style);
        // The sync's next run asks from the newest it had seen (since is inclusive): that note and the changes.
        const since = await walk(`${server.url}?since=${minute(24)}`, style, { 'X-Notes-Style': style });
        const sinceIds = walkIds(since);
        const n24 = edits.touched.some((note) => note.id === 'n24') ? [] : ['n24'];
        assert.deepEqual(sinceIds, [...n24, ...changed.map((note) => note.id)], style);
      }
      // The Notion-style query serves the same notes in the same order.
      const notion = await request(server.url.replace(/\/notes$/, '/v1/databases/notes/query'), { method: 'POST' });
      assert.equal(json(notion).results.length, 27);
      assert.equal(json(notion).results.at(-1).id, 'new0');

      for (const [method, target, status, message] of [
        ['GET', '/admin/touch', 405, /^only POST$/], ['POST', '/admin/delete', 404, /^no such path; POST \/admin\/touch and POST \/admin\/add/],
        ['POST', '/admin/touch?count=many', 400, /^count must be an integer/], ['POST', '/admin/touch?id=n99', 400, /^no note has the id 'n99'$/],
        ['POST', '/admin/add?id=n1', 400, /count only/],
      ]) {
        const res = await request(server.url.replace(/\/notes$/, target), { method });
        assert.equal(res.status, status, target);
        assert.match(json(res).message, message, target);
      }
      const zero = json(await post(server.url, '/admin/add?count=0'));
      assert.deepEqual(zero, { added: [], count: 27, newest: minute(31) });
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      stderr = stopped.stderr;
    }
    const lines = stderr.trimEnd().split('\n');
    assert.match(lines[0], /^notes-server: 25 generated notes \(page size 10, seed 7, with updates\), 3 pages, /);
    assert.match(lines.find((line) => line.startsWith('POST /admin/touch?count=3 ')), /^POST \/admin\/touch\?count=3 200 \d+B \d+\.\dms c=\d+ t=\d+$/);
    assert.ok(lines.some((line) => line.startsWith(`GET /notes?since=${minute(24)} 200 `)), stderr);
  });

  test('the same seed touches the same notes; the redirect target serves the changed notes, its admin is a 404', async () => {
    const servers = await Promise.all([startServer([...args, '--quiet', '--fault', 'redirect']), startServer([...args, '--quiet'])]);
    try {
      const [a, b] = await Promise.all(servers.map(async (server) => json(await post(server.url, '/admin/touch?count=4'))));
      assert.deepEqual(a, b);
      const redirected = await request(`${servers[0].url}?since=${minute(25)}`);
      assert.equal(redirected.status, 302);
      const target = await request(redirected.headers.location);
      assert.deepEqual(json(target).notes, a.touched);
      const admin = await request(new URL('/admin/touch', redirected.headers.location), { method: 'POST' });
      assert.equal(admin.status, 404);
    } finally {
      for (const server of servers) assert.equal((await server.stop()).code, 0);
    }
  });

  test('faults act on the filtered pages: @PAGE is the page of the walk with since', async () => {
    const server = await startServer([...args, '--quiet', '--fault', '503@2x1']);
    try {
      const first = await request(`${server.url}?since=${minute(3)}`);
      assert.equal(first.status, 200);
      const second = pageUrl(server.url, json(first).next_cursor, `since=${minute(3)}`);
      assert.equal((await request(second)).status, 503);
      const retried = await request(second);
      assert.equal(retried.status, 200);
      assert.deepEqual(json(retried).notes.map((note) => note.id), Array.from({ length: 10 }, (_, i) => `n${i + 13}`));
      const duplicate = await request(pageUrl(server.url, json(first).next_cursor, `since=${minute(3)}&fault=duplicate-id`));
      assert.equal(json(duplicate).notes.at(-1).id, 'n3', 'the first note of the walk with since');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

// MARK: - The styles of real servers

/** A DynamoDB Scan of `body` (an object, or raw text) POSTed to `url`, with the headers the AWS SDKs send. */
function scan(url, body, headers = {}) {
  return request(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.Scan', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * Walks a real server's style from `url` by the style's own signal, as its clients do, and returns each
 * response with its body, notes and ids (Eve's `_id`):
 *   next-page     the Next-Page header (Kinto)
 *   ogc           the href of the link with rel "next" (pygeoapi)
 *   x-pagination  X-Pagination's next_page, set as page= (flask-smorest)
 *   page-echo     current_page + 1 while below total_pages (Litestar)
 *   offset-echo   offset + limit while below total (Litestar)
 *   eve           _links.next.href, relative to the API root (Eve)
 *   dynamodb      the same POST with ExclusiveStartKey = LastEvaluatedKey while there is one, Limit `limit`
 */
async function walkReal(url, style, { limit = null, maxPages = 60, headers = {} } = {}) {
  const pages = [];
  let next = url;
  let startKey = null;
  while (next !== null) {
    assert.ok(pages.length < maxPages, 'the walk does not end');
    const res = style === 'dynamodb'
      ? await scan(next, { TableName: 'notes', ...(limit === null ? {} : { Limit: limit }), ...(startKey === null ? {} : { ExclusiveStartKey: startKey }) }, headers)
      : await request(next, { headers });
    assert.equal(res.status, 200, `${next}: ${res.body}`);
    const body = json(res);
    const at = new URL(next);
    let notes;
    switch (style) {
      case 'next-page':
        notes = body.data;
        next = res.headers['next-page'] ?? null;
        break;
      case 'ogc':
        notes = body.features;
        next = body.links.find((link) => link.rel === 'next')?.href ?? null;
        break;
      case 'x-pagination': {
        notes = body;
        const meta = JSON.parse(res.headers['x-pagination']);
        at.searchParams.set('page', String(meta.next_page));
        next = meta.next_page === undefined ? null : at.href;
        break;
      }
      case 'page-echo':
        notes = body.items;
        at.searchParams.set('current_page', String(body.current_page + 1));
        next = body.current_page < body.total_pages ? at.href : null;
        break;
      case 'offset-echo':
        notes = body.items;
        at.searchParams.set('offset', String(body.offset + body.limit));
        next = body.offset + body.limit < body.total ? at.href : null;
        break;
      case 'eve':
        notes = body._items;
        next = body._links.next ? new URL(body._links.next.href, `${at.origin}/`).href : null;
        break;
      case 'dynamodb':
        notes = body.Items;
        startKey = body.LastEvaluatedKey ?? null;
        if (startKey === null) next = null;
        break;
      default:
        throw new Error(`not a real server's style: ${style}`);
    }
    pages.push({ res, body, notes, ids: notes.map((note) => (style === 'eve' ? note._id : note.id)) });
  }
  return pages;
}

const REAL_STYLES = ['next-page', 'ogc', 'x-pagination', 'page-echo', 'offset-echo', 'eve', 'dynamodb'];

describe('the styles of real servers (--count)', () => {
  const N = 25;
  const allIds = Array.from({ length: N }, (_, i) => `n${i}`);
  let server;
  let base;
  const rawNotes = new Map(); // id -> the note's bytes, from the contract pages
  // Where each style's notes are in its body (null: the body is the array), and its page size parameter.
  const KEYS = { 'next-page': 'data', ogc: 'features', 'x-pagination': null, 'page-echo': 'items', 'offset-echo': 'items', eve: '_items', dynamodb: 'Items' };
  const LIMITS = { 'next-page': '_limit', ogc: 'limit', 'x-pagination': 'page_size', 'page-echo': 'page_size', 'offset-echo': 'limit', eve: 'max_results' };
  const get = (query, headers) => request(`${base}?${query}`, { headers });

  /** The notes array of a response body under `key` (the whole body for null), as its notes' bytes. */
  function notesBytes(body, key) {
    const start = key === null ? 0 : body.indexOf(`"${key}":[`) + key.length + 3;
    const items = body.subarray(...arrayAt(body, start));
    return scanNotes(items, key === '_items' ? '_id' : 'id').map((note) => items.subarray(note.start, note.end).toString());
  }
  /** The bytes of note `id` in a style: as in contract style, with `_id` for `id` in Eve's. */
  const noteIn = (style, id) => (style === 'eve' ? rawNotes.get(id).replace('{"id":', '{"_id":') : rawNotes.get(id));

  before(async () => {
    server = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--quiet']);
    base = server.url;
    for (const page of await walk(base, 'contract')) for (const note of page.notes) rawNotes.set(note.id, JSON.stringify(note));
    // The contract bytes, not re-serialized: the notes as the server wrote them.
    for (const page of await walk(base, 'contract')) {
      for (const note of notesBytes(page.res.body, 'notes')) rawNotes.set(JSON.parse(note).id, note);
    }
    assert.deepEqual([...rawNotes.keys()], allIds);
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
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

describe('notes without titles (--no-titles)', () => {
  test('every style serves the notes without their title member, otherwise byte for byte the same', async () => {
    const args = ['--count', '12', '--page-size', '5', '--seed', '7', '--quiet'];
    const [titled, bare] = await Promise.all([startServer(args), startServer([...args, '--no-titles'])]);
    try {
      const strip = (text) => text.replace(/"title":"(?:[^"\\]|\\.)*",/g, '');
      for (const style of ['contract', 'drf', 'link', 'header', 'offset', 'page', 'keyset', 'jsonapi']) {
        const [with_, without] = await Promise.all([walk(`${titled.url}?style=${style}`, style), walk(`${bare.url}?style=${style}`, style)]);
        assert.deepEqual(without.flatMap((p) => p.ids), with_.flatMap((p) => p.ids), style);
        assert.ok(without.every((p) => p.notes.every((note) => !('title' in note) && !('title' in (note.attributes ?? {})))), style);
        // The same bytes but the titles (and the URLs, which name each server's port).
        const ports = (text, server) => text.replaceAll(new URL(server.url).host, 'HOST');
        assert.deepEqual(without.map((p) => ports(p.res.body.toString(), bare)), with_.map((p) => ports(strip(p.res.body.toString()), titled)), style);
      }
      for (const style of REAL_STYLES) {
        const pages = await walkReal(`${bare.url}?style=${style}`, style);
        assert.equal(pages.flatMap((p) => p.ids).length, 12, style);
        assert.ok(pages.every((p) => p.notes.every((note) => !('title' in note))), style);
      }
      const notion = await request(`${bare.url.replace(/\/notes$/, '')}/v1/databases/notes/query`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      assert.ok(json(notion).results.every((note) => Object.keys(note).join() === 'id,rank,pinned'));
      // huge-title finds nothing to change.
      assert.equal((await request(`${bare.url}?fault=huge-title:50`)).body.toString(), (await request(bare.url)).body.toString());
    } finally {
      assert.equal((await titled.stop()).code, 0);
      assert.equal((await bare.stop()).code, 0);
    }
    const { code, stderr } = await runServer(['--dir', '/nonexistent', '--no-titles']);
    assert.equal(code, 64);
    assert.match(stderr, /--no-titles goes with --count, not --dir/);
    const help = await runServer(['--help']);
    for (const word of ['--no-titles', ...REAL_STYLES]) assert.ok(help.stdout.includes(word), word);
  });
});
