// End-to-end tests: HTTPS (--tls-cert, --tls-key, --url-host, --http2), with certificates that openssl
// makes at test time; the server runs as a child process on port 0 and is asked over HTTP
// (testing/harness.mjs). Run with `node --test Tools/`; only lower bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { json, request, runServer, startServer } from '../testing/harness.mjs';

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
