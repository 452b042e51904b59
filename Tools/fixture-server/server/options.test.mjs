// Unit tests of the command line (options.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from './options.mjs';
import { UsageError } from '../shared/errors.mjs';
import { isListStyle } from '../styles/catalog.mjs';

describe('parseArgs', () => {
  test('defaults for --count', () => {
    const options = parseArgs(['--count', '10']);
    assert.equal(options.count, 10);
    assert.equal(options.pageSize, 100);
    assert.equal(options.seed, 42);
    assert.equal(options.host, '127.0.0.1');
    assert.equal(options.port, 0);
    assert.equal(options.style, 'contract');
    assert.deepEqual(options.faults, []);
    assert.equal(options.quiet, false);
    assert.equal(options.tlsCert, null);
    assert.equal(options.tlsKey, null);
    assert.equal(options.urlHost, null);
    assert.deepEqual(options.compress, []);
  });

  test('TLS, URL host and compression flags', () => {
    const options = parseArgs(['--count', '1', '--tls-cert', 'c.pem', '--tls-key=k.pem', '--url-host', 'localhost', '--compress', 'br, gzip']);
    assert.equal(options.tlsCert, 'c.pem');
    assert.equal(options.tlsKey, 'k.pem');
    assert.equal(options.urlHost, 'localhost');
    assert.deepEqual(options.compress, ['br', 'gzip']);
    assert.deepEqual(parseArgs(['--count', '1', '--compress', 'none']).compress, []);
    for (const [given, host] of [['127.0.0.1', '127.0.0.1'], ['notes.example.test', 'notes.example.test'], ['::1', '[::1]'], ['[::1]', '[::1]']]) {
      assert.equal(parseArgs(['--count', '1', '--url-host', given]).urlHost, host);
    }
  });

  test('both flag forms, repeated faults with their own counters', () => {
    const options = parseArgs(['--dir=/tmp/x', '--port', '8080', '--style=link', '--fault', '503@2x2',
      '--fault=html,delay:5', '--quiet', '--token-file', 't', '--fixtures', 'f', '--cache-mb', '8']);
    assert.equal(options.dir, '/tmp/x');
    assert.equal(options.port, 8080);
    assert.equal(options.style, 'link');
    assert.deepEqual(options.faults.map((f) => [f.spec, f.key]), [['503@2x2', 'flag#0'], ['html', 'flag#1'], ['delay:5', 'flag#2']]);
    assert.equal(options.quiet, true);
    assert.equal(options.tokenFile, 't');
    assert.equal(options.fixtures, 'f');
    assert.equal(options.cacheMiB, 8);
  });

  test('list-style flags: defaults, and the default cap never below --page-size', () => {
    const options = parseArgs(['--count', '10']);
    assert.equal(options.maxLimit, 1000);
    assert.deepEqual(options.totals, { count: true, header: true, link: true, pages: true });
    assert.equal(options.totalLie, 0);
    assert.equal(parseArgs(['--count', '10', '--page-size', '3000']).maxLimit, 3000);
    const given = parseArgs(['--count', '10', '--max-limit=5', '--totals', 'count,header', '--total-lie', '-3', '--style', 'keyset']);
    assert.equal(given.maxLimit, 5);
    assert.deepEqual(given.totals, { count: true, header: true, link: false, pages: false });
    assert.equal(given.totalLie, -3);
    assert.equal(given.style, 'keyset');
    assert.deepEqual(parseArgs(['--count', '1', '--totals=none']).totals, { count: false, header: false, link: false, pages: false });
    assert.equal(parseArgs(['--dir', 'd', '--style', 'header']).style, 'header');
  });

  test('--id-kind: string by default, int; only with --count', () => {
    assert.equal(parseArgs(['--count', '1']).idKind, 'string');
    assert.equal(parseArgs(['--count', '1', '--id-kind', 'int']).idKind, 'int');
    assert.equal(parseArgs(['--count', '1', '--id-kind=string']).idKind, 'string');
    assert.throws(() => parseArgs(['--count', '1', '--id-kind', 'uuid']), /--id-kind takes string or int, not 'uuid'/);
    assert.throws(() => parseArgs(['--dir', 'd', '--id-kind', 'int']), /go with --count, not --dir \(given: --id-kind\)/);
    assert.throws(() => parseArgs(['--dir', 'd', '--style', 'jsonapi']), /style 'jsonapi' pages through generated notes/);
    assert.equal(parseArgs(['--count', '1', '--style', 'jsonapi']).style, 'jsonapi');
  });

  test('list styles: offset, page, keyset, jsonapi, and drf with integer ids', () => {
    for (const style of ['offset', 'page', 'keyset', 'jsonapi']) assert.ok(isListStyle(style) && isListStyle(style, 'int'), style);
    for (const style of ['contract', 'link', 'header']) assert.ok(!isListStyle(style) && !isListStyle(style, 'int'), style);
    assert.ok(!isListStyle('drf'));
    assert.ok(!isListStyle('drf', 'string'));
    assert.ok(isListStyle('drf', 'int'));
  });

  test('--repos, --issues, --comments: off, 4 and 3 by default; with --count or --dir, and --dir then takes --seed', () => {
    const plain = parseArgs(['--count', '1']);
    assert.deepEqual([plain.repos, plain.issues, plain.comments], [0, 4, 3]);
    const nested = parseArgs(['--count', '1', '--repos', '100000', '--issues=0', '--comments', '1000']);
    assert.deepEqual([nested.repos, nested.issues, nested.comments, nested.seed], [100_000, 0, 1000, 42]);
    const directory = parseArgs(['--dir', 'd', '--repos', '3', '--seed', '9']);
    assert.deepEqual([directory.repos, directory.seed, directory.count], [3, 9, null]);
    assert.equal(parseArgs(['--dir', 'd', '--repos', '3']).seed, 42);
    assert.equal(parseArgs(['--dir', 'd']).seed, null);
    assert.equal(parseArgs(['--count', '1', '--repos', '0', '--issues', '2']).repos, 0);
  });

  test('--fixed and --latency: off and 0 by default; with --repos, latency 0 to 60000 ms; --issues up to 1000', () => {
    const plain = parseArgs(['--count', '1']);
    assert.deepEqual([plain.fixed, plain.latency], [false, 0]);
    const fixed = parseArgs(['--count', '1', '--repos', '200', '--issues', '300', '--comments', '0', '--fixed', '--latency', '20']);
    assert.deepEqual([fixed.repos, fixed.issues, fixed.comments, fixed.fixed, fixed.latency], [200, 300, 0, true, 20]);
    assert.deepEqual([parseArgs(['--count', '1', '--repos', '1', '--latency=60000']).latency, parseArgs(['--count', '1', '--repos', '1', '--latency', '0']).latency], [60_000, 0]);
    assert.equal(parseArgs(['--count', '1', '--repos', '1', '--issues', '1000', '--fixed']).issues, 1000);
    const directory = parseArgs(['--dir', 'd', '--repos', '3', '--fixed', '--latency', '5']);
    assert.deepEqual([directory.fixed, directory.latency], [true, 5]);
  });

  test('--created-round: 1 by default; with --repos, 1 to 31536000 seconds', () => {
    assert.equal(parseArgs(['--count', '1']).createdRound, 1);
    assert.equal(parseArgs(['--count', '1', '--repos', '3']).createdRound, 1);
    assert.equal(parseArgs(['--count', '1', '--repos', '3', '--created-round', '86400']).createdRound, 86_400);
    assert.equal(parseArgs(['--count', '1', '--repos', '3', '--created-round=31536000']).createdRound, 31_536_000);
    assert.equal(parseArgs(['--dir', 'd', '--repos', '3', '--created-round', '1']).createdRound, 1);
  });

  test('--help needs nothing else', () => {
    assert.equal(parseArgs(['--help']).help, true);
  });

  for (const [argv, message] of [
    [[], /exactly one of --dir/],
    [['--dir', 'd', '--count', '1'], /exactly one of --dir/],
    [['--dir', 'd', '--seed', '1'], /go with --count/],
    [['--count'], /--count needs a value/],
    [['--count', '-1'], /--count must be an integer/],
    [['--count', '1e3'], /--count must be an integer/],
    [['--count', '5', '--page-size', '0'], /--page-size must be an integer from 1/],
    [['--count', '5', '--port', '70000'], /--port must be an integer/],
    [['--count', '5', '--style', 'xml'], /unknown style 'xml'/],
    [['--count', '5', '--fault', 'nope'], /unknown fault kind 'nope'/],
    [['--count', '5', '--verbose'], /unknown argument '--verbose'/],
    [['--count', '5', '--quiet=yes'], /--quiet takes no value/],
    [['--count', '5', '--host='], /--host needs a value/],
    [['--dir', 'd', '--totals', 'none'], /go with --count, not --dir \(given: --totals\)/],
    [['--dir', 'd', '--max-limit', '5', '--total-lie', '1'], /given: --max-limit, --total-lie/],
    [['--dir', 'd', '--style', 'offset'], /style 'offset' .* needs --count/],
    [['--dir', 'd', '--style', 'keyset'], /needs --count/],
    [['--count', '5', '--totals', 'count,bogus'], /--totals takes a comma-separated list/],
    [['--count', '5', '--totals', 'none,count'], /--totals takes/],
    [['--count', '5', '--totals', ''], /--totals needs a value|--totals takes/],
    [['--count', '5', '--max-limit', '0'], /--max-limit must be an integer from 1/],
    [['--count', '5', '--total-lie', '1.5'], /--total-lie must be an integer/],
    [['--count', '5', '--total-lie', '--quiet'], /--total-lie must be an integer/],
    [['--count', '5', '--tls-cert', 'c.pem'], /both --tls-cert FILE and --tls-key FILE, or neither/],
    [['--count', '5', '--tls-key', 'k.pem'], /both --tls-cert/],
    [['--count', '5', '--compress', 'zip'], /--compress takes a comma-separated list of gzip, deflate, br/],
    [['--count', '5', '--compress', 'gzip,gzip'], /--compress takes/],
    [['--count', '5', '--compress', ''], /--compress needs a value|--compress takes/],
    [['--count', '5', '--url-host', 'http://localhost'], /--url-host must be a host name or an IP address/],
    [['--count', '5', '--url-host', 'a b'], /--url-host must be/],
    [['--count', '5', '--url-host', '[::1'], /--url-host must be/],
    [['--count', '5', '--repos', '100001'], /--repos must be an integer from 0 to 100000/],
    [['--count', '5', '--repos', '3', '--issues', '1001'], /--issues must be an integer from 0 to 1000/],
    [['--count', '5', '--repos', '3', '--comments', 'x'], /--comments must be an integer from 0 to 1000/],
    [['--count', '5', '--issues', '3'], /--issues and --comments go with --repos N/],
    [['--count', '5', '--comments', '3'], /--issues and --comments go with --repos N/],
    [['--count', '5', '--fixed'], /--fixed and --latency go with --repos N/],
    [['--count', '5', '--latency', '20'], /--fixed and --latency go with --repos N/],
    [['--count', '5', '--repos', '3', '--latency', '60001'], /--latency must be an integer from 0 to 60000/],
    [['--count', '5', '--repos', '3', '--latency', '-1'], /--latency must be an integer from 0 to 60000/],
    [['--count', '5', '--repos', '3', '--latency', '1.5'], /--latency must be an integer/],
    [['--count', '5', '--repos', '3', '--latency'], /--latency needs a value/],
    [['--count', '5', '--repos', '3', '--fixed=1'], /--fixed takes no value/],
    [['--count', '5', '--created-round', '60'], /--created-round goes with --repos N/],
    [['--dir', 'd', '--created-round', '60'], /--created-round goes with --repos N/],
    [['--count', '5', '--repos', '3', '--created-round', '0'], /--created-round must be an integer from 1 to 31536000, not '0'/],
    [['--count', '5', '--repos', '3', '--created-round', '31536001'], /--created-round must be an integer from 1 to 31536000/],
    [['--count', '5', '--repos', '3', '--created-round', '-1'], /--created-round must be an integer from 1 to 31536000/],
    [['--count', '5', '--repos', '3', '--created-round', '1.5'], /--created-round must be an integer/],
    [['--count', '5', '--repos', '3', '--created-round', 'day'], /--created-round must be an integer/],
    [['--count', '5', '--repos', '3', '--created-round='], /--created-round must be an integer/],
    [['--count', '5', '--repos', '3', '--created-round'], /--created-round needs a value/],
    [['--repos', '5'], /exactly one of --dir/],
    [['--dir', 'd', '--repos', '0', '--seed', '1'], /go with --count, not --dir \(given: --seed\)/],
    [['--dir', 'd', '--repos', '2', '--seed', '1', '--page-size', '3'], /given: --page-size\)/],
  ]) {
    test(`rejects ${JSON.stringify(argv)}`, () => {
      assert.throws(() => parseArgs(argv), (error) => error instanceof UsageError && message.test(error.message));
    });
  }
});
