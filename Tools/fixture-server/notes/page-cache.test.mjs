// Unit tests of the page cache (page-cache.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PageCache } from './page-cache.mjs';

describe('PageCache', () => {
  const page = (size) => ({ body: Buffer.alloc(size) });

  test('evicts the least recently used pages past its capacity', async () => {
    const loads = [];
    const load = async (i) => { loads.push(i); return page(10); };
    const cache = new PageCache(25);
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
    const cache = new PageCache(5);
    const big = await cache.get(0, async () => page(10));
    assert.equal(await cache.get(0, async () => assert.fail('reloaded')), big);
  });

  test('shares one load between concurrent requests, and forgets failures', async () => {
    const cache = new PageCache(100);
    let loads = 0;
    const load = async () => { loads++; await new Promise((resolve) => setImmediate(resolve)); return page(1); };
    const [a, b] = await Promise.all([cache.get(7, load), cache.get(7, load)]);
    assert.equal(a, b);
    assert.equal(loads, 1);
    await assert.rejects(cache.get(8, async () => { throw new Error('disk'); }), /disk/);
    assert.equal((await cache.get(8, async () => page(2))).body.length, 2);
  });
});
