// Unit tests of the fault grammar and of what keeps a fault from working (grammar.mjs). Run with `node
// --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { faultProblem, parseFault, parseFaultList, styleProblem } from './grammar.mjs';
import { NEXT_REF_CURSOR_KINDS, NEXT_REF_KINDS } from './next-ref.mjs';
import { UsageError } from '../shared/errors.mjs';
import { parseTotals } from '../styles/catalog.mjs';
import { bytes } from '../testing/units.mjs';

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
      const fault = parseFault(spec, 'request');
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
      assert.throws(() => parseFault(spec, 'request'), UsageError);
    });
  }

  test('a list: commas, spaces and empty items', () => {
    const faults = parseFaultList(['delay:5, 500@2', '', 'html,'], 'request');
    assert.deepEqual(faults.map((f) => f.spec), ['delay:5', '500@2', 'html']);
    assert.deepEqual(faults.map((f) => f.key), ['request:delay:5', 'request:500@2', 'request:html']);
  });

  test('problems against a server', () => {
    const context = { fixtures: new Set(['html-body.html']), hasToken: false, pageCount: 3 };
    const problem = (spec) => faultProblem(parseFault(spec, 'flag', 0), context);
    assert.equal(problem('html@3'), null);
    assert.match(problem('html@4'), /names page 4, but there are 3 pages/);
    assert.match(problem('fixture:gone.json'), /no fixture 'gone.json'/);
    assert.match(problem('auth'), /needs a token/);
    assert.match(problem('cycle@1'), /page 1 cannot be in a cycle/);
    assert.match(problem('graphql-cycle@1'), /page 1 cannot be in a cycle/);
    // GraphQL pages hold `first` notes, not --page-size: any page number may exist.
    for (const kind of ['graphql-error', 'graphql-ratelimit', 'graphql-cycle', 'graphql-endless']) assert.equal(problem(`${kind}@9`), null, kind);
    assert.equal(faultProblem(parseFault('html@4', 'request'), { ...context, pageCount: null }), null);
  });

  test('problems in a style: cycle in keyset, shift outside offset, page, keyset, jsonapi and drf with integer ids', () => {
    const problem = (spec, style, idKind) => styleProblem(parseFault(spec, 'request'), style, idKind);
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
    const problem = (spec, style, idKind) => styleProblem(parseFault(spec, 'request'), style, idKind);
    for (const kind of NEXT_REF_KINDS) {
      for (const style of ['drf', 'link']) assert.equal(problem(`next-ref:${kind}@2`, style), null, `${kind} ${style}`);
      for (const style of ['contract', 'header']) {
        const cursorKind = NEXT_REF_CURSOR_KINDS.includes(kind);
        if (cursorKind) assert.equal(problem(`next-ref:${kind}@2`, style), null, `${kind} ${style}`);
        else assert.match(problem(`next-ref:${kind}@2`, style), new RegExp(`in ${style} style the next reference is a cursor, and '${kind}' is a URL's`));
      }
      for (const style of ['offset', 'page', 'keyset', 'jsonapi']) {
        assert.match(problem(`next-ref:${kind}`, style), new RegExp(`works in the contract, header, drf, link styles only, not ${style}$`));
      }
      assert.match(problem(`next-ref:${kind}`, 'drf', 'int'), /only, not drf with --id-kind int/);
    }
    assert.deepEqual(NEXT_REF_CURSOR_KINDS, ['brackets-raw', 'brackets-encoded', 'space', 'bad-escape', 'unicode', 'long-name']);
  });

  test('totals lists', () => {
    assert.deepEqual(parseTotals('link, pages', 'x'), { count: false, header: false, link: true, pages: true });
    assert.deepEqual(parseTotals('none', 'x'), { count: false, header: false, link: false, pages: false });
    assert.throws(() => parseTotals('total', 'totals='), /totals= takes a comma-separated list/);
  });
});
