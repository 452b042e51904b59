// End-to-end tests: the command line, the log and shutdown, and the connections the log names; the server
// runs as a child process on port 0 and is asked over HTTP (testing/harness.mjs). Run with `node --test
// Tools/`; only lower bounds of time are asserted.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { arrival, connectionOf, json, pageUrl, request, requestLines, runServer, startServer } from '../testing/harness.mjs';

describe('command line', () => {
  test('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await runServer(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: /);
    for (const flag of ['--dir', '--count', '--page-size', '--seed', '--host', '--port', '--style', '--fault', '--token-file', '--fixtures', '--cache-mb', '--quiet',
      '--max-limit', '--totals', '--total-lie', 'offset', 'page', 'keyset', 'header', 'shift', '--id-kind', 'jsonapi', 'page[size]', 'page_size', '406',
      '--tls-cert', '--tls-key', '--url-host', '--compress', 'stall', 'bomb', 'ratelimit-github', 'ratelimit-ietf',
      'ratelimit-retry-after', 'remaining-zero', 'c=', 't=', '--updates', 'since=T', 'updated_at', '/admin/touch?count=K',
      '/admin/touch?id=ID', '/admin/add?count=K', '422', '--repos', '--issues', '--comments', 'GET /repos?page=P&per_page=M',
      '/repos/octo/repo-I/issues?page=P&per_page=M&since=T', '/repos/octo/repo-I/issues/N/comments', 'POST /repos/octo/repo-I/issues/N/touch',
      '--created-round', 'created[gte]', 'created[gt]', 'created[lt]', 'created[lte]', 'Invalid integer']) {
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
    ['--count', '5', '--updates', '--style', 'drf', '--id-kind', 'int'], ['--count', '5', '--updates=1'],
    ['--count', '5', '--created-round', '60'], ['--count', '5', '--repos', '2', '--created-round', '0']]) {
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
