// Unit tests of a notes-gen directory's manifest (directory.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkItems, indexPages, ManifestError, readManifest } from './directory.mjs';
import { bytes } from '../testing/units.mjs';

describe('manifest', () => {
  const entry = (i, cursor, next) => ({ file: `pages/0000${i}.json`, cursor, next_cursor: next, notes: 1, bytes: 30, items: [9, 20] });
  const manifest = (pages) => ({ format: 'notes-gen/1', pages });

  test('reads pages', () => {
    const pages = readManifest(manifest([entry(0, null, 'a+/='), entry(1, 'a+/=', null)]));
    assert.deepEqual(pages[1], { file: 'pages/00001.json', cursor: 'a+/=', nextCursor: null, items: [9, 20], notes: 1 });
    assert.deepEqual([...indexPages(pages)], [['a+/=', 1]]);
  });

  test("a page's note count, or null where the entry has none that is a count", () => {
    for (const [notes, expected] of [[0, 0], [7, 7], [undefined, null], [-1, null], [1.5, null], ['3', null]]) {
      assert.equal(readManifest(manifest([{ ...entry(0, null, null), notes }]))[0].notes, expected, String(notes));
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
      assert.throws(() => readManifest(value), (error) => error instanceof ManifestError && message.test(error.message));
    });
  }

  for (const [what, pages, message] of [
    ['a first cursor', [entry(0, 'x', null)], /cursor null/],
    ['a broken chain', [entry(0, null, 'a'), entry(1, 'b', null)], /does not name page 2/],
    ['a repeated cursor', [entry(0, null, 'a'), entry(1, 'a', 'a'), entry(2, 'a', null)], /repeats/],
  ]) {
    test(`rejects ${what}`, () => {
      assert.throws(() => indexPages(readManifest(manifest(pages))), message);
    });
  }

  test('checkItems', () => {
    const body = Buffer.from('{"notes":[{}],"next_cursor":null}');
    checkItems(body, [9, 13], 'p');
    assert.throws(() => checkItems(body, [9, 12], 'p'), /not the notes array/);
    assert.throws(() => checkItems(body, [9, 99], 'p'), /not the notes array/);
  });
});
