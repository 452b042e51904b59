// Unit tests of the pure parts of notes-server (notes-server-lib.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as m0 from './faults/auth.mjs';
import * as m1 from './faults/delivery.mjs';
import * as m2 from './faults/grammar.mjs';
import * as m3 from './faults/hostile-bodies.mjs';
import * as m4 from './faults/next-ref.mjs';
import * as m5 from './faults/plan.mjs';
import * as m6 from './faults/rate-limits.mjs';
import * as m7 from './notes/access.mjs';
import * as m8 from './notes/directory.mjs';
import * as m9 from './notes/generated.mjs';
import * as m10 from './notes/page-cache.mjs';
import * as m11 from './notes/scan.mjs';
import * as m12 from './notes/updates.mjs';
import * as m13 from './server/compression.mjs';
import * as m14 from './server/log.mjs';
import * as m15 from './server/options.mjs';
import * as m16 from './server/routing.mjs';
import * as m17 from './server/startup.mjs';
import * as m18 from './server/usage.mjs';
import * as m19 from './shared/errors.mjs';
import * as m20 from './shared/http.mjs';
import * as m21 from './shared/parts.mjs';
import * as m22 from './shared/python.mjs';
import * as m23 from './shared/rfc3339.mjs';
import * as m24 from './shared/seeded.mjs';
import * as m25 from './styles/catalog.mjs';
import * as m26 from './styles/cursor.mjs';
import * as m27 from './styles/drf.mjs';
import * as m28 from './styles/graphql.mjs';
import * as m29 from './styles/jsonapi.mjs';
import * as m30 from './styles/keyset.mjs';
import * as m31 from './styles/link.mjs';
import * as m32 from './styles/list.mjs';
import * as m33 from './styles/notion.mjs';
import * as m34 from './styles/offset-page.mjs';
import * as m35 from './styles/real-servers.mjs';
import * as m36 from './styles/real-servers/dynamodb.mjs';
import * as m37 from './styles/real-servers/eve.mjs';
import * as m38 from './styles/real-servers/flask-smorest.mjs';
import * as m39 from './styles/real-servers/kinto.mjs';
import * as m40 from './styles/real-servers/litestar.mjs';
import * as m41 from './styles/real-servers/pygeoapi.mjs';

const lib = { ...m0, ...m1, ...m2, ...m3, ...m4, ...m5, ...m6, ...m7, ...m8, ...m9, ...m10, ...m11, ...m12, ...m13, ...m14, ...m15, ...m16, ...m17, ...m18, ...m19, ...m20, ...m21, ...m22, ...m23, ...m24, ...m25, ...m26, ...m27, ...m28, ...m29, ...m30, ...m31, ...m32, ...m33, ...m34, ...m35, ...m36, ...m37, ...m38, ...m39, ...m40, ...m41 };
const ENVELOPES = {
  contract: m26.wrapContract, header: m26.wrapHeader, drf: m27.wrapDrf,
  link: m31.wrapLink, offset: m34.wrapOffset, page: m34.wrapPageNumber,
  keyset: m30.wrapKeyset, jsonapi: m29.wrapJsonApi, notion: m33.wrapNotion,
  'next-page': m39.wrapNextPage, ogc: m41.wrapOgc,
  'x-pagination': m38.wrapXPagination, 'page-echo': m40.wrapPageEcho,
  'offset-echo': m40.wrapOffsetEcho, eve: m37.wrapEve,
  dynamodb: m36.wrapDynamoDb,
};
lib.wrapPage = (style, items, nav) => ENVELOPES[style](items, nav);

const contract = (name) => readFileSync(new URL(`../../Fixtures/contract/${name}`, import.meta.url));
const parseFaults = (...specs) => lib.parseFaultList(specs, 'flag');
const bytes = (parts) => Buffer.concat([...lib.chunks(parts, 1 << 16)]);

describe('parseArgs', () => {
  test('defaults for --count', () => {
    const options = lib.parseArgs(['--count', '10']);
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
    const options = lib.parseArgs(['--count', '1', '--tls-cert', 'c.pem', '--tls-key=k.pem', '--url-host', 'localhost', '--compress', 'br, gzip']);
    assert.equal(options.tlsCert, 'c.pem');
    assert.equal(options.tlsKey, 'k.pem');
    assert.equal(options.urlHost, 'localhost');
    assert.deepEqual(options.compress, ['br', 'gzip']);
    assert.deepEqual(lib.parseArgs(['--count', '1', '--compress', 'none']).compress, []);
    for (const [given, host] of [['127.0.0.1', '127.0.0.1'], ['notes.example.test', 'notes.example.test'], ['::1', '[::1]'], ['[::1]', '[::1]']]) {
      assert.equal(lib.parseArgs(['--count', '1', '--url-host', given]).urlHost, host);
    }
  });

  test('both flag forms, repeated faults with their own counters', () => {
    const options = lib.parseArgs(['--dir=/tmp/x', '--port', '8080', '--style=link', '--fault', '503@2x2',
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
    const options = lib.parseArgs(['--count', '10']);
    assert.equal(options.maxLimit, 1000);
    assert.deepEqual(options.totals, { count: true, header: true, link: true, pages: true });
    assert.equal(options.totalLie, 0);
    assert.equal(lib.parseArgs(['--count', '10', '--page-size', '3000']).maxLimit, 3000);
    const given = lib.parseArgs(['--count', '10', '--max-limit=5', '--totals', 'count,header', '--total-lie', '-3', '--style', 'keyset']);
    assert.equal(given.maxLimit, 5);
    assert.deepEqual(given.totals, { count: true, header: true, link: false, pages: false });
    assert.equal(given.totalLie, -3);
    assert.equal(given.style, 'keyset');
    assert.deepEqual(lib.parseArgs(['--count', '1', '--totals=none']).totals, { count: false, header: false, link: false, pages: false });
    assert.equal(lib.parseArgs(['--dir', 'd', '--style', 'header']).style, 'header');
  });

  test('--id-kind: string by default, int; only with --count', () => {
    assert.equal(lib.parseArgs(['--count', '1']).idKind, 'string');
    assert.equal(lib.parseArgs(['--count', '1', '--id-kind', 'int']).idKind, 'int');
    assert.equal(lib.parseArgs(['--count', '1', '--id-kind=string']).idKind, 'string');
    assert.throws(() => lib.parseArgs(['--count', '1', '--id-kind', 'uuid']), /--id-kind takes string or int, not 'uuid'/);
    assert.throws(() => lib.parseArgs(['--dir', 'd', '--id-kind', 'int']), /go with --count, not --dir \(given: --id-kind\)/);
    assert.throws(() => lib.parseArgs(['--dir', 'd', '--style', 'jsonapi']), /style 'jsonapi' pages through generated notes/);
    assert.equal(lib.parseArgs(['--count', '1', '--style', 'jsonapi']).style, 'jsonapi');
  });

  test('list styles: offset, page, keyset, jsonapi, and drf with integer ids', () => {
    for (const style of ['offset', 'page', 'keyset', 'jsonapi']) assert.ok(lib.isListStyle(style) && lib.isListStyle(style, 'int'), style);
    for (const style of ['contract', 'link', 'header']) assert.ok(!lib.isListStyle(style) && !lib.isListStyle(style, 'int'), style);
    assert.ok(!lib.isListStyle('drf'));
    assert.ok(!lib.isListStyle('drf', 'string'));
    assert.ok(lib.isListStyle('drf', 'int'));
  });

  test('--help needs nothing else', () => {
    assert.equal(lib.parseArgs(['--help']).help, true);
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
  ]) {
    test(`rejects ${JSON.stringify(argv)}`, () => {
      assert.throws(() => lib.parseArgs(argv), (error) => error instanceof lib.UsageError && message.test(error.message));
    });
  }
});

describe('fault grammar', () => {
  const strip = ({ spec, key, ...meaning }) => meaning; // without where the fault came from
  for (const [spec, expected] of [
    ['500', { kind: 'status', status: 500, retryAfter: null, page: null, times: null }],
    ['503', { kind: 'status', status: 503, retryAfter: 1, page: null, times: null }],
    ['429:7@3x2', { kind: 'status', status: 429, retryAfter: 7, page: 3, times: 2 }],
    ['500x2', { kind: 'status', status: 500, retryAfter: null, page: null, times: 2 }],
    ['html', { kind: 'fixture', file: 'html-body.html', page: null, times: null }],
    ['invalid-json@2', { kind: 'fixture', file: 'invalid-json.json', page: 2, times: null }],
    ['missing-id', { kind: 'fixture', file: 'missing-id.json', page: null, times: null }],
    ['number-id', { kind: 'fixture', file: 'number-id.json', page: null, times: null }],
    ['fixture:truncated.json', { kind: 'fixture', file: 'truncated.json', page: null, times: null }],
    ['content-type', { kind: 'content-type', contentType: 'text/plain; charset=utf-8', page: null, times: null }],
    ['content-type:text/html; charset=utf-8@1', { kind: 'content-type', contentType: 'text/html; charset=utf-8', page: 1, times: null }],
    ['truncate', { kind: 'truncate', bytes: null, page: null, times: null }],
    ['truncate:10x1', { kind: 'truncate', bytes: 10, page: null, times: 1 }],
    ['reset@4', { kind: 'reset', page: 4, times: null }],
    ['drip', { kind: 'drip', bytes: 8, ms: 5, page: null, times: null }],
    ['drip:64', { kind: 'drip', bytes: 64, ms: 5, page: null, times: null }],
    ['drip:64/20@2', { kind: 'drip', bytes: 64, ms: 20, page: 2, times: null }],
    ['drip:/0', { kind: 'drip', bytes: 8, ms: 0, page: null, times: null }],
    ['delay', { kind: 'delay', ms: 1000, page: null, times: null }],
    ['delay:100x2', { kind: 'delay', ms: 100, page: null, times: 2 }],
    ['duplicate-id@3', { kind: 'duplicate-id', page: 3, times: null }],
    ['cycle@5x1', { kind: 'cycle', page: 5, times: 1 }],
    ['huge-title', { kind: 'huge-title', bytes: 2 * 1024 * 1024, page: null, times: null }],
    ['huge-title:100', { kind: 'huge-title', bytes: 100, page: null, times: null }],
    ['deep', { kind: 'deep', depth: 100_000, page: null, times: null }],
    ['deep:64@1', { kind: 'deep', depth: 64, page: 1, times: null }],
    ['redirect', { kind: 'redirect', status: 302, page: null, times: null }],
    ['redirect:307@2x1', { kind: 'redirect', status: 307, page: 2, times: 1 }],
    ['auth', { kind: 'auth', page: null, times: null }],
    // A shift acts once: it counts as a fault that fires once.
    ['shift:5@2', { kind: 'shift', notes: 5, page: 2, times: 1 }],
    ['shift:1', { kind: 'shift', notes: 1, page: null, times: 1 }],
    ['stall', { kind: 'stall', bytes: 10, page: null, times: null }],
    ['stall:0@2x1', { kind: 'stall', bytes: 0, page: 2, times: 1 }],
    ['bomb', { kind: 'bomb', bytes: 2 ** 30, page: null, times: null }],
    ['bomb:1000@3', { kind: 'bomb', bytes: 1000, page: 3, times: null }],
    ['ratelimit-github', { kind: 'ratelimit-github', seconds: 1, page: null, times: null }],
    ['ratelimit-github:30@2x1', { kind: 'ratelimit-github', seconds: 30, page: 2, times: 1 }],
    ['ratelimit-ietf:0', { kind: 'ratelimit-ietf', seconds: 0, page: null, times: null }],
    ['ratelimit-retry-after:5x2', { kind: 'ratelimit-retry-after', seconds: 5, page: null, times: 2 }],
    ['remaining-zero', { kind: 'remaining-zero', seconds: 1, page: null, times: null }],
    ['remaining-zero:60@3', { kind: 'remaining-zero', seconds: 60, page: 3, times: null }],
    ['graphql-error@2', { kind: 'graphql-error', page: 2, times: null }],
    // GitHub's GraphQL rate limit: once unless xN says otherwise.
    ['graphql-ratelimit@3', { kind: 'graphql-ratelimit', seconds: 1, page: 3, times: 1 }],
    ['graphql-ratelimit:5@3x2', { kind: 'graphql-ratelimit', seconds: 5, page: 3, times: 2 }],
    ['graphql-cycle@2', { kind: 'graphql-cycle', page: 2, times: null }],
    ['graphql-endless', { kind: 'graphql-endless', page: null, times: null }],
    ['next-ref:brackets-raw@3', { kind: 'next-ref', ref: 'brackets-raw', page: 3, times: null }],
    ['next-ref:long-name@2x1', { kind: 'next-ref', ref: 'long-name', page: 2, times: 1 }],
    ['next-ref:empty-host', { kind: 'next-ref', ref: 'empty-host', page: null, times: null }],
  ]) {
    test(`parses ${spec}`, () => {
      const fault = lib.parseFault(spec, 'request');
      assert.equal(fault.spec, spec);
      assert.equal(fault.key, `request:${spec}`);
      assert.deepEqual(strip(fault), expected);
    });
  }

  for (const spec of ['', 'bogus', '500:3', '399', '600', '503:soon', '503@0', '503x0', 'html:1', 'fixture',
    'fixture:../secret', 'drip:', 'drip:0', 'drip:a/b', 'reset:1', 'redirect:304', 'deep:0', 'delay:-1',
    'auth:x', 'cycle:1', 'content-type: text/plain', 'HTML', '500@1@2', 'shift', 'shift:', 'shift:0', 'shift:a@2', 'shift:2@2x1',
    'stall:x', 'stall:-1', 'bomb:', 'bomb:2000000000000', 'ratelimit-github:86401', 'ratelimit-ietf:soon', 'ratelimit', 'remaining-zero:1.5',
    'graphql', 'graphql-error:1', 'graphql-cycle:x', 'graphql-endless:2', 'graphql-ratelimit:soon', 'graphql-ratelimit:86401',
    'next-ref', 'next-ref:', 'next-ref:gopher', 'next-ref:Space', 'next-ref:space:1']) {
    test(`rejects '${spec}'`, () => {
      assert.throws(() => lib.parseFault(spec, 'request'), lib.UsageError);
    });
  }

  test('a list: commas, spaces and empty items', () => {
    const faults = lib.parseFaultList(['delay:5, 500@2', '', 'html,'], 'request');
    assert.deepEqual(faults.map((f) => f.spec), ['delay:5', '500@2', 'html']);
    assert.deepEqual(faults.map((f) => f.key), ['request:delay:5', 'request:500@2', 'request:html']);
  });

  test('problems against a server', () => {
    const context = { fixtures: new Set(['html-body.html']), hasToken: false, pageCount: 3 };
    const problem = (spec) => lib.faultProblem(lib.parseFault(spec, 'flag', 0), context);
    assert.equal(problem('html@3'), null);
    assert.match(problem('html@4'), /names page 4, but there are 3 pages/);
    assert.match(problem('fixture:gone.json'), /no fixture 'gone.json'/);
    assert.match(problem('auth'), /needs a token/);
    assert.match(problem('cycle@1'), /page 1 cannot be in a cycle/);
    assert.match(problem('graphql-cycle@1'), /page 1 cannot be in a cycle/);
    // GraphQL pages hold `first` notes, not --page-size: any page number may exist.
    for (const kind of ['graphql-error', 'graphql-ratelimit', 'graphql-cycle', 'graphql-endless']) assert.equal(problem(`${kind}@9`), null, kind);
    assert.equal(lib.faultProblem(lib.parseFault('html@4', 'request'), { ...context, pageCount: null }), null);
  });

  test('problems in a style: cycle in keyset, shift outside offset, page, keyset, jsonapi and drf with integer ids', () => {
    const problem = (spec, style, idKind) => lib.styleProblem(lib.parseFault(spec, 'request'), style, idKind);
    assert.match(problem('cycle@2', 'keyset'), /cannot work in keyset style/);
    for (const style of ['contract', 'drf', 'link', 'header', 'offset', 'page', 'jsonapi']) assert.equal(problem('cycle@2', style), null);
    for (const style of ['offset', 'page', 'keyset', 'jsonapi']) assert.equal(problem('shift:3@2', style), null);
    for (const style of ['contract', 'drf', 'link', 'header']) {
      assert.match(problem('shift:3@2', style), /offset, page, keyset, jsonapi, next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb styles \(and drf with --id-kind int\) only/);
    }
    assert.equal(problem('shift:3@2', 'drf', 'int'), null);
    assert.match(problem('shift:3@2', 'link', 'int'), /only, not link/);
    assert.equal(problem('503@2', 'keyset'), null);
  });

  test('problems in a style: next-ref in the cursor page styles only, and its URL kinds not where the next is a cursor', () => {
    const problem = (spec, style, idKind) => lib.styleProblem(lib.parseFault(spec, 'request'), style, idKind);
    for (const kind of lib.NEXT_REF_KINDS) {
      for (const style of ['drf', 'link']) assert.equal(problem(`next-ref:${kind}@2`, style), null, `${kind} ${style}`);
      for (const style of ['contract', 'header']) {
        const cursorKind = lib.NEXT_REF_CURSOR_KINDS.includes(kind);
        if (cursorKind) assert.equal(problem(`next-ref:${kind}@2`, style), null, `${kind} ${style}`);
        else assert.match(problem(`next-ref:${kind}@2`, style), new RegExp(`in ${style} style the next reference is a cursor, and '${kind}' is a URL's`));
      }
      for (const style of ['offset', 'page', 'keyset', 'jsonapi']) {
        assert.match(problem(`next-ref:${kind}`, style), new RegExp(`works in the contract, header, drf, link styles only, not ${style}$`));
      }
      assert.match(problem(`next-ref:${kind}`, 'drf', 'int'), /only, not drf with --id-kind int/);
    }
    assert.deepEqual(lib.NEXT_REF_CURSOR_KINDS, ['brackets-raw', 'brackets-encoded', 'space', 'bad-escape', 'unicode', 'long-name']);
  });

  test('totals lists', () => {
    assert.deepEqual(lib.parseTotals('link, pages', 'x'), { count: false, header: false, link: true, pages: true });
    assert.deepEqual(lib.parseTotals('none', 'x'), { count: false, header: false, link: false, pages: false });
    assert.throws(() => lib.parseTotals('total', 'totals='), /totals= takes a comma-separated list/);
  });
});

describe('planFaults', () => {
  const plan = (faults, page, { authorized = true, used = new Map() } = {}) => lib.planFaults(faults, page, authorized, used);
  const fired = (p) => p.fired.map((f) => f.spec);

  test('no faults: a plain page', () => {
    const p = plan([], 1);
    assert.deepEqual(p.fired, []);
    assert.equal(p.replace, null);
    assert.equal(p.delayMs, 0);
  });

  test('page filter and counts', () => {
    const faults = parseFaults('503@2x2');
    const used = new Map();
    assert.deepEqual(fired(plan(faults, 1, { used })), []);
    assert.equal(plan(faults, 2, { used }).replace.status, 503);
    used.set('flag#0', 2);
    assert.equal(plan(faults, 2, { used }).replace, null);
  });

  test('delays add up; the first replacing fault wins and content faults give way', () => {
    const p = plan(parseFaults('delay:5', 'delay:7', '500', 'html', 'duplicate-id', 'content-type', 'truncate', 'drip'), 1);
    assert.equal(p.delayMs, 12);
    assert.equal(p.replace.status, 500);
    assert.deepEqual(p.content, []);
    assert.deepEqual(fired(p), ['delay:5', 'delay:7', '500', 'content-type', 'truncate', 'drip']);
  });

  test('content faults all apply when nothing replaces the page', () => {
    const p = plan(parseFaults('duplicate-id', 'cycle', 'huge-title:5', 'deep:3'), 2);
    assert.deepEqual(p.content.map((f) => f.kind), ['duplicate-id', 'cycle', 'huge-title', 'deep']);
  });

  test('a shift acts first, once, even when the page is replaced or reset', () => {
    const faults = parseFaults('delay:1', 'shift:3@2', 'reset');
    const used = new Map();
    const p = plan(faults, 2, { used });
    assert.deepEqual(fired(p), ['shift:3@2', 'delay:1', 'reset']);
    assert.deepEqual(p.shift.map((f) => f.notes), [3]);
    assert.deepEqual(plan(faults, 1).shift, []);
    used.set('flag#1', 1);
    assert.deepEqual(fired(plan(faults, 2, { used })), ['delay:1', 'reset']);
  });

  test('reset ends the request', () => {
    const p = plan(parseFaults('delay:1', 'reset', '500'), 1);
    assert.equal(p.reset, true);
    assert.deepEqual(fired(p), ['delay:1', 'reset']);
  });

  test('rate limits replace the page; remaining-zero decorates it like content-type', () => {
    for (const kind of ['ratelimit-github', 'ratelimit-ietf', 'ratelimit-retry-after', 'bomb']) {
      const p = plan(parseFaults(`${kind}:2`, '500', 'duplicate-id'), 1);
      assert.equal(p.replace.kind, kind);
      assert.deepEqual(p.content, []);
    }
    const decorated = plan(parseFaults('remaining-zero:9', 'duplicate-id', 'content-type'), 2);
    assert.equal(decorated.replace, null);
    assert.equal(decorated.remainingZero.seconds, 9);
    assert.deepEqual(fired(decorated), ['duplicate-id', 'content-type', 'remaining-zero:9']);
    assert.equal(plan(parseFaults('503', 'remaining-zero'), 1).remainingZero.kind, 'remaining-zero');
  });

  test('stall and truncate: the first of them acts; a drip goes with either; a bomb takes no delivery fault', () => {
    const stall = plan(parseFaults('stall:4', 'truncate', 'drip'), 1);
    assert.equal(stall.stall.bytes, 4);
    assert.equal(stall.truncate, null);
    assert.deepEqual(fired(stall), ['stall:4', 'drip']);
    const truncate = plan(parseFaults('truncate:3', 'stall'), 1);
    assert.equal(truncate.truncate.bytes, 3);
    assert.equal(truncate.stall, null);
    assert.deepEqual(fired(truncate), ['truncate:3']);
    const bomb = plan(parseFaults('bomb:100', 'stall', 'truncate', 'drip', 'content-type'), 1);
    assert.deepEqual([bomb.stall, bomb.truncate, bomb.drip], [null, null, null]);
    assert.deepEqual(fired(bomb), ['bomb:100', 'content-type']);
  });

  test('GraphQL faults: graphql-ratelimit replaces the page; graphql-error, -cycle and -endless alter it; -endless from its page on', () => {
    const ratelimit = plan(parseFaults('graphql-ratelimit@2', 'graphql-error@2'), 2);
    assert.equal(ratelimit.replace.kind, 'graphql-ratelimit');
    assert.deepEqual(ratelimit.content, []);
    const content = plan(parseFaults('graphql-error@2', 'graphql-cycle@2', 'graphql-endless@2', 'duplicate-id@2'), 2);
    assert.deepEqual(content.content.map((f) => f.kind), ['graphql-error', 'graphql-cycle', 'graphql-endless', 'duplicate-id']);
    const endless = parseFaults('graphql-endless@3');
    assert.deepEqual([1, 2, 3, 4, 50].map((page) => plan(endless, page).content.length), [0, 0, 1, 1, 1]);
    assert.deepEqual([1, 2, 3].map((page) => plan(parseFaults('graphql-error@2'), page).content.length), [0, 1, 0]);
  });

  test('faultActsOn: graphql-* on /graphql only; shift on /notes only; cycle and deep not on /graphql', () => {
    const acts = (spec) => ['notes', 'graphql', 'notion'].filter((endpoint) => lib.faultActsOn(lib.parseFault(spec, 'request'), endpoint));
    for (const spec of ['graphql-error', 'graphql-ratelimit', 'graphql-cycle@2', 'graphql-endless']) assert.deepEqual(acts(spec), ['graphql'], spec);
    assert.deepEqual(acts('shift:2@2'), ['notes']);
    for (const spec of ['cycle@2', 'deep']) assert.deepEqual(acts(spec), ['notes', 'notion'], spec);
    assert.deepEqual(acts('next-ref:space@2'), ['notes']);
    for (const spec of ['500', '429:3', 'html', 'delay:5', 'reset', 'truncate', 'stall', 'drip', 'bomb', 'auth', 'redirect', 'content-type',
      'ratelimit-github', 'remaining-zero', 'duplicate-id', 'huge-title']) {
      assert.deepEqual(acts(spec), ['notes', 'graphql', 'notion'], spec);
    }
  });

  test('next-ref is a content fault: a replacing fault wins; it goes with the other content faults', () => {
    assert.equal(plan(parseFaults('next-ref:ftp@2'), 1).content.length, 0);
    assert.deepEqual(plan(parseFaults('next-ref:ftp@2', 'cycle'), 2).content.map((f) => f.kind), ['next-ref', 'cycle']);
    assert.deepEqual(fired(plan(parseFaults('next-ref:ftp@2', '500@2'), 2)), ['500@2']);
    assert.deepEqual(fired(plan(parseFaults('next-ref:ftp@2x1'), 2, { used: new Map([['flag#0', 1]]) })), []);
  });

  test('auth: 401 unless authorized, before anything else but delays', () => {
    const faults = parseFaults('auth', '500');
    const denied = plan(faults, 1, { authorized: false });
    assert.equal(denied.unauthorized, true);
    assert.deepEqual(fired(denied), ['auth']);
    const allowed = plan(faults, 1, { authorized: true });
    assert.equal(allowed.unauthorized, false);
    assert.deepEqual(fired(allowed), ['auth', '500']);
  });
});

describe('next-ref: hostile next references', () => {
  const base = 'http://127.0.0.1:8080';
  const next = `${base}/notes?cursor=abc%2B%3D&style=drf`;

  test('the URL of each kind, made from the real next URL', () => {
    const expected = {
      'brackets-raw': `${base}/notes?page[offset]=100&cursor=abc%2B%3D&style=drf`,
      'brackets-encoded': `${base}/notes?page%5Boffset%5D=100&cursor=abc%2B%3D&style=drf`,
      'space': `${base}/notes?q=a b&cursor=abc%2B%3D&style=drf`,
      'bad-escape': `${base}/notes%zz?cursor=abc%2B%3D&style=drf`,
      'unicode': `${base}/notes/é?cursor=abc%2B%3D&style=drf`,
      'fragment': `${next}#frag`,
      'userinfo': 'http://user:pass@127.0.0.1:8080/notes?cursor=abc%2B%3D&style=drf',
      'ftp': 'ftp://127.0.0.1:8080/notes?cursor=abc%2B%3D&style=drf',
      'file': 'file:///etc/passwd',
      'empty-host': 'http:///notes?cursor=abc%2B%3D&style=drf',
    };
    assert.deepEqual(Object.keys(expected), lib.NEXT_REF_KINDS.filter((kind) => kind !== 'long-name'));
    for (const [kind, url] of Object.entries(expected)) assert.equal(lib.nextRefUrl(kind, next, base), url, kind);
    const long = lib.nextRefUrl('long-name', next, base);
    assert.equal(long, `${next}&${'n'.repeat(65536)}=1`);
    assert.ok(Buffer.byteLength(long) > 65535);
    assert.equal(lib.nextRefUrl('userinfo', 'https://[::1]:9/notes?cursor=x', 'https://[::1]:9'), 'https://user:pass@[::1]:9/notes?cursor=x');
    assert.throws(() => lib.nextRefUrl('gopher', next, base), /unknown kind/);
  });

  test('the cursor of each cursor kind, and back', () => {
    const suffixes = {
      'brackets-raw': 'page[offset]=100', 'brackets-encoded': 'page%5Boffset%5D=100', 'space': ' and space', 'bad-escape': '%zz',
      'unicode': 'é', 'long-name': 'n'.repeat(64 * 1024),
    };
    assert.deepEqual(Object.keys(suffixes), lib.NEXT_REF_CURSOR_KINDS);
    for (const [kind, suffix] of Object.entries(suffixes)) {
      const cursor = lib.nextRefCursor(kind, 'Qw+rZWEP=');
      assert.equal(cursor, `Qw+rZWEP=${suffix}`, kind);
      assert.ok(lib.nextRefBaseCursors(cursor).includes('Qw+rZWEP='), kind);
    }
    assert.throws(() => lib.nextRefCursor('ftp', 'abc'), /not a cursor kind/);
    assert.deepEqual(lib.nextRefBaseCursors('Qw+rZWEP='), []);
    // A suffix alone is no cursor made from one.
    assert.deepEqual(lib.nextRefBaseCursors('%zz'), []);
  });

  test("unicode's path, raw or percent-encoded, and nothing else", () => {
    assert.equal(lib.isNextRefPath('/notes/%C3%A9'), true);
    assert.equal(lib.isNextRefPath('/notes/é'), true);
    for (const path of ['/notes', '/notes/', '/notes/e', '/notes/%E9', '/notes%zz', '/notes/%C3']) assert.equal(lib.isNextRefPath(path), false, path);
  });
});

describe('cursors and generated pages', () => {
  test('cursors: deterministic standard base64, some with + / or =', () => {
    const cursors = lib.generatedPages(100, 1, 42).slice(1).map((p) => p.cursor);
    assert.deepEqual(cursors, lib.generatedPages(100, 1, 42).slice(1).map((p) => p.cursor));
    assert.notDeepEqual(cursors, lib.generatedPages(100, 1, 43).slice(1).map((p) => p.cursor));
    for (const cursor of cursors) {
      // A leading '/' would make the cursor a path under the contract: such cursors carry a '~' first.
      assert.ok(!cursor.startsWith('/'), cursor);
      const base64 = cursor.startsWith('~') ? cursor.slice(1) : cursor;
      assert.match(base64, /^[A-Za-z0-9+/]+={0,2}$/);
      assert.equal(Buffer.from(base64, 'base64').toString('base64'), base64);
    }
    // Seed 7's cursor of page index 4 (the fifth page) is one whose base64 starts with '/'.
    assert.equal(lib.deriveCursor(7, 4), '~/7H8JH0esHOqD5mO5g==');
    assert.equal(new Set(cursors).size, cursors.length);
    assert.ok(cursors.some((c) => c.endsWith('==')) && cursors.some((c) => /[^=]=$/.test(c)) && cursors.some((c) => !c.endsWith('=')));
    assert.ok(cursors.some((c) => c.includes('+')) && cursors.some((c) => c.includes('/')));
  });

  test('pages chain from cursor to cursor', () => {
    const pages = lib.generatedPages(25, 10, 7);
    assert.equal(pages.length, 3);
    assert.equal(pages[0].cursor, null);
    assert.equal(pages[2].nextCursor, null);
    assert.deepEqual([...lib.indexPages(pages).values()], [1, 2]);
  });

  test('rendered pages are contract pages with their items range', () => {
    const ids = [];
    lib.generatedPages(25, 10, 7).forEach((meta, i) => {
      const { body, items } = lib.renderGeneratedPage(25, 10, 7, i);
      const page = JSON.parse(body);
      assert.deepEqual(Object.keys(page), ['notes', 'next_cursor']);
      assert.equal(page.next_cursor, meta.nextCursor);
      assert.deepEqual(JSON.parse(body.subarray(...items)), page.notes);
      for (const note of page.notes) assert.equal(typeof note.title, 'string');
      ids.push(...page.notes.map((n) => n.id));
    });
    assert.deepEqual(ids, Array.from({ length: 25 }, (_, i) => `n${i}`));
  });

  test('titles have non-ASCII text and escapes', () => {
    const { body } = lib.renderGeneratedPage(60, 60, 42, 0);
    const text = body.toString();
    assert.match(text, /[^\x00-\x7f]/);
    assert.match(text, /\\u00e9/);
    assert.match(text, /\\"/);
    assert.match(text, /\\\\/);
  });

  test("a note's bytes depend on the seed and its index only, not on the page size", () => {
    const notesOf = (pageSize) => lib.generatedPages(25, pageSize, 7).flatMap((_, i) => {
      const { body, items } = lib.renderGeneratedPage(25, pageSize, 7, i);
      const array = body.subarray(...items);
      return lib.scanNotes(array).map((note) => array.subarray(note.start, note.end).toString());
    });
    const expected = Array.from({ length: 25 }, (_, i) => lib.renderNote(7, i));
    for (const pageSize of [1, 7, 10, 25, 100]) assert.deepEqual(notesOf(pageSize), expected, `page size ${pageSize}`);
    assert.notEqual(lib.renderNote(8, 3), lib.renderNote(7, 3));
    assert.equal(lib.renderNote(7, 3), lib.renderNote(7, 3));
  });

  test('integer ids: from 1, strictly increasing with gaps of one or two, fixed by the seed; back to the index', () => {
    for (const seed of [0, 7, 42, 0xffffffff]) {
      const ids = Array.from({ length: 2000 }, (_, i) => lib.noteId(seed, i, 'int'));
      assert.equal(ids[0], 1);
      for (let i = 1; i < ids.length; i++) {
        assert.ok(Number.isSafeInteger(ids[i]) && ids[i] > ids[i - 1], `seed ${seed}, index ${i}`);
        assert.ok(ids[i] - ids[i - 1] <= 3, `seed ${seed}, index ${i}`);
      }
      // Two of every ten ids are missing, as after deletes.
      assert.ok(ids.at(-1) > 2490 && ids.at(-1) <= 2500);
      assert.ok(ids.some((id, i) => i > 0 && id - ids[i - 1] === 2) && ids.some((id, i) => i > 0 && id - ids[i - 1] === 3));
      const given = new Set(ids);
      for (let id = 1; id <= 2500; id++) assert.equal(lib.intIdIndex(seed, id), given.has(id) ? ids.indexOf(id) : -1, `seed ${seed}, id ${id}`);
      for (const id of [0, -1, 1.5, NaN]) assert.equal(lib.intIdIndex(seed, id), -1);
    }
    assert.deepEqual(Array.from({ length: 10 }, (_, i) => lib.noteId(7, i, 'int')), [1, 2, 4, 5, 6, 7, 8, 10, 11, 12]);
    assert.deepEqual(Array.from({ length: 10 }, (_, i) => lib.noteId(42, i, 'int')), [1, 3, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.notDeepEqual(Array.from({ length: 40 }, (_, i) => lib.noteId(7, i, 'int')), Array.from({ length: 40 }, (_, i) => lib.noteId(8, i, 'int')));
    assert.equal(lib.noteId(7, 3), 'n3');
    assert.equal(lib.lastIntId(7, 0), 0);
    assert.equal(lib.lastIntId(7, 10), 12);
  });

  test('integer ids in notes and pages: the same note otherwise, byte for byte', () => {
    for (let i = 0; i < 30; i++) {
      const plain = lib.renderNote(7, i);
      const int = lib.renderNote(7, i, 'int');
      assert.equal(int, plain.replace(`"id":"n${i}"`, `"id":${lib.noteId(7, i, 'int')}`));
      assert.deepEqual(Object.keys(JSON.parse(int)), ['id', 'title', 'rank', 'pinned']);
    }
    const { body, items } = lib.renderGeneratedPage(25, 10, 7, 1, 'int');
    const page = JSON.parse(body);
    assert.deepEqual(page.notes.map((n) => n.id), Array.from({ length: 10 }, (_, i) => lib.noteId(7, 10 + i, 'int')));
    assert.ok(page.notes.every((n) => typeof n.id === 'number'));
    assert.deepEqual(JSON.parse(body.subarray(...items)), page.notes);
    assert.equal(page.next_cursor, lib.deriveCursor(7, 2));
  });

  test('JSON:API resource objects: the id as a string, the other members as attributes', () => {
    const note = JSON.parse(lib.renderNote(7, 3, 'int', 'jsonapi'));
    const plain = JSON.parse(lib.renderNote(7, 3, 'int'));
    assert.deepEqual(Object.keys(note), ['type', 'id', 'attributes']);
    assert.deepEqual(note, { type: 'notes', id: String(plain.id), attributes: { title: plain.title, rank: plain.rank, pinned: plain.pinned } });
    assert.equal(JSON.parse(lib.renderNote(7, 3, 'string', 'jsonapi')).id, 'n3');
    assert.equal(lib.renderNote(7, 3, 'string', 'jsonapi'), `{"type":"notes","id":"n3","attributes":{${lib.renderNote(7, 3).slice('{"id":"n3",'.length)}}`);
  });

  test('--count 0 is one empty page', () => {
    assert.deepEqual(lib.generatedPages(0, 10, 1), [{ cursor: null, nextCursor: null }]);
    const { body, items } = lib.renderGeneratedPage(0, 10, 1, 0);
    assert.equal(body.toString(), '{"notes":[],"next_cursor":null}');
    assert.equal(body.subarray(...items).toString(), '[]');
  });
});

describe('the list of the offset, page and keyset styles', () => {
  test('without shifts: n0 to n<N-1>', () => {
    const list = new lib.NoteList(5);
    assert.equal(list.length, 5);
    assert.deepEqual(Array.from({ length: 5 }, (_, p) => list.idAt(p)), ['n0', 'n1', 'n2', 'n3', 'n4']);
    assert.deepEqual(['n0', 'n4', 'n5', 'new0', 'n01', 'n-1', 'x', ''].map((id) => list.positionOf(id)), [0, 4, -1, -1, -1, -1, -1, -1]);
    const items = list.render(7, 1, 3);
    assert.equal(items.toString(), `[${lib.renderNote(7, 1)},${lib.renderNote(7, 2)}]`);
    assert.equal(list.render(7, 4, 99).toString(), `[${lib.renderNote(7, 4)}]`);
    assert.equal(list.render(7, 5, 9).toString(), '[]');
  });

  test('one shift puts new0 to new<N-1> first; later shifts go in front and number on', () => {
    const one = new lib.NoteList(3, [2]);
    assert.deepEqual(Array.from({ length: one.length }, (_, p) => one.idAt(p)), ['new0', 'new1', 'n0', 'n1', 'n2']);
    const two = new lib.NoteList(2, [2, 3]);
    const ids = Array.from({ length: two.length }, (_, p) => two.idAt(p));
    assert.deepEqual(ids, ['new2', 'new3', 'new4', 'new0', 'new1', 'n0', 'n1']);
    assert.deepEqual(ids.map((id) => two.positionOf(id)), ids.map((_, p) => p));
    assert.equal(two.positionOf('new5'), -1);
    assert.notEqual(one.signature, two.signature);
    const notes = JSON.parse(two.render(7, 2, 4));
    assert.deepEqual(notes.map((note) => note.id), ['new4', 'new0']);
    assert.deepEqual(Object.keys(notes[0]), ['id', 'title', 'rank', 'pinned']);
    assert.equal(two.render(7, 5, 6).toString(), `[${lib.renderNote(7, 0)}]`);
  });

  test('integer ids: positions by the digits of the id; shifted notes count on from the last id', () => {
    const list = new lib.NoteList(10, [], 'int', 7);
    const ids = Array.from({ length: 10 }, (_, p) => list.idAt(p));
    assert.deepEqual(ids, [1, 2, 4, 5, 6, 7, 8, 10, 11, 12]);
    assert.deepEqual(ids.map((id) => list.positionOf(String(id))), ids.map((_, p) => p));
    for (const text of ['3', '9', '13', '0', '01', '-1', 'n1', '1.0', '', ' 1']) assert.equal(list.positionOf(text), -1, text);
    const shifted = new lib.NoteList(10, [2, 3], 'int', 7);
    const all = Array.from({ length: shifted.length }, (_, p) => shifted.idAt(p));
    assert.deepEqual(all, [15, 16, 17, 13, 14, ...ids]);
    assert.deepEqual(all.map((id) => shifted.positionOf(String(id))), all.map((_, p) => p));
    assert.equal(shifted.positionOf('18'), -1);
    const notes = JSON.parse(shifted.render(7, 4, 6));
    assert.deepEqual(notes.map((n) => n.id), [14, 1]);
    assert.deepEqual(Object.keys(notes[0]), ['id', 'title', 'rank', 'pinned']);
    assert.deepEqual(JSON.parse(shifted.render(7, 4, 6, 'jsonapi')).map((n) => n.id), ['14', '1']);
    assert.equal(new lib.NoteList(0, [1], 'int', 7).idAt(0), 1);
  });

  describe('parseListQuery', () => {
    const settings = { pageSize: 10, maxLimit: 50, totals: { count: true, header: true, link: true, pages: true } };
    const parse = (style, query) => lib.parseListQuery(style, new URLSearchParams(query), settings);

    test('defaults and caps', () => {
      assert.deepEqual(parse('offset', ''), { offset: 0, limit: 10, totals: settings.totals });
      assert.deepEqual(parse('offset', 'offset=30&limit=7&page=9'), { offset: 30, limit: 7, totals: settings.totals });
      assert.equal(parse('offset', 'limit=51').limit, 50);
      assert.equal(parse('offset', `limit=${'9'.repeat(40)}`).limit, 50);
      assert.deepEqual(parse('page', 'page=3&per_page=500&limit=2'), { page: 3, limit: 50, totals: settings.totals });
      assert.deepEqual(parse('page', 'totals=none'), { page: 1, limit: 10, totals: { count: false, header: false, link: false, pages: false } });
      assert.deepEqual(parse('keyset', 'starting_after=n3&limit=4&totals=bogus'), { startingAfter: 'n3', limit: 4 });
      assert.deepEqual(parse('keyset', ''), { startingAfter: null, limit: 10 });
      assert.equal(lib.parseListQuery('offset', new URLSearchParams(''), { ...settings, pageSize: 80 }).limit, 50);
    });

    test('drf (page, page_size) and jsonapi (page[number], page[size], raw or percent-encoded), capped alike', () => {
      assert.deepEqual(parse('drf', 'page=3&page_size=7&per_page=1'), { page: 3, limit: 7, totals: settings.totals });
      assert.deepEqual(parse('drf', 'page_size=51&totals=count'), { page: 1, limit: 50, totals: { count: true, header: false, link: false, pages: false } });
      assert.deepEqual(parse('jsonapi', 'page[number]=2&page[size]=4&page=9'), { page: 2, limit: 4, totals: settings.totals });
      assert.deepEqual(parse('jsonapi', 'page%5Bnumber%5D=2&page%5bsize%5d=4'), { page: 2, limit: 4, totals: settings.totals });
      assert.deepEqual(parse('jsonapi', 'page%5Bsize%5D=500'), { page: 1, limit: 50, totals: settings.totals });
      assert.deepEqual(parse('jsonapi', ''), { page: 1, limit: 10, totals: settings.totals });
      assert.deepEqual(Object.keys(lib.LIMIT_NAMES).sort(),
        ['drf', 'dynamodb', 'eve', 'jsonapi', 'keyset', 'next-page', 'offset', 'offset-echo', 'ogc', 'page', 'page-echo', 'x-pagination']);
    });

    test('drf and jsonapi read values as Django REST framework does: the last one, by int(); a bad size is the default', () => {
      assert.deepEqual(parse('drf', 'page=2&page=3&page_size=4&page_size=6'), { page: 3, limit: 6, totals: settings.totals });
      assert.deepEqual(parse('drf', 'page=+2&page_size=%204%20'), { page: 2, limit: 4, totals: settings.totals });
      assert.deepEqual(parse('drf', 'page=1_0&page_size=1_2'), { page: 10, limit: 12, totals: settings.totals });
      for (const size of ['0', '-3', 'x', '', '2.5', '1e2']) assert.equal(parse('drf', `page_size=${size}`).limit, 10, size);
      for (const size of ['0', '-3', 'big']) assert.equal(parse('jsonapi', `page[size]=${size}`).limit, 10, size);
      for (const page of ['x', '', '2.0', '1e1', '_1', '1__0']) assert.equal(parse('drf', `page=${page}`).page, null, page);
      assert.equal(parse('drf', 'page=0').page, 0);
      assert.equal(parse('drf', 'page=-2').page, -2);
      assert.equal(parse('drf', 'page=last').page, 'last');
      assert.equal(parse('jsonapi', 'page[number]=last').page, 'last');
      assert.equal(parse('jsonapi', 'page%5Bnumber%5D=abc').page, null);
    });

    test('resolvePageNumber: the pages that Django\'s Paginator has; page 1 always; last', () => {
      assert.deepEqual([1, 2, 3, 4, 0, -1, null, 2.5].map((page) => lib.resolvePageNumber(page, 25, 10)), [1, 2, 3, null, null, null, null, null]);
      assert.equal(lib.resolvePageNumber('last', 25, 10), 3);
      assert.equal(lib.resolvePageNumber('last', 0, 10), 1);
      assert.equal(lib.resolvePageNumber(1, 0, 10), 1);
      assert.equal(lib.resolvePageNumber(2, 0, 10), null);
      assert.equal(lib.resolvePageNumber(30, 30, 1), 30);
    });

    for (const [style, query, message] of [
      ['offset', 'offset=-1', /offset must be an integer of at least 0, not '-1'/],
      ['offset', 'offset=1.5', /offset must be an integer/],
      ['offset', 'offset=', /offset must be an integer/],
      ['offset', 'offset=+3', /offset must be an integer/],
      ['offset', 'offset=99999999999999999999', /offset must be at most 9007199254740991/],
      ['offset', 'limit=0', /limit must be an integer of at least 1/],
      ['offset', 'limit=ten', /limit must be an integer/],
      ['offset', 'offset=1&offset=2', /more than one offset/],
      ['offset', 'totals=bogus', /totals= takes/],
      ['page', 'page=0', /page must be an integer of at least 1/],
      ['page', 'page=x', /page must be an integer/],
      ['page', 'per_page=0', /per_page must be an integer of at least 1/],
      ['page', 'totals=none&totals=count', /more than one totals/],
      ['keyset', 'limit=-5', /limit must be an integer/],
      ['keyset', 'starting_after=a&starting_after=b', /more than one starting_after/],
      ['drf', 'totals=some', /totals= takes/],
      ['jsonapi', 'totals=none&totals=none', /more than one totals/],
    ]) {
      test(`${style}: rejects ${query}`, () => {
        assert.throws(() => parse(style, query), (error) => error instanceof lib.UsageError && message.test(error.message));
      });
    }
  });
});

describe('manifest', () => {
  const entry = (i, cursor, next) => ({ file: `pages/0000${i}.json`, cursor, next_cursor: next, notes: 1, bytes: 30, items: [9, 20] });
  const manifest = (pages) => ({ format: 'notes-gen/1', pages });

  test('reads pages', () => {
    const pages = lib.readManifest(manifest([entry(0, null, 'a+/='), entry(1, 'a+/=', null)]));
    assert.deepEqual(pages[1], { file: 'pages/00001.json', cursor: 'a+/=', nextCursor: null, items: [9, 20], notes: 1 });
    assert.deepEqual([...lib.indexPages(pages)], [['a+/=', 1]]);
  });

  test("a page's note count, or null where the entry has none that is a count", () => {
    for (const [notes, expected] of [[0, 0], [7, 7], [undefined, null], [-1, null], [1.5, null], ['3', null]]) {
      assert.equal(lib.readManifest(manifest([{ ...entry(0, null, null), notes }]))[0].notes, expected, String(notes));
    }
  });

  for (const [what, value, message] of [
    ['format', { format: 'other', pages: [] }, /format/],
    ['no pages', manifest([]), /non-empty/],
    ['file outside', manifest([{ ...entry(0, null, null), file: '../x.json' }]), /inside the directory/],
    ['absolute file', manifest([{ ...entry(0, null, null), file: '/etc/passwd' }]), /inside the directory/],
    ['cursor type', manifest([{ ...entry(0, null, null), next_cursor: 2 }]), /strings or null/],
    ['items', manifest([{ ...entry(0, null, null), items: [5, 5] }]), /byte range/],
  ]) {
    test(`rejects ${what}`, () => {
      assert.throws(() => lib.readManifest(value), (error) => error instanceof lib.ManifestError && message.test(error.message));
    });
  }

  for (const [what, pages, message] of [
    ['a first cursor', [entry(0, 'x', null)], /cursor null/],
    ['a broken chain', [entry(0, null, 'a'), entry(1, 'b', null)], /does not name page 2/],
    ['a repeated cursor', [entry(0, null, 'a'), entry(1, 'a', 'a'), entry(2, 'a', null)], /repeats/],
  ]) {
    test(`rejects ${what}`, () => {
      assert.throws(() => lib.indexPages(lib.readManifest(manifest(pages))), message);
    });
  }

  test('checkItems', () => {
    const body = Buffer.from('{"notes":[{}],"next_cursor":null}');
    lib.checkItems(body, [9, 13], 'p');
    assert.throws(() => lib.checkItems(body, [9, 12], 'p'), /not the notes array/);
    assert.throws(() => lib.checkItems(body, [9, 99], 'p'), /not the notes array/);
  });
});

describe('envelopes', () => {
  const items = [Buffer.from('[{"id":"a","title":"t"}]')];
  const nav = { nextCursor: 'c+/=', nextUrl: 'http://h:1/notes?cursor=c%2B%2F%3D', prevUrl: 'http://h:1/notes' };

  test('pageUrl percent-encodes cursors and keeps carried parameters', () => {
    assert.equal(lib.pageUrl('http://h:1', null), 'http://h:1/notes');
    assert.equal(lib.pageUrl('http://h:1', 'a+b/c= d&#'), 'http://h:1/notes?cursor=a%2Bb%2Fc%3D%20d%26%23');
    assert.equal(lib.pageUrl('http://h:1', 'c', [['style', 'drf'], ['fault', '503@2x1']]), 'http://h:1/notes?cursor=c&style=drf&fault=503%402x1');
    assert.equal(lib.pageUrl('http://h:1', null, [['style', 'link']]), 'http://h:1/notes?style=link');
  });

  test('contract', () => {
    const page = lib.wrapPage('contract', items, nav);
    assert.deepEqual(page.headers, {});
    assert.equal(bytes(page.parts).toString(), '{"notes":[{"id":"a","title":"t"}],"next_cursor":"c+/="}');
    assert.equal(bytes(lib.wrapPage('contract', items, { nextCursor: null, nextUrl: null, prevUrl: null }).parts).toString(),
      '{"notes":[{"id":"a","title":"t"}],"next_cursor":null}');
  });

  test('drf', () => {
    const page = lib.wrapPage('drf', items, nav);
    assert.equal(bytes(page.parts).toString(),
      '{"next":"http://h:1/notes?cursor=c%2B%2F%3D","previous":"http://h:1/notes","results":[{"id":"a","title":"t"}]}');
  });

  test('link', () => {
    const page = lib.wrapPage('link', items, nav);
    assert.equal(bytes(page.parts).toString(), '[{"id":"a","title":"t"}]');
    assert.equal(page.headers.Link, '<http://h:1/notes>; rel="prev", <http://h:1/notes?cursor=c%2B%2F%3D>; rel="next"');
    assert.deepEqual(lib.wrapPage('link', items, { nextCursor: null, nextUrl: null, prevUrl: null }).headers, {});
  });

  test('header', () => {
    const page = lib.wrapPage('header', items, nav);
    assert.deepEqual(page.headers, { 'X-Next-Cursor': 'c+/=' });
    assert.equal(bytes(page.parts).toString(), '{"notes":[{"id":"a","title":"t"}]}');
    assert.deepEqual(lib.wrapPage('header', items, { nextCursor: null }).headers, {});
  });

  const totals = { count: 7, totalPages: 3, totalHeader: 7, lastUrl: 'http://h:1/notes?page=3&per_page=3' };
  const none = { count: null, totalPages: null, totalHeader: null, lastUrl: null };

  test('offset: count first, X-Total-Count; no Link', () => {
    const page = lib.wrapPage('offset', items, { nextUrl: 'http://h:1/notes?offset=3&limit=3', prevUrl: null, ...totals });
    assert.deepEqual(page.headers, { 'X-Total-Count': '7' });
    assert.equal(bytes(page.parts).toString(), '{"count":7,"next":"http://h:1/notes?offset=3&limit=3","previous":null,"results":[{"id":"a","title":"t"}]}');
    const bare = lib.wrapPage('offset', items, { nextUrl: null, prevUrl: 'http://h:1/notes?offset=0&limit=3', ...none });
    assert.deepEqual(bare.headers, {});
    assert.equal(bytes(bare.parts).toString(), '{"next":null,"previous":"http://h:1/notes?offset=0&limit=3","results":[{"id":"a","title":"t"}]}');
  });

  test('page: count and total_pages first, Link next and last, X-Total-Count', () => {
    const next = 'http://h:1/notes?page=2&per_page=3';
    const page = lib.wrapPage('page', items, { nextUrl: next, prevUrl: null, ...totals });
    assert.deepEqual(page.headers, { 'X-Total-Count': '7', Link: `<${next}>; rel="next", <${totals.lastUrl}>; rel="last"` });
    assert.equal(bytes(page.parts).toString(), `{"count":7,"total_pages":3,"next":"${next}","previous":null,"results":[{"id":"a","title":"t"}]}`);
    assert.deepEqual(lib.wrapPage('page', items, { nextUrl: next, prevUrl: null, ...none }).headers, { Link: `<${next}>; rel="next"` });
    assert.deepEqual(lib.wrapPage('page', items, { nextUrl: null, prevUrl: null, ...none }).headers, {});
    assert.equal(bytes(lib.wrapPage('page', items, { nextUrl: null, prevUrl: null, ...none, totalPages: 1 }).parts).toString(),
      '{"total_pages":1,"next":null,"previous":null,"results":[{"id":"a","title":"t"}]}');
  });

  test('keyset', () => {
    const page = lib.wrapPage('keyset', items, { hasMore: true });
    assert.deepEqual(page.headers, {});
    assert.equal(bytes(page.parts).toString(), '{"object":"list","data":[{"id":"a","title":"t"}],"has_more":true,"url":"/notes"}');
    assert.equal(bytes(lib.wrapPage('keyset', [Buffer.from('[]')], { hasMore: false }).parts).toString(), '{"object":"list","data":[],"has_more":false,"url":"/notes"}');
  });

  test('drf with a count (with --id-kind int)', () => {
    const page = lib.wrapPage('drf', items, { ...nav, count: 7 });
    assert.deepEqual(page.headers, {});
    assert.equal(bytes(page.parts).toString(),
      '{"count":7,"next":"http://h:1/notes?cursor=c%2B%2F%3D","previous":"http://h:1/notes","results":[{"id":"a","title":"t"}]}');
    assert.equal(bytes(lib.wrapPage('drf', items, { ...nav, count: null }).parts).toString(), bytes(lib.wrapPage('drf', items, nav).parts).toString());
  });

  test('jsonapi: links, data, meta.pagination; the JSON:API media type; totals left out when off', () => {
    const links = { first: 'http://h:1/notes?page%5Bnumber%5D=1', last: 'http://h:1/notes?page%5Bnumber%5D=3', next: 'http://h:1/notes?page%5Bnumber%5D=3', prev: 'http://h:1/notes?page%5Bnumber%5D=1' };
    const resources = [Buffer.from('[{"type":"notes","id":"1","attributes":{"title":"t"}}]')];
    const page = lib.wrapPage('jsonapi', resources, { links, page: 2, pages: 3, count: 7 });
    assert.deepEqual(page.headers, { 'Content-Type': 'application/vnd.api+json' });
    assert.equal(bytes(page.parts).toString(), `{"links":${JSON.stringify(links)},"data":[{"type":"notes","id":"1","attributes":{"title":"t"}}],"meta":{"pagination":{"page":2,"pages":3,"count":7}}}`);
    const bare = JSON.parse(bytes(lib.wrapPage('jsonapi', [Buffer.from('[]')], { links: { ...links, last: null, next: null }, page: 4, pages: null, count: null }).parts));
    assert.deepEqual(bare, { links: { first: links.first, next: null, prev: links.prev }, data: [], meta: { pagination: { page: 4 } } });
  });

  test('djangoUrl: the query with one parameter replaced or removed, sorted by name, encoded as quote_plus', () => {
    const pairs = [['style', 'jsonapi'], ['page[size]', '100'], ['fault', 'delay:1'], ['fault', '503@2'], ['page[number]', '1']];
    assert.equal(lib.djangoUrl('http://h:1', pairs, 'page[number]', 2),
      'http://h:1/notes?fault=delay%3A1&fault=503%402&page%5Bnumber%5D=2&page%5Bsize%5D=100&style=jsonapi');
    assert.equal(lib.djangoUrl('http://h:1', [['page', '2'], ['style', 'drf']], 'page', null), 'http://h:1/notes?style=drf');
    assert.equal(lib.djangoUrl('http://h:1', [['page', '2']], 'page', null), 'http://h:1/notes');
    assert.equal(lib.djangoUrl('http://h:1', [['q', "a b!'()*~._-é"]], 'page', 3), "http://h:1/notes?page=3&q=a+b%21%27%28%29%2A~._-%C3%A9");
    assert.equal(lib.quotePlus('page[number]'), 'page%5Bnumber%5D');
  });

  test('jsonapi requests: Accept negotiation and the query parameter filter', () => {
    for (const accept of [undefined, '*/*', 'application/*', 'application/vnd.api+json', 'text/html, application/vnd.api+json;q=0.9',
      'Application/VND.API+JSON', 'application/vnd.api+json; ext="https://example.com/ext"', 'text/html,*/*;q=0.8']) {
      assert.ok(lib.acceptsJsonApi(accept), accept);
    }
    for (const accept of ['', 'application/json', 'text/html', 'application/vnd.api+jsonx', 'application/json, text/*']) assert.ok(!lib.acceptsJsonApi(accept), accept);
    const problem = (query) => lib.jsonApiQueryProblem(new URLSearchParams(query));
    for (const query of ['', 'page[number]=2&page[size]=3', 'page%5Bnumber%5D=2', 'sort=-id&include=author&fields[notes]=title&filter[x]=1&filter[x]=2',
      'style=jsonapi&fault=503@2&fault=delay:1&totals=none&compress=gzip', 'page=2', 'page[cursor]=x']) {
      assert.equal(problem(query), null, query);
    }
    assert.equal(problem('foo=1'), 'invalid query parameter: foo');
    assert.equal(problem('page[number]=1&cursor=abc'), 'invalid query parameter: cursor');
    assert.equal(problem('page_size=10'), 'invalid query parameter: page_size');
    assert.equal(problem('page[a][b]=1'), 'invalid query parameter: page[a][b]');
    assert.equal(problem('page[size]=1&page%5Bsize%5D=2'), 'repeated query parameter not allowed: page[size]');
    assert.equal(problem('sort=a&sort=b'), 'repeated query parameter not allowed: sort');
    assert.deepEqual(lib.jsonApiErrorBody(406, 'not_acceptable', 'No.'), { errors: [{ detail: 'No.', status: '406', source: { pointer: '/data' }, code: 'not_acceptable' }] });
  });

  test('notesUrl', () => {
    assert.equal(lib.notesUrl('http://h:1', [['offset', '3'], ['limit', '2'], ['fault', 'shift:2@2']]), 'http://h:1/notes?offset=3&limit=2&fault=shift%3A2%402');
    assert.equal(lib.notesUrl('http://h:1', []), 'http://h:1/notes');
  });

  test('formatLinkHeader', () => {
    assert.equal(lib.formatLinkHeader([{ url: 'http://a/n?cursor=x', rel: 'next' }]), '<http://a/n?cursor=x>; rel="next"');
  });
});

describe('body parts', () => {
  test('fills stream exactly their length of the repeated pattern', () => {
    const parts = [Buffer.from('<'), lib.fill('abc', 10), Buffer.from('>')];
    assert.equal(lib.partsLength(parts), 12);
    for (const size of [1, 2, 3, 4, 7, 100]) {
      const pieces = [...lib.chunks(parts, size)];
      assert.ok(pieces.every((piece) => piece.length <= size && piece.length > 0));
      assert.equal(Buffer.concat(pieces).toString(), '<abcabcabca>');
    }
  });
});

describe('compression, bombs and rate limits', () => {
  const offered = ['gzip', 'deflate', 'br'];
  for (const [header, list, expected] of [
    [undefined, offered, null],
    ['', offered, null],
    ['identity', offered, null],
    ['gzip', offered, 'gzip'],
    ['br', offered, 'br'],
    ['gzip, deflate, br', offered, 'gzip'],
    ['gzip, deflate, br', ['br', 'gzip'], 'br'],
    ['gzip;q=0.5, br', offered, 'br'],
    ['GZIP ; Q=0.8, deflate;q=0.9', offered, 'deflate'],
    ['x-gzip', offered, 'gzip'],
    ['*', ['deflate', 'gzip'], 'deflate'],
    ['*;q=0.1, gzip;q=0', offered, 'deflate'],
    ['gzip;q=0', offered, null],
    ['gzip;q=2, br', offered, 'br'],
    ['gzip;q=abc', offered, null],
    ['br', ['gzip'], null],
    ['gzip', [], null],
  ]) {
    test(`chooseEncoding(${JSON.stringify(header)}, ${list.join(',') || 'nothing'}) is ${expected}`, () => {
      assert.equal(lib.chooseEncoding(header, list), expected);
    });
  }

  test('parseCompress', () => {
    assert.deepEqual(lib.parseCompress('deflate', 'x'), ['deflate']);
    assert.deepEqual(lib.parseCompress(' none ', 'x'), []);
    assert.throws(() => lib.parseCompress('gzip,none', 'compress='), /compress= takes a comma-separated list/);
  });

  test('bombChunks: exactly BYTES of an endless notes array with unique ids, in bounded chunks', () => {
    for (const [bytes, chunkBytes] of [[0, 16], [5, 16], [10, 4], [65_100, 1000], [300_000, 1 << 16], [1_000_003, 1 << 20]]) {
      const chunks = [...lib.bombChunks(bytes, chunkBytes)];
      assert.ok(chunks.every((chunk) => chunk.length > 0 && chunk.length <= chunkBytes));
      const text = Buffer.concat(chunks).toString();
      assert.equal(text.length, bytes);
      assert.equal(text, '{"notes":['.slice(0, bytes) + text.slice(10));
      if (bytes < 10) continue;
      const complete = text.lastIndexOf('"}');
      const notes = complete === -1 ? [] : JSON.parse(`${text.slice(0, complete + 2)}]}`).notes;
      // What follows the last whole note is less than one more note.
      assert.ok(text.length - (complete + 2) < lib.BOMB_TITLE_BYTES + 40);
      assert.equal(notes.length > 0, bytes > 65_100 - 1);
      assert.deepEqual(notes.map((note) => note.id), notes.map((_, i) => `bomb${i}`));
      assert.ok(notes.every((note) => note.title === 'z'.repeat(lib.BOMB_TITLE_BYTES)));
    }
  });

  test('rate limit responses: GitHub, the IETF draft, Retry-After; resets rounded up to the second', () => {
    const fault = (spec) => lib.parseFault(spec, 'request');
    const now = 1_700_000_000_250; // epoch ms, a quarter second past a second
    assert.deepEqual(lib.rateLimitResponse(fault('ratelimit-github:30'), now), {
      status: 403,
      headers: {
        'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1700000031',
        'X-RateLimit-Used': '60', 'X-RateLimit-Resource': 'core',
      },
      body: { message: 'API rate limit exceeded' },
    });
    assert.equal(lib.githubRateHeaders(0, 1_700_000_000_000)['X-RateLimit-Reset'], '1700000000');
    const graphql = lib.rateLimitResponse(lib.parseFault('graphql-ratelimit', 'flag', 0), 1_700_000_000_000);
    assert.equal(graphql.status, 200);
    assert.deepEqual(graphql.body, { data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] });
    assert.equal(graphql.headers['X-RateLimit-Remaining'], '0');
    assert.equal(graphql.headers['X-RateLimit-Reset'], '1700000001');
    assert.equal(graphql.headers['X-RateLimit-Resource'], 'graphql');
    const ietf = lib.rateLimitResponse(fault('ratelimit-ietf'), now);
    assert.equal(ietf.status, 429);
    assert.deepEqual(ietf.headers, { RateLimit: 'limit=10, remaining=0, reset=1', 'RateLimit-Policy': '10;w=60' });
    const secondary = lib.rateLimitResponse(fault('ratelimit-retry-after:7'), now);
    assert.equal(secondary.status, 403);
    assert.deepEqual(secondary.headers, { 'Retry-After': '7' });
  });
});

describe('scanNotes and content faults', () => {
  const itemsOf = (text) => Buffer.from(text);

  test('finds notes, ids and titles in the contract fixtures without decoding them', () => {
    const valid = contract('valid-page.json');
    const items = valid.subarray(valid.indexOf('['), valid.lastIndexOf(']') + 1);
    const notes = lib.scanNotes(items);
    assert.equal(notes.length, 3);
    assert.deepEqual(notes.map((n) => items.subarray(...n.id).toString()), ['"n1"', '"n2"', '"n3"']);
    assert.equal(items.subarray(...notes[1].title).toString(), '"Caf\\u00e9 \\"quotes\\" \\\\ back\\/slash"');
    assert.deepEqual(notes.map((n) => JSON.parse(items.subarray(n.start, n.end)).id), ['n1', 'n2', 'n3']);
  });

  test('JSON:API resource objects: the id, and the title among the attributes', () => {
    const items = Buffer.from(`[${lib.renderNote(7, 0, 'int', 'jsonapi')},${lib.renderNote(7, 1, 'int', 'jsonapi')}]`);
    const notes = lib.scanNotes(items);
    assert.equal(notes.length, 2);
    assert.equal(items.subarray(...notes[0].id).toString(), '"1"');
    assert.equal(JSON.parse(items.subarray(...notes[1].title)), JSON.parse(lib.renderNote(7, 1)).title);
    assert.equal(notes[0].members, 3);
    const huge = JSON.parse(bytes(lib.applyContentFaults(items, [lib.parseFault('huge-title:5', 'request')], null)));
    assert.equal(huge[0].attributes.title, 'huge ');
    const duplicated = JSON.parse(bytes(lib.applyContentFaults(items, [lib.parseFault('duplicate-id', 'request')], Buffer.from('"1"'))));
    assert.deepEqual(duplicated.map((n) => n.id), ['1', '1']);
  });

  test('ids of nested objects are not note ids', () => {
    const unknown = JSON.parse(contract('unknown-fields.json'));
    const items = itemsOf(JSON.stringify(unknown.notes));
    assert.deepEqual(lib.scanNotes(items).map((n) => items.subarray(...n.id).toString()), ['"x1"', '"x2"']);
  });

  test('non-objects, empty objects, deep nesting, whitespace', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const items = itemsOf(` [ "s" , {} , {"x": ${deep}, "id" : "d"}, 3 ] `);
    const notes = lib.scanNotes(items);
    assert.deepEqual(notes.map((n) => [n.object, n.members]), [[false, 0], [true, 0], [true, 2], [false, 0]]);
    assert.equal(items.subarray(...notes[2].id).toString(), '"d"');
    assert.deepEqual(lib.scanNotes(itemsOf('[]')), []);
  });

  for (const bad of ['{}', '[', '[{"id" "x"}]', '[{"id":"x}]', '[1 2]', '[{"a":}]']) {
    test(`throws on ${bad}`, () => assert.throws(() => lib.scanNotes(itemsOf(bad)), /scanNotes/));
  }

  test('firstNoteId', () => {
    assert.equal(lib.firstNoteId(itemsOf('[{"title":"t","id":"first"},{"id":"b"}]')).toString(), '"first"');
    assert.equal(lib.firstNoteId(itemsOf('[]')), null);
  });

  const items = itemsOf('[{"id":"a","title":"one"},{"id":"b","title":"two"}]');
  const apply = (spec, firstId = Buffer.from('"z"')) => bytes(lib.applyContentFaults(items, parseFaults(spec), firstId)).toString();

  test('duplicate-id gives the last note the first id of page 1', () => {
    assert.equal(apply('duplicate-id'), '[{"id":"a","title":"one"},{"id":"z","title":"two"}]');
  });

  test('huge-title replaces the first title', () => {
    assert.equal(apply('huge-title:14'), '[{"id":"a","title":"huge title hug"},{"id":"b","title":"two"}]');
  });

  test('deep adds nested arrays to the first note', () => {
    assert.equal(apply('deep:3'), '[{"deep":[[[]]],"id":"a","title":"one"},{"id":"b","title":"two"}]');
    assert.equal(bytes(lib.applyContentFaults(itemsOf('[{}]'), parseFaults('deep:1'), null)).toString(), '[{"deep":[]}]');
  });

  test('several at once, and nothing to act on', () => {
    assert.equal(bytes(lib.applyContentFaults(items, parseFaults('duplicate-id', 'huge-title:2', 'deep:1'), Buffer.from('"z"'))).toString(),
      '[{"deep":[],"id":"a","title":"hu"},{"id":"z","title":"two"}]');
    assert.equal(bytes(lib.applyContentFaults(itemsOf('[]'), parseFaults('duplicate-id', 'huge-title', 'deep'), Buffer.from('"z"'))).toString(), '[]');
    assert.equal(apply('duplicate-id', null), items.toString());
  });
});

describe('PageCache', () => {
  const page = (size) => ({ body: Buffer.alloc(size) });

  test('evicts the least recently used pages past its capacity', async () => {
    const loads = [];
    const load = async (i) => { loads.push(i); return page(10); };
    const cache = new lib.PageCache(25);
    await cache.get(0, load);
    await cache.get(1, load);
    await cache.get(0, load); // 0 is now the most recently used
    await cache.get(2, load); // evicts 1
    await cache.get(0, load);
    await cache.get(1, load);
    assert.deepEqual(loads, [0, 1, 2, 1]);
    assert.ok(cache.size <= 25);
  });

  test('keeps a page larger than its capacity until the next load', async () => {
    const cache = new lib.PageCache(5);
    const big = await cache.get(0, async () => page(10));
    assert.equal(await cache.get(0, async () => assert.fail('reloaded')), big);
  });

  test('shares one load between concurrent requests, and forgets failures', async () => {
    const cache = new lib.PageCache(100);
    let loads = 0;
    const load = async () => { loads++; await new Promise((resolve) => setImmediate(resolve)); return page(1); };
    const [a, b] = await Promise.all([cache.get(7, load), cache.get(7, load)]);
    assert.equal(a, b);
    assert.equal(loads, 1);
    await assert.rejects(cache.get(8, async () => { throw new Error('disk'); }), /disk/);
    assert.equal((await cache.get(8, async () => page(2))).body.length, 2);
  });
});

describe('redactTarget', () => {
  test('credential-like query parameters', () => {
    assert.equal(lib.redactTarget('/notes?cursor=abc&token=s3&access_token=x&api_key=k&X-Amz-Signature=q&style=drf', []),
      '/notes?cursor=abc&token=REDACTED&access_token=REDACTED&api_key=REDACTED&X-Amz-Signature=REDACTED&style=drf');
  });

  test('the configured token anywhere, however encoded', () => {
    const secret = 'se+cr/et';
    assert.equal(lib.redactTarget('/notes?q=se%2Bcr%2Fet', [secret]), '/notes?q=REDACTED');
    assert.equal(lib.redactTarget('/notes?q=xse+cr/ety', [secret]), '/notes?q=REDACTED');
    assert.equal(lib.redactTarget('/se%2bcr%2fet/notes?cursor=c', [secret]), '/REDACTED?cursor=c');
    assert.equal(lib.redactTarget('/notes?se%2Bcr%2Fet', [secret]), '/notes?REDACTED');
  });

  test('leaves the rest alone', () => {
    assert.equal(lib.redactTarget('/notes?cursor=a%2B%2F%3D&fault=500', ['zzz']), '/notes?cursor=a%2B%2F%3D&fault=500');
    assert.equal(lib.redactTarget('/other', []), '/other');
  });
});

describe('GraphQL connections', () => {
  test('GraphQL-over-HTTP bodies: a query, optional variables and operationName; anything else is a UsageError', () => {
    assert.deepEqual(lib.parseGraphQLRequest('{"query":"{ notes { totalCount } }"}'), { query: '{ notes { totalCount } }', variables: null, operationName: null });
    assert.deepEqual(lib.parseGraphQLRequest('{"query":"q","variables":{"first":2},"operationName":"Q","extensions":{}}'),
      { query: 'q', variables: { first: 2 }, operationName: 'Q' });
    assert.deepEqual(lib.parseGraphQLRequest('{"query":"q","variables":null,"operationName":null}'), { query: 'q', variables: null, operationName: null });
    for (const [text, message] of [['', /not JSON/], ['{"query":', /not JSON/], ['[{"query":"q"}]', /not a JSON object/], ['"q"', /not a JSON object/],
      ['{}', /no query/], ['{"query":" "}', /no query/], ['{"query":5}', /no query/], ['{"query":"q","variables":[1]}', /'variables' must be/],
      ['{"query":"q","variables":"{}"}', /'variables' must be/], ['{"query":"q","operationName":1}', /'operationName' must be/]]) {
      assert.throws(() => lib.parseGraphQLRequest(text), (error) => error instanceof lib.UsageError && message.test(error.message), text);
    }
  });

  test("cursors: base64 of arrayconnection:POSITION, as graphql-relay writes them; only those, written exactly so", () => {
    assert.equal(lib.relayCursor(0), 'YXJyYXljb25uZWN0aW9uOjA=');
    assert.equal(Buffer.from(lib.relayCursor(123), 'base64').toString(), 'arrayconnection:123');
    for (const position of [0, 1, 9, 10, 99, 12345]) assert.equal(lib.relayPosition(lib.relayCursor(position)), position);
    const b64 = (text) => Buffer.from(text).toString('base64');
    for (const cursor of ['', 'nope', b64('arrayconnection:'), b64('arrayconnection:-1'), b64('arrayconnection:01'), b64('arrayconnection:1.5'),
      b64('cursor:1'), 'YXJyYXljb25uZWN0aW9uOjA', `${lib.relayCursor(1)}\n`, lib.relayCursor(1).replace('=', '')]) {
      assert.equal(lib.relayPosition(cursor), null, cursor);
    }
  });

  test('connectionSlice: first default 10, at most 100, not negative; after a known cursor only; --max-limit cuts; @PAGE', () => {
    assert.deepEqual(lib.connectionSlice({}, 25), { start: 0, end: 10, size: 10, page: 1 });
    assert.deepEqual(lib.connectionSlice({ first: null, after: null }, 25), { start: 0, end: 10, size: 10, page: 1 });
    assert.deepEqual(lib.connectionSlice({ first: 10, after: lib.relayCursor(9) }, 25), { start: 10, end: 20, size: 10, page: 2 });
    assert.deepEqual(lib.connectionSlice({ first: 10, after: lib.relayCursor(19) }, 25), { start: 20, end: 25, size: 10, page: 3 });
    assert.deepEqual(lib.connectionSlice({ first: 10, after: lib.relayCursor(24) }, 25), { start: 25, end: 25, size: 10, page: 3 });
    assert.deepEqual(lib.connectionSlice({ first: 100 }, 1000), { start: 0, end: 100, size: 100, page: 1 });
    assert.deepEqual(lib.connectionSlice({ first: 0 }, 5), { start: 0, end: 0, size: 0, page: 1 });
    assert.deepEqual(lib.connectionSlice({ first: 50 }, 500, { maxLimit: 20 }), { start: 0, end: 20, size: 20, page: 1 });
    assert.deepEqual(lib.connectionSlice({}, 0), { start: 0, end: 0, size: 10, page: 1 });
    assert.throws(() => lib.connectionSlice({ first: 101 }, 500), { message: 'Requesting 101 records on the `notes` connection exceeds the `first` limit of 100 records.' });
    assert.throws(() => lib.connectionSlice({ first: -1 }, 500), /cannot be less than zero/);
    assert.throws(() => lib.connectionSlice({ after: 'nope' }, 500), { message: '`nope` does not appear to be a valid cursor.' });
    assert.throws(() => lib.connectionSlice({ after: lib.relayCursor(25) }, 25), /not appear to be a valid cursor/);
  });

  test('connectionPage: cursors and pageInfo as GitHub writes them; the last page keeps its endCursor', () => {
    const page = (start, end, length, faults) => lib.connectionPage({ start, end }, length, faults);
    const first = page(0, 3, 5);
    assert.deepEqual(first.cursors, [0, 1, 2].map(lib.relayCursor));
    assert.deepEqual(first.pageInfo, { hasNextPage: true, hasPreviousPage: false, startCursor: lib.relayCursor(0), endCursor: lib.relayCursor(2) });
    assert.deepEqual(page(3, 5, 5).pageInfo, { hasNextPage: false, hasPreviousPage: true, startCursor: lib.relayCursor(3), endCursor: lib.relayCursor(4) });
    assert.deepEqual(page(0, 0, 0).pageInfo, { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
    assert.deepEqual(page(5, 5, 5).pageInfo, { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
  });

  test('connectionPage faults: cycle names the cursor that asked for the page; endless never ends, repeating the cursor past the last note', () => {
    const cycle = lib.connectionPage({ start: 3, end: 6 }, 10, { cycle: true });
    assert.deepEqual(cycle.cursors, [3, 4, 5].map(lib.relayCursor));
    assert.equal(cycle.pageInfo.endCursor, lib.relayCursor(2));
    assert.equal(cycle.pageInfo.hasNextPage, true);
    // Page 1: nothing asked for it, so nothing to cycle to.
    assert.equal(lib.connectionPage({ start: 0, end: 3 }, 10, { cycle: true }).pageInfo.endCursor, lib.relayCursor(2));
    const lastPage = lib.connectionPage({ start: 6, end: 10 }, 10, { endless: true });
    assert.deepEqual(lastPage.pageInfo, { hasNextPage: true, hasPreviousPage: true, startCursor: lib.relayCursor(6), endCursor: lib.relayCursor(9) });
    const past = lib.connectionPage({ start: 10, end: 10 }, 10, { endless: true });
    assert.deepEqual(past.pageInfo, { hasNextPage: true, hasPreviousPage: true, startCursor: null, endCursor: lib.relayCursor(9) });
  });
});

describe('the Notion-style query', () => {
  const notionError = (code, message) => (error) => error instanceof lib.NotionError && error.status === 400 && error.code === code && message.test(error.message);

  test('bodies: start_cursor and page_size (default 100, 1-100); nothing is {}; others ignored', () => {
    assert.deepEqual(lib.parseNotionQuery(''), { body: {}, startCursor: null, pageSize: 100 });
    assert.deepEqual(lib.parseNotionQuery('{"page_size":7,"start_cursor":"c","filter":{}}'), { body: { page_size: 7, start_cursor: 'c', filter: {} }, startCursor: 'c', pageSize: 7 });
    assert.equal(lib.parseNotionQuery('{"page_size":100}').pageSize, 100);
    assert.throws(() => lib.parseNotionQuery('{'), notionError('invalid_json', /^Error parsing JSON body\.$/));
    for (const [text, message] of [['[]', /body should be an object/], ['null', /body should be an object, instead was `null`/],
      ['{"start_cursor":null}', /body\.start_cursor should be a string or `undefined`, instead was `null`/], ['{"start_cursor":5}', /start_cursor should be a string/],
      ['{"page_size":"5"}', /page_size should be a number or `undefined`, instead was `"5"`/], ['{"page_size":2.5}', /page_size should be an integer/],
      ['{"page_size":0}', /greater than or equal to `1`/], ['{"page_size":101}', /^body failed validation: body\.page_size should be less than or equal to `100`, instead was `101`\.$/]]) {
      assert.throws(() => lib.parseNotionQuery(text), notionError('validation_error', message), text);
      assert.throws(() => lib.parseNotionQuery(text), { body: JSON.parse(text) }, text);
    }
  });

  test('cursors: version 4 UUIDs that carry the position; only those, written exactly so', () => {
    const cursor = lib.notionCursor(100);
    assert.match(cursor, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-000000000064$/);
    assert.notEqual(lib.notionCursor(1).slice(0, 8), lib.notionCursor(2).slice(0, 8));
    for (const position of [0, 1, 99, 100, 123456]) assert.equal(lib.notionPosition(lib.notionCursor(position)), position);
    for (const bad of ['', 'abc', cursor.toUpperCase(), `${cursor.slice(0, -1)}5`, `${cursor.slice(0, 9)}0${cursor.slice(10)}`, lib.relayCursor(1)]) {
      assert.equal(lib.notionPosition(bad), null, bad);
    }
  });

  test('notionSlice and notionNextCursor: pages of page_size, a cursor for a page after the first, next_cursor null at the end; cycle', () => {
    const request = (startCursor, pageSize = 10) => ({ startCursor, pageSize });
    assert.deepEqual(lib.notionSlice(request(null), 25), { start: 0, end: 10, size: 10, page: 1 });
    assert.deepEqual(lib.notionSlice(request(lib.notionCursor(20)), 25), { start: 20, end: 25, size: 10, page: 3 });
    assert.deepEqual(lib.notionSlice(request(null, 100), 25, { maxLimit: 4 }), { start: 0, end: 4, size: 4, page: 1 });
    for (const position of [0, 25, 26]) {
      assert.throws(() => lib.notionSlice(request(lib.notionCursor(position)), 25), notionError('validation_error', /^The start_cursor provided is invalid: /));
    }
    assert.throws(() => lib.notionSlice(request('x'), 25), { message: 'The start_cursor provided is invalid: x' });
    assert.equal(lib.notionNextCursor({ start: 0, end: 10, size: 10 }, 25), lib.notionCursor(10));
    assert.equal(lib.notionNextCursor({ start: 20, end: 25, size: 10 }, 25), null);
    assert.equal(lib.notionNextCursor({ start: 20, end: 25, size: 10 }, 25, true), lib.notionCursor(10));
    assert.equal(lib.notionNextCursor({ start: 0, end: 10, size: 10 }, 25, true), lib.notionCursor(10));
    assert.equal(lib.notionNextCursor({ start: 0, end: 0, size: 100 }, 0), null);
  });

  test('the envelope: object list, results, next_cursor, has_more, type', () => {
    const wrapped = lib.wrapPage('notion', [Buffer.from('[{"id":"a"}]')], { nextCursor: 'c', hasMore: true });
    assert.deepEqual(wrapped.headers, {});
    assert.deepEqual(JSON.parse(bytes(wrapped.parts)), { object: 'list', results: [{ id: 'a' }], next_cursor: 'c', has_more: true, type: 'page_database' });
    assert.equal(bytes(lib.wrapPage('notion', [Buffer.from('[]')], { nextCursor: null, hasMore: false }).parts).toString(),
      '{"object":"list","results":[],"next_cursor":null,"has_more":false,"type":"page_database"}');
    assert.deepEqual(lib.notionErrorBody(400, 'validation_error', 'm'), { object: 'error', status: 400, code: 'validation_error', message: 'm' });
  });
});

describe('logValue', () => {
  test('compact JSON without spaces; credential-like members and the configured token REDACTED; cut when long', () => {
    assert.equal(lib.logValue({ first: 2, after: 'a b' }), '{"first":2,"after":"a\\u0020b"}');
    assert.deepEqual(JSON.parse(lib.logValue({ first: 2, after: 'a b' })), { first: 2, after: 'a b' });
    assert.equal(lib.logValue({ apiKey: 'k', nested: { token: 1, x: 'has s3cret in it' } }, ['s3cret']),
      '{"apiKey":"REDACTED","nested":{"token":"REDACTED","x":"REDACTED"}}');
    assert.equal(lib.logValue({}), '{}');
    assert.equal(lib.logValue(undefined), 'null');
    const long = lib.logValue({ text: 'x'.repeat(2000) });
    assert.equal(long.length, 1003);
    assert.ok(long.endsWith('...'));
  });
});

describe('notes that change (--updates)', () => {
  const minute = (i) => lib.rfc3339(lib.UPDATES_EPOCH_MS + i * lib.UPDATES_STEP_MS);
  /** A generated note's bytes with updated_at last, as --updates serves it before any change. */
  const withUpdatedAt = (json, updatedAt) => `${json.slice(0, -1)},"updated_at":"${updatedAt}"}`;

  test('parseArgs: --updates goes with --count and a cursor style', () => {
    assert.equal(lib.parseArgs(['--count', '5']).updates, false);
    assert.equal(lib.parseArgs(['--count', '5', '--updates']).updates, true);
    for (const style of ['contract', 'drf', 'link', 'header']) assert.equal(lib.parseArgs(['--count', '5', '--updates', '--style', style]).style, style);
    assert.equal(lib.parseArgs(['--count', '5', '--updates', '--id-kind', 'int']).idKind, 'int');
    assert.throws(() => lib.parseArgs(['--dir', 'x', '--updates']), /--updates goes with --count, not --dir/);
    assert.throws(() => lib.parseArgs(['--count', '5', '--updates=yes']), /--updates takes no value/);
    for (const style of ['offset', 'page', 'keyset', 'jsonapi']) {
      assert.throws(() => lib.parseArgs(['--count', '5', '--updates', '--style', style]), new RegExp(`cursor styles .*not ${style}$`));
    }
    assert.throws(() => lib.parseArgs(['--count', '5', '--updates', '--style', 'drf', '--id-kind', 'int']), /not drf with integer ids/);
    assert.equal(lib.updatesStyleProblem('link'), null);
  });

  test('rfc3339 writes UTC with Z, milliseconds only when there are some', () => {
    assert.equal(lib.rfc3339(lib.UPDATES_EPOCH_MS), '2026-11-30T08:00:00Z');
    assert.equal(minute(999), '2026-12-01T00:39:00Z');
    assert.equal(lib.rfc3339(lib.UPDATES_EPOCH_MS + 250), '2026-11-30T08:00:00.250Z');
  });

  test('parseRfc3339: Z or an offset, T and Z in either case, fractions, leap days; null for anything else', () => {
    const epoch = lib.UPDATES_EPOCH_MS;
    for (const [text, ms] of [
      ['2026-11-30T08:00:00Z', epoch], ['2026-11-30t08:00:00z', epoch], ['2026-11-30T09:00:00+01:00', epoch],
      ['2026-11-30T02:30:00-05:30', epoch], ['2026-11-30T08:00:00.5Z', epoch + 500], ['2026-11-30T08:00:00.000001Z', epoch + 0.001],
      ['2026-11-30T08:00:00+00:00', epoch], ['2026-11-30T08:00:00-00:00', epoch], ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
      ['0050-01-01T00:00:00Z', -60589296000000], ['2026-11-30T07:59:60Z', epoch],
    ]) {
      assert.equal(lib.parseRfc3339(text), ms, text);
    }
    for (const text of ['', '2026-11-30', '2026-11-30 08:00:00Z', '2026-11-30T08:00:00', '2026-11-30T08:00Z', '2026-11-30T08:00:00 01:00',
      '2026-11-30T08:00:00+0100', '2026-13-01T00:00:00Z', '2026-00-01T00:00:00Z', '2023-02-29T00:00:00Z', '2026-04-31T00:00:00Z',
      '2026-11-30T24:00:00Z', '2026-11-30T08:60:00Z', '2026-11-30T08:00:61Z', '2026-11-30T08:00:00+24:00', '2026-11-30T08:00:00.Z',
      ' 2026-11-30T08:00:00Z', '2026-11-30T08:00:00Zjunk', '1764489600', '２０２６-11-30T08:00:00Z']) {
      assert.equal(lib.parseRfc3339(text), null, JSON.stringify(text));
    }
  });

  test('parseSince: none, a time, 422 for what is no RFC 3339 date-time (a raw + arrives as a space), 400 for two', () => {
    assert.equal(lib.parseSince(new URLSearchParams('cursor=x')), null);
    assert.deepEqual(lib.parseSince(new URLSearchParams('since=2026-11-30T09%3A00%3A00%2B01%3A00')), { ms: lib.UPDATES_EPOCH_MS });
    const raw = lib.parseSince(new URLSearchParams('since=2026-11-30T09:00:00+01:00'));
    assert.equal(raw.problem.status, 422);
    assert.equal(raw.problem.error, 'invalid-since');
    assert.match(raw.problem.message, /^since must be an RFC 3339 date-time .* not "2026-11-30T09:00:00 01:00"$/);
    assert.equal(lib.parseSince(new URLSearchParams('since=')).problem.status, 422);
    assert.equal(lib.parseSince(new URLSearchParams(`since=${'9'.repeat(500)}`)).problem.message.length < 300, true);
    assert.deepEqual(lib.parseSince(new URLSearchParams('since=2026-11-30T08:00:00Z&since=2026-11-30T08:00:00Z')).problem,
      { status: 400, error: 'bad-request', message: 'more than one since' });
  });

  test('parseAdminQuery: count (default 1, 0 to the cap) or ids; 400s', () => {
    const q = (text) => new URLSearchParams(text);
    assert.deepEqual(lib.parseAdminQuery('touch', q('')), { count: 1, ids: [] });
    assert.deepEqual(lib.parseAdminQuery('add', q('count=0')), { count: 0, ids: [] });
    assert.deepEqual(lib.parseAdminQuery('touch', q(`count=${lib.MAX_ADMIN_COUNT}`)), { count: lib.MAX_ADMIN_COUNT, ids: [] });
    assert.deepEqual(lib.parseAdminQuery('touch', q('id=n3&id=n1')), { count: 2, ids: ['n3', 'n1'] });
    for (const [action, text, message] of [
      ['touch', 'count=-1', /count must be an integer from 0 to 100000, not '-1'/], ['add', 'count=100001', /not '100001'/],
      ['add', 'count=x', /not 'x'/], ['add', 'count=1&count=2', /more than one count/], ['add', 'id=n1', /takes count only/],
      ['touch', 'count=1&id=n1', /count or id, not both/], ['touch', 'id=n1&id=n1', /an id is given twice/],
    ]) {
      assert.throws(() => lib.parseAdminQuery(action, q(text)), (error) => error instanceof lib.UsageError && message.test(error.message), text);
    }
  });

  test('before any change: the generated notes byte for byte, updated_at last, a minute apart by position', () => {
    for (const idKind of ['string', 'int']) {
      const notes = new lib.UpdatingNotes(250, 7, idKind);
      assert.equal(notes.length, 250);
      const served = JSON.parse(notes.array(0, 250));
      const expected = Array.from({ length: 250 }, (_, i) => JSON.parse(withUpdatedAt(lib.renderNote(7, i, idKind), minute(i))));
      assert.deepEqual(served, expected);
      assert.equal(notes.array(3, 4).toString(), `[${withUpdatedAt(lib.renderNote(7, 3, idKind), minute(3))}]`);
      assert.equal(notes.render(notes.order[0], 'jsonapi'), lib.renderNote(7, 0, idKind, 'jsonapi').replace(/\}\}$/, `,"updated_at":"${minute(0)}"}}`));
    }
    assert.deepEqual(JSON.parse(new lib.UpdatingNotes(0, 7).array(0, 10)), []);
  });

  test('firstAtOrAfter: updated at or after, by binary search', () => {
    const notes = new lib.UpdatingNotes(10, 7);
    assert.equal(notes.firstAtOrAfter(-Infinity), 0);
    assert.equal(notes.firstAtOrAfter(lib.UPDATES_EPOCH_MS), 0);
    assert.equal(notes.firstAtOrAfter(lib.UPDATES_EPOCH_MS + 1), 1);
    assert.equal(notes.firstAtOrAfter(lib.UPDATES_EPOCH_MS + 9 * lib.UPDATES_STEP_MS), 9);
    assert.equal(notes.firstAtOrAfter(lib.UPDATES_EPOCH_MS + 9 * lib.UPDATES_STEP_MS + 0.001), 10);
    assert.equal(new lib.UpdatingNotes(0, 7).firstAtOrAfter(0), 0);
  });

  test('touch: notes chosen by the seed, new titles, a minute after the newest each, moved to the end in order', () => {
    const notes = new lib.UpdatingNotes(100, 7);
    const touched = notes.touch(3).map((json) => JSON.parse(json));
    assert.equal(touched.length, 3);
    assert.deepEqual(touched.map((note) => note.updated_at), [minute(100), minute(101), minute(102)]);
    const before = Object.fromEntries(JSON.parse(new lib.UpdatingNotes(100, 7).array(0, 100)).map((note) => [note.id, note]));
    for (const note of touched) {
      assert.equal(note.title, `Edit 1: ${before[note.id].title}`);
      assert.equal(note.rank, before[note.id].rank);
      assert.equal(note.pinned, before[note.id].pinned);
    }
    // Oldest first: the positions they had, in order.
    const positions = touched.map((note) => Number(note.id.slice(1)));
    assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
    const served = JSON.parse(notes.array(0, notes.length));
    assert.equal(served.length, 100);
    assert.deepEqual(served.slice(97), touched);
    assert.deepEqual(served.map((note) => note.updated_at), [...served.map((note) => note.updated_at)].sort());
    // The same seed chooses the same notes; another seed others.
    assert.deepEqual(new lib.UpdatingNotes(100, 7).touch(3).map((json) => JSON.parse(json).id), touched.map((note) => note.id));
    assert.notDeepEqual(new lib.UpdatingNotes(100, 8).touch(3).map((json) => JSON.parse(json).id), touched.map((note) => note.id));
    // A second edit of the same note counts on; asking for more notes than there are edits them all.
    const again = JSON.parse(notes.touch(0, [touched[0].id])[0]);
    assert.equal(again.title, `Edit 2: ${before[touched[0].id].title}`);
    assert.equal(again.updated_at, minute(103));
    assert.equal(new lib.UpdatingNotes(4, 7).touch(10).length, 4);
    assert.throws(() => notes.touch(0, ['n100']), /no note has the id 'n100'/);
    assert.deepEqual(notes.touch(0), []);
  });

  test('add: new0, new1, … (integer ids after the last with idKind int), a minute after the newest, at the end', () => {
    const notes = new lib.UpdatingNotes(5, 7);
    notes.touch(0, ['n2']);
    const added = notes.add(2).map((json) => JSON.parse(json));
    assert.deepEqual(added.map((note) => [note.id, note.title, note.updated_at]), [['new0', 'New note 0', minute(6)], ['new1', 'New note 1', minute(7)]]);
    assert.equal(notes.add(1)[0], withUpdatedAt(lib.renderNewNote(7, 2), minute(8)));
    assert.deepEqual(JSON.parse(notes.array(0, notes.length)).map((note) => note.id), ['n0', 'n1', 'n3', 'n4', 'n2', 'new0', 'new1', 'new2']);
    assert.equal(notes.positionOf('new1'), 6);
    assert.equal(notes.positionOf('n9'), -1);
    const ints = new lib.UpdatingNotes(5, 7, 'int');
    assert.equal(JSON.parse(ints.add(1)[0]).id, lib.lastIntId(7, 5) + 1);
    assert.equal(ints.positionOf(String(lib.lastIntId(7, 5) + 1)), 5);
    assert.equal(JSON.parse(new lib.UpdatingNotes(0, 7).add(1)[0]).updated_at, minute(0));
  });

  test('renderPage: the contract page of the notes from a position on, with the cursors of --count', () => {
    const notes = new lib.UpdatingNotes(25, 7);
    const pages = lib.generatedPages(25, 10, 7);
    for (let index = 0; index < 3; index++) {
      const { body, items } = notes.renderPage(0, 10, index);
      const page = JSON.parse(body);
      assert.deepEqual(Object.keys(page), ['notes', 'next_cursor']);
      assert.equal(page.next_cursor, pages[index].nextCursor);
      assert.equal(body.subarray(...items).toString(), notes.array(index * 10, index * 10 + 10).toString());
    }
    // From position 12 on: 13 notes, two pages; past the last, an empty page.
    assert.deepEqual(JSON.parse(notes.renderPage(12, 10, 0).body).notes.map((note) => note.id)[0], 'n12');
    assert.equal(JSON.parse(notes.renderPage(12, 10, 0).body).next_cursor, pages[1].cursor);
    assert.deepEqual(JSON.parse(notes.renderPage(12, 10, 1).body), { notes: JSON.parse(notes.array(22, 25)), next_cursor: null });
    assert.equal(notes.renderPage(12, 10, 2).body.toString(), '{"notes":[],"next_cursor":null}');
    assert.equal(notes.renderPage(25, 10, 0).body.toString(), '{"notes":[],"next_cursor":null}');
  });
});

describe('notes without titles (--no-titles)', () => {
  test('parseArgs: --no-titles goes with --count; it takes no value', () => {
    assert.equal(lib.parseArgs(['--count', '1']).noTitles, false);
    assert.equal(lib.parseArgs(['--count', '1', '--no-titles']).noTitles, true);
    assert.throws(() => lib.parseArgs(['--dir', 'd', '--no-titles']), /--no-titles goes with --count, not --dir/);
    assert.throws(() => lib.parseArgs(['--count', '1', '--no-titles=yes']), /--no-titles takes no value/);
  });

  test('every form of every note, without its title member and otherwise byte for byte the same', () => {
    for (const idKind of ['string', 'int']) {
      for (const form of lib.NOTE_FORMS) {
        for (let i = 0; i < 12; i++) {
          const full = lib.renderNote(7, i, idKind, form);
          const bare = lib.renderNote(7, i, idKind, form, false);
          const title = `"title":${JSON.stringify(JSON.parse(lib.renderNote(7, i)).title)},`;
          assert.ok(!bare.includes('"title"'), bare);
          // The title's bytes as written (escapes kept), cut out.
          const written = /"title":"(?:[^"\\]|\\.)*",/.exec(full)[0];
          assert.equal(JSON.parse(`{${written.slice(0, -1)}}`).title, JSON.parse(`{${title.slice(0, -1)}}`).title);
          assert.equal(bare, full.replace(written, ''), `${idKind} ${form} ${i}`);
        }
      }
    }
    assert.equal(lib.renderNewNote(7, 0, 'string', 0, 'plain', false), lib.renderNewNote(7, 0).replace('"title":"New note 0",', ''));
    const { body } = lib.renderGeneratedPage(5, 5, 7, 0, 'string', false);
    assert.deepEqual(JSON.parse(body).notes.map((n) => Object.keys(n)), Array(5).fill(['id', 'rank', 'pinned']));
    const list = new lib.NoteList(3, [1], 'int', 7, false);
    assert.deepEqual(JSON.parse(list.render(7, 0, 4)).map((n) => Object.keys(n)), Array(4).fill(['id', 'rank', 'pinned']));
    assert.deepEqual(JSON.parse(list.render(7, 0, 1, 'eve')).map((n) => Object.keys(n)), [['_id', 'rank', 'pinned']]);
    const updating = new lib.UpdatingNotes(3, 7, 'string', false);
    assert.deepEqual(Object.keys(JSON.parse(updating.array(0, 3))[0]), ['id', 'rank', 'pinned', 'updated_at']);
    assert.deepEqual(Object.keys(JSON.parse(updating.touch(1)[0])), ['id', 'rank', 'pinned', 'updated_at']);
  });

  test('huge-title has nothing to act on', () => {
    const items = new lib.NoteList(2, [], 'string', 7, false).render(7, 0, 2);
    assert.equal(bytes(lib.applyContentFaults(items, parseFaults('huge-title:5'), null)).toString(), items.toString());
  });
});

describe('the styles of real servers', () => {
  const settings = { pageSize: 10, maxLimit: 50, totals: { count: true, header: true, link: true, pages: true } };
  const parse = (style, query, request) => lib.parseListQuery(style, new URLSearchParams(query), settings, request);
  /** The StyleError that parsing throws: its status and body. */
  const refusal = (style, query, request) => {
    try {
      parse(style, query, request);
    } catch (error) {
      assert.ok(error instanceof lib.StyleError, `${style} ${query}: ${error}`);
      return { status: error.status, body: error.body, headers: error.headers };
    }
    assert.fail(`${style} ${query} was not refused`);
  };
  const items = [Buffer.from('[{"id":"a"},{"id":"b"}]')];

  test('list styles that need --count; every fault but next-ref works in them, cycle not in page-echo and offset-echo', () => {
    assert.deepEqual(lib.REAL_STYLES, ['next-page', 'ogc', 'x-pagination', 'page-echo', 'offset-echo', 'eve', 'dynamodb']);
    for (const style of lib.REAL_STYLES) {
      assert.ok(lib.STYLES.includes(style) && lib.isListStyle(style), style);
      assert.equal(lib.parseStyle(style), style);
      assert.throws(() => lib.parseArgs(['--dir', 'd', '--style', style]), new RegExp(`style '${style}' pages through generated notes`));
      assert.equal(lib.parseArgs(['--count', '3', '--style', style]).style, style);
      assert.match(lib.updatesStyleProblem(style), /--updates serves the cursor styles/);
      const problem = (spec) => lib.styleProblem(lib.parseFault(spec, 'request'), style);
      assert.equal(problem('shift:2@2'), null, style);
      assert.match(problem('next-ref:space'), /works in the contract, header, drf, link styles only/);
      if (style === 'page-echo' || style === 'offset-echo') {
        assert.equal(problem('cycle@2'), `fault 'cycle@2' cannot work in ${style} style: the client computes the next page from the totals, so nothing can point back`);
      } else {
        assert.equal(problem('cycle@2'), null, style);
      }
    }
  });

  test('pythonJson writes as json.dumps; pythonQuote as urllib.parse.quote', () => {
    assert.equal(lib.pythonJson({ a: 1, b: [true, null, 'é'], c: { d: 'x"y' } }), '{"a": 1, "b": [true, null, "\\u00e9"], "c": {"d": "x\\"y"}}');
    assert.equal(lib.pythonJson({}), '{}');
    assert.equal(lib.pythonQuote("a b/c,d:e@f!'()*~._-é"), 'a%20b%2Fc%2Cd%3Ae%40f%21%27%28%29%2A~._-%C3%A9');
    assert.equal(lib.pythonQuote('a,b c', ','), 'a,b%20c');
    assert.equal(lib.quotePlus('a b+c'), 'a+b%2Bc');
  });

  describe('next-page (Kinto)', () => {
    test('_limit (default --page-size, capped at --max-limit; empty is the default; the last value), _token, filters', () => {
      assert.deepEqual(parse('next-page', ''), { startingAfter: null, tokenOffset: 0, limit: 10, filtered: false, totals: settings.totals });
      assert.equal(parse('next-page', '_limit=7').limit, 7);
      assert.equal(parse('next-page', '_limit=99').limit, 50);
      assert.equal(parse('next-page', '_limit=').limit, 10);
      assert.equal(parse('next-page', '_limit=3&_limit=+4').limit, 4);
      assert.equal(parse('next-page', 'totals=none').totals.header, false);
      const token = lib.kintoToken('n41', 43);
      assert.deepEqual(parse('next-page', `_token=${encodeURIComponent(token)}&_limit=5`), { startingAfter: 'n41', tokenOffset: 43, limit: 5, filtered: false, totals: settings.totals });
      assert.equal(parse('next-page', `_token=${encodeURIComponent(lib.kintoToken(12, 3))}`).startingAfter, '12');
      for (const query of ['cursor=abc', 'title=x', 'in_id=n1', '_since=0', '_before=9', 'style=next-page&has_rank=true']) {
        assert.equal(parse('next-page', query).filtered, true, query);
      }
      for (const query of ['style=next-page&fault=503@9&totals=count&compress=gzip', '_sort=-id', '_fields=id', '_expected=1', '_limit=2']) {
        assert.equal(parse('next-page', query).filtered, false, query);
      }
      assert.deepEqual(lib.kintoFilters(new URLSearchParams('a=1&a=2&_x=1&_to=3&style=eve')), ['a', '_to']);
    });

    test('the token: base64 of json.dumps of last_object, offset and a nonce, as Kinto makes it', () => {
      const token = lib.kintoToken('n41', 43);
      assert.match(token, /^[A-Za-z0-9+/]+={0,2}$/);
      const text = Buffer.from(token, 'base64').toString();
      assert.match(text, /^\{"last_object": \{"id": "n41"\}, "offset": 43, "nonce": "pagination-token-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"\}$/);
      assert.equal(lib.kintoToken('n41', 43), token);
      assert.notEqual(lib.kintoToken('n41', 44), token);
      assert.deepEqual(lib.parseKintoToken(token), { lastId: 'n41', offset: 43 });
      // Characters outside base64's alphabet are dropped, as Python's b64decode drops them.
      assert.deepEqual(lib.parseKintoToken(`${token.slice(0, 5)} \n${token.slice(5)}`), { lastId: 'n41', offset: 43 });
    });

    test("Kinto's 400 for a bad _limit or _token", () => {
      const invalid = (description, name = null) => ({
        status: 400,
        body: { code: 400, errno: 107, error: 'Invalid parameters', message: name === null ? `querystring: ${description}` : `${name} in querystring: ${description}`, details: [{ location: 'querystring', name, description }] },
        headers: {},
      });
      assert.deepEqual(refusal('next-page', '_limit=abc'), invalid('"abc" is not a number', '_limit'));
      assert.deepEqual(refusal('next-page', '_limit=2.5'), invalid('"2.5" is not a number', '_limit'));
      assert.deepEqual(refusal('next-page', '_limit=0'), invalid('0 is less than minimum value 1', '_limit'));
      assert.deepEqual(refusal('next-page', '_limit=-3'), invalid('-3 is less than minimum value 1', '_limit'));
      const b64 = (text) => encodeURIComponent(Buffer.from(text).toString('base64'));
      for (const token of ['abc', 'eyJ4IjoxfQ', b64('[1]'), b64('{"last_object":{"id":"n1"},"offset":1}'), b64('{"last_object":[],"offset":1,"nonce":"x"}'),
        b64('{"last_object":{},"offset":1,"nonce":"x"}'), b64('{"last_object":{"id":null},"offset":1,"nonce":"x"}'), b64('not json'), '%FF%FE']) {
        assert.deepEqual(refusal('next-page', `_token=${token}`), invalid('_token has invalid content'), token);
      }
      assert.deepEqual(lib.kintoErrorBody('_limit', '_limit is bad'), { ...invalid('_limit is bad', '_limit').body, message: '_limit is bad' });
    });

    test('Next-Page: the request\'s query, _limit and _token set where they were or last, as quote_plus writes them', () => {
      const token = lib.kintoToken('n9', 11);
      const quoted = token.replaceAll('+', '%2B').replaceAll('/', '%2F').replaceAll('=', '%3D');
      assert.equal(lib.kintoNextUrl('http://h:1', [], 10, token), `http://h:1/notes?_limit=10&_token=${quoted}`);
      assert.equal(lib.kintoNextUrl('http://h:1', [['style', 'next-page'], ['_token', 'old'], ['fault', 'delay:1'], ['fault', '503@2'], ['_limit', '99']], 50, token),
        `http://h:1/notes?style=next-page&_token=${quoted}&fault=503%402&_limit=50`);
    });

    test('the envelope: {"data":[…]} with Next-Page and Total-Records', () => {
      const page = lib.wrapPage('next-page', items, { nextUrl: 'http://h:1/notes?_limit=2&_token=T', totalHeader: 7 });
      assert.deepEqual(page.headers, { 'Next-Page': 'http://h:1/notes?_limit=2&_token=T', 'Total-Records': '7' });
      assert.equal(bytes(page.parts).toString(), '{"data":[{"id":"a"},{"id":"b"}]}');
      assert.deepEqual(lib.wrapPage('next-page', items, { nextUrl: null, totalHeader: null }).headers, {});
    });
  });

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
      assert.deepEqual(lib.ogcLinks(base, pairs, { prevOffset: 2, nextOffset: 6 }), [
        { type: 'application/geo+json', rel: 'self', title: 'This document as GeoJSON', href: `${base}/notes?f=json${query}` },
        { rel: 'alternate', type: 'application/ld+json', title: 'This document as RDF (JSON-LD)', href: `${base}/notes?f=jsonld${query}` },
        { type: 'text/html', rel: 'alternate', title: 'This document as HTML', href: `${base}/notes?f=html${query}` },
        { type: 'application/geo+json', rel: 'prev', title: 'Items (prev)', href: `${base}/notes?offset=2${query}` },
        { rel: 'next', type: 'application/geo+json', title: 'Items (next)', href: `${base}/notes?offset=6${query}` },
        { type: 'application/json', title: 'notes', rel: 'collection', href: base },
      ]);
      const withFormat = lib.ogcLinks(base, [['f', 'jsonld']], { format: 'jsonld', nextOffset: 10 });
      assert.deepEqual(withFormat.map((link) => link.rel), ['alternate', 'self', 'alternate', 'next', 'collection']);
      assert.equal(withFormat[3].href, `${base}/notes?f=jsonld&offset=10`);
      assert.deepEqual(lib.ogcLinks(base, [], {}).map((link) => link.rel), ['self', 'alternate', 'alternate', 'collection']);
    });

    test('the envelope: a FeatureCollection as application/geo+json; numberMatched left out when off', () => {
      const links = [{ rel: 'next', href: 'u' }];
      const page = lib.wrapPage('ogc', items, { links, numberMatched: 7, returned: 2 });
      assert.deepEqual(page.headers, { 'Content-Type': 'application/geo+json' });
      assert.equal(bytes(page.parts).toString(), '{"type":"FeatureCollection","features":[{"id":"a"},{"id":"b"}],"numberMatched":7,"numberReturned":2,"links":[{"rel":"next","href":"u"}]}');
      assert.equal(bytes(lib.wrapPage('ogc', items, { links: [], numberMatched: null, returned: 2 }).parts).toString(),
        '{"type":"FeatureCollection","features":[{"id":"a"},{"id":"b"}],"numberReturned":2,"links":[]}');
    });
  });

  describe('x-pagination (flask-smorest)', () => {
    test('page and page_size: the first value of each; 422 for what marshmallow refuses, every error listed', () => {
      assert.deepEqual(parse('x-pagination', ''), { page: 1, limit: 10, totals: settings.totals });
      assert.deepEqual(parse('x-pagination', 'page=3&page_size=50&page=9&per_page=2&foo=1'), { page: 3, limit: 50, totals: settings.totals });
      assert.deepEqual(parse('x-pagination', 'page=%202%20&page_size=1_0'), { page: 2, limit: 10, totals: settings.totals });
      const invalid = (errors) => ({ status: 422, body: { code: 422, errors: { query: errors }, status: 'Unprocessable Entity' }, headers: {} });
      assert.deepEqual(refusal('x-pagination', 'page=0'), invalid({ page: ['Must be greater than or equal to 1.'] }));
      assert.deepEqual(refusal('x-pagination', 'page=x'), invalid({ page: ['Not a valid integer.'] }));
      assert.deepEqual(refusal('x-pagination', 'page_size=51'), invalid({ page_size: ['Must be greater than or equal to 1 and less than or equal to 50.'] }));
      assert.deepEqual(refusal('x-pagination', 'page_size=2.0&page=-1'), invalid({ page: ['Must be greater than or equal to 1.'], page_size: ['Not a valid integer.'] }));
      assert.deepEqual(refusal('x-pagination', 'page_size='), invalid({ page_size: ['Not a valid integer.'] }));
    });

    test('the metadata of _make_pagination_metadata: keys in its order, none past the end; the header as json.dumps writes it', () => {
      assert.deepEqual(lib.flaskSmorestPagination(1, 10, 25), { total: 25, total_pages: 3, first_page: 1, last_page: 3, page: 1, next_page: 2 });
      assert.deepEqual(lib.flaskSmorestPagination(2, 10, 25), { total: 25, total_pages: 3, first_page: 1, last_page: 3, page: 2, previous_page: 1, next_page: 3 });
      assert.deepEqual(lib.flaskSmorestPagination(3, 10, 25), { total: 25, total_pages: 3, first_page: 1, last_page: 3, page: 3, previous_page: 2 });
      assert.deepEqual(lib.flaskSmorestPagination(4, 10, 25), { total: 25, total_pages: 3, first_page: 1, last_page: 3 });
      assert.deepEqual(lib.flaskSmorestPagination(1, 10, 0), { total: 0, total_pages: 0 });
      assert.deepEqual(lib.flaskSmorestPagination(1, 10, 10), { total: 10, total_pages: 1, first_page: 1, last_page: 1, page: 1 });
      assert.equal(lib.pythonJson(lib.flaskSmorestPagination(2, 10, 25)),
        '{"total": 25, "total_pages": 3, "first_page": 1, "last_page": 3, "page": 2, "previous_page": 1, "next_page": 3}');
      const page = lib.wrapPage('x-pagination', items, { pagination: '{"total": 0, "total_pages": 0}' });
      assert.deepEqual(page.headers, { 'X-Pagination': '{"total": 0, "total_pages": 0}' });
      assert.equal(bytes(page.parts).toString(), '[{"id":"a"},{"id":"b"}]');
      assert.deepEqual(lib.wrapPage('x-pagination', items, { pagination: null }).headers, {});
    });
  });

  describe('page-echo and offset-echo (Litestar)', () => {
    test('current_page and page_size; offset and limit; sizes capped silently; unknown names ignored', () => {
      assert.deepEqual(parse('page-echo', ''), { limit: 10, page: 1, totals: settings.totals });
      assert.deepEqual(parse('page-echo', 'current_page=3&page_size=99&page=7'), { limit: 50, page: 3, totals: settings.totals });
      assert.deepEqual(parse('offset-echo', ''), { limit: 10, offset: 0, totals: settings.totals });
      assert.deepEqual(parse('offset-echo', 'offset=13&limit=4&page=2'), { limit: 4, offset: 13, totals: settings.totals });
    });

    test("Litestar's 400: Validation failed for METHOD TARGET, msgspec's messages for each parameter", () => {
      const request = { method: 'GET', target: '/notes?current_page=0&page_size=x&page_size=2' };
      assert.deepEqual(refusal('page-echo', 'current_page=0&page_size=x&page_size=2', request), {
        status: 400,
        body: {
          status_code: 400,
          detail: 'Validation failed for GET /notes?current_page=0&page_size=x&page_size=2',
          extra: [{ message: 'Expected `int`, got `array`', key: 'page_size', source: 'query' }, { message: 'Expected `int` >= 1', key: 'current_page', source: 'query' }],
        },
        headers: {},
      });
      assert.deepEqual(refusal('offset-echo', 'offset=-1&limit=1.5').body.extra, [
        { message: 'Expected `int`, got `str`', key: 'limit', source: 'query' },
        { message: 'Expected `int` >= 0', key: 'offset', source: 'query' },
      ]);
      assert.equal(refusal('offset-echo', 'limit=0').body.detail, 'Validation failed for GET /notes');
    });

    test('the envelopes: items, then the page as served; totals left out when off', () => {
      assert.equal(bytes(lib.wrapPage('page-echo', items, { limit: 2, page: 1, totalPages: 4 }).parts).toString(),
        '{"items":[{"id":"a"},{"id":"b"}],"page_size":2,"current_page":1,"total_pages":4}');
      assert.equal(bytes(lib.wrapPage('page-echo', items, { limit: 2, page: 1, totalPages: null }).parts).toString(), '{"items":[{"id":"a"},{"id":"b"}],"page_size":2,"current_page":1}');
      assert.equal(bytes(lib.wrapPage('offset-echo', items, { limit: 2, offset: 4, total: 7 }).parts).toString(), '{"items":[{"id":"a"},{"id":"b"}],"limit":2,"offset":4,"total":7}');
      assert.equal(bytes(lib.wrapPage('offset-echo', items, { limit: 2, offset: 4, total: null }).parts).toString(), '{"items":[{"id":"a"},{"id":"b"}],"limit":2,"offset":4}');
      assert.deepEqual(lib.wrapPage('offset-echo', items, { limit: 2, offset: 4, total: 7 }).headers, {});
    });
  });

  describe('eve (Python Eve)', () => {
    test('page and max_results as Eve reads them: never refused', () => {
      assert.deepEqual(parse('eve', ''), { page: 1, limit: 10, totals: settings.totals });
      assert.deepEqual(parse('eve', 'page=3&max_results=7'), { page: 3, limit: 7, totals: settings.totals });
      for (const [query, page, limit] of [['page=-2', 2, 10], ['page=0', 1, 10], ['page=x', 1, 10], ['page=2.5', 1, 10], ['page=+4', 4, 10],
        ['max_results=2.9', 1, 2], ['max_results=0', 1, 10], ['max_results=-3', 1, 10], ['max_results=x', 1, 10], ['max_results=1e1', 1, 10],
        ['max_results=99', 1, 50], ['max_results=inf', 1, 10], ['page=2&page=5&max_results=4&max_results=6', 2, 4]]) {
        const parsed = parse('eve', query);
        assert.deepEqual([parsed.page, parsed.limit], [page, limit], query);
      }
    });

    test('querydef: max_results unless the default, where, sort, page after 1, then the other parameters raw', () => {
      const q = (pairs, page, maxResults = 10) => lib.eveQuery(pairs, { page, maxResults, defaultMaxResults: 10 });
      assert.equal(q([], 1), '');
      assert.equal(q([], 2), '?page=2');
      assert.equal(q([['max_results', '10']], 2), '?page=2');
      assert.equal(q([['max_results', '3']], 1, 3), '?max_results=3');
      assert.equal(q([['style', 'eve'], ['page', '2'], ['sort', '-id'], ['fault', 'delay:1'], ['where', '{"a":1}'], ['style', 'x'], ['q', 'a b']], 3, 4),
        '?max_results=4&where={"a":1}&sort=-id&page=3&style=eve&style=x&fault=delay:1&q=a b');
    });

    test('_links: relative hrefs without a leading slash; next and last while more remain; prev after page 1', () => {
      const links = (page, count, more = {}) => lib.eveLinks([['style', 'eve']], { page, maxResults: 10, defaultMaxResults: 10, count, ...more });
      assert.deepEqual(links(1, 25), {
        parent: { title: 'home', href: '/' },
        self: { title: 'notes', href: 'notes?style=eve' },
        next: { title: 'next page', href: 'notes?page=2&style=eve' },
        last: { title: 'last page', href: 'notes?page=3&style=eve' },
      });
      assert.deepEqual(links(3, 25), {
        parent: { title: 'home', href: '/' },
        self: { title: 'notes', href: 'notes?page=3&style=eve' },
        prev: { title: 'previous page', href: 'notes?page=2&style=eve' },
      });
      assert.deepEqual(Object.keys(links(2, 25)), ['parent', 'self', 'next', 'last', 'prev']);
      assert.deepEqual(links(1, 0), { parent: { title: 'home', href: '/' }, self: { title: 'notes', href: 'notes' } });
      // Without a count (OPTIMIZE_PAGINATION_FOR_SPEED), next on every page and no last.
      assert.deepEqual(Object.keys(links(9, null)), ['parent', 'self', 'next', 'prev']);
      assert.equal(links(9, null).self.href, 'notes');
      assert.deepEqual(Object.keys(links(1, 25, { last: false })), ['parent', 'self', 'next']);
      assert.equal(links(3, 25, { nextPage: 2 }).next.href, 'notes?page=2&style=eve');
      assert.ok(Object.values(links(2, 25)).every((link) => !link.href.startsWith('/') || link.href === '/'));
    });

    test('the envelope: _items, _links, _meta; X-Total-Count', () => {
      const page = lib.wrapPage('eve', [Buffer.from('[{"_id":"a"}]')], { links: { self: { href: 'notes' } }, meta: { page: 1, max_results: 10, total: 1 }, totalHeader: 1 });
      assert.deepEqual(page.headers, { 'X-Total-Count': '1' });
      assert.equal(bytes(page.parts).toString(), '{"_items":[{"_id":"a"}],"_links":{"self":{"href":"notes"}},"_meta":{"page":1,"max_results":10,"total":1}}');
    });

    test("notes with _id for id: the same bytes otherwise; content faults find the _id", () => {
      for (const idKind of ['string', 'int']) {
        const plain = lib.renderNote(7, 3, idKind);
        assert.equal(lib.renderNote(7, 3, idKind, 'eve'), `{"_id"${plain.slice('{"id"'.length)}`);
      }
      const eveItems = Buffer.from(`[${lib.renderNote(7, 0, 'string', 'eve')},${lib.renderNote(7, 1, 'string', 'eve')}]`);
      assert.equal(lib.firstNoteId(eveItems, '_id').toString(), '"n0"');
      assert.equal(lib.firstNoteId(eveItems), null);
      const duplicated = JSON.parse(bytes(lib.applyContentFaults(eveItems, parseFaults('duplicate-id'), Buffer.from('"n0"'), '_id')));
      assert.deepEqual(duplicated.map((n) => n._id), ['n0', 'n0']);
    });
  });

  describe('dynamodb (DynamoDB Scan, as moto serves it)', () => {
    const scan = (body, idKind = 'string') => lib.parseDynamoScan(typeof body === 'string' ? body : JSON.stringify(body), { ...settings, idKind });
    const refused = (body, idKind) => {
      try {
        scan(body, idKind);
      } catch (error) {
        assert.ok(error instanceof lib.StyleError);
        assert.deepEqual(error.headers, { 'Content-Type': 'application/x-amz-json-1.0' });
        assert.equal(error.status, 400);
        return error.body;
      }
      assert.fail('not refused');
    };

    test('TableName, Limit (default --page-size, capped silently), ExclusiveStartKey of the id kind; other members ignored', () => {
      assert.deepEqual(scan({ TableName: 'notes' }), { body: { TableName: 'notes' }, limit: 10, startingAfter: null });
      assert.deepEqual(scan({ TableName: 'notes', Limit: 3, ExclusiveStartKey: { id: { S: 'n41' } }, Select: 'ALL_ATTRIBUTES' }).startingAfter, 'n41');
      assert.equal(scan({ TableName: 'notes', Limit: 3 }).limit, 3);
      assert.equal(scan({ TableName: 'notes', Limit: 500 }).limit, 50);
      assert.equal(scan({ TableName: 'notes', ExclusiveStartKey: null }).startingAfter, null);
      assert.equal(scan({ TableName: 'notes', ExclusiveStartKey: { id: { N: '12' } } }, 'int').startingAfter, '12');
      assert.deepEqual(lib.dynamoKey('n41'), { id: { S: 'n41' } });
      assert.deepEqual(lib.dynamoKey(12), { id: { N: '12' } });
    });

    test("DynamoDB's errors: SerializationException, ValidationException, ResourceNotFoundException", () => {
      const error = (type, message) => ({ __type: type, message });
      const badKey = error('com.amazon.coral.validation#ValidationException', 'The provided starting key is invalid: The provided key element does not match the schema');
      assert.deepEqual(refused('{'), error('com.amazon.coral.service#SerializationException', 'the body is not JSON'));
      assert.deepEqual(refused('[]'), error('com.amazon.coral.service#SerializationException', 'the body is not a JSON object'));
      assert.deepEqual(refused({ Limit: 3 }),
        error('com.amazon.coral.validation#ValidationException', "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"));
      assert.deepEqual(refused({ TableName: 'other' }), error('com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', 'Requested resource not found'));
      assert.deepEqual(refused({ TableName: 'notes', Limit: 0 }),
        error('com.amazon.coral.validation#ValidationException', "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"));
      assert.equal(refused({ TableName: 'notes', Limit: '3' }).__type, 'com.amazon.coral.service#SerializationException');
      for (const key of [{}, { id: 'n1' }, { id: { S: 1 } }, { id: { N: '1' } }, { id: { S: 'n1', N: '1' } }, { id: { S: 'n1' }, rank: { N: '1' } }, [], 'n1']) {
        assert.deepEqual(refused({ TableName: 'notes', ExclusiveStartKey: key }), badKey, JSON.stringify(key));
      }
      assert.deepEqual(refused({ TableName: 'notes', ExclusiveStartKey: { id: { S: '1' } } }, 'int'), badKey);
    });

    test('the envelope: Count, Items, ScannedCount, LastEvaluatedKey (left out on the last page), as application/x-amz-json-1.0', () => {
      const page = lib.wrapPage('dynamodb', items, { count: 2, lastEvaluatedKey: { id: { S: 'b' } } });
      assert.deepEqual(page.headers, { 'Content-Type': 'application/x-amz-json-1.0' });
      assert.equal(bytes(page.parts).toString(), '{"Count":2,"Items":[{"id":"a"},{"id":"b"}],"ScannedCount":2,"LastEvaluatedKey":{"id":{"S":"b"}}}');
      assert.equal(bytes(lib.wrapPage('dynamodb', items, { count: 2, lastEvaluatedKey: null }).parts).toString(), '{"Count":2,"Items":[{"id":"a"},{"id":"b"}],"ScannedCount":2}');
    });
  });
});
