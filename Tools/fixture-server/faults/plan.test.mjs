// Unit tests of fault planning (plan.mjs): which faults act on a request, in which order. Run with `node
// --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { faultActsOn, parseFault } from './grammar.mjs';
import { planFaults } from './plan.mjs';
import { parseFaults } from '../testing/units.mjs';

describe('planFaults', () => {
  const plan = (faults, page, { authorized = true, used = new Map() } = {}) => planFaults(faults, page, authorized, used);
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
    const acts = (spec) => ['notes', 'graphql', 'notion'].filter((endpoint) => faultActsOn(parseFault(spec, 'request'), endpoint));
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
