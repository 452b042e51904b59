// Unit tests of the hostile bodies (hostile-bodies.mjs): the bomb's body and the content faults. Run with
// `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyContentFaults, BOMB_TITLE_BYTES, bombChunks } from './hostile-bodies.mjs';
import { bytes, parseFaults } from '../testing/units.mjs';

describe('bombs', () => {
  test('bombChunks: exactly BYTES of an endless notes array with unique ids, in bounded chunks', () => {
    for (const [bytes, chunkBytes] of [[0, 16], [5, 16], [10, 4], [65_100, 1000], [300_000, 1 << 16], [1_000_003, 1 << 20]]) {
      const chunks = [...bombChunks(bytes, chunkBytes)];
      assert.ok(chunks.every((chunk) => chunk.length > 0 && chunk.length <= chunkBytes));
      const text = Buffer.concat(chunks).toString();
      assert.equal(text.length, bytes);
      assert.equal(text, '{"notes":['.slice(0, bytes) + text.slice(10));
      if (bytes < 10) continue;
      const complete = text.lastIndexOf('"}');
      const notes = complete === -1 ? [] : JSON.parse(`${text.slice(0, complete + 2)}]}`).notes;
      // What follows the last whole note is less than one more note.
      assert.ok(text.length - (complete + 2) < BOMB_TITLE_BYTES + 40);
      assert.equal(notes.length > 0, bytes > 65_100 - 1);
      assert.deepEqual(notes.map((note) => note.id), notes.map((_, i) => `bomb${i}`));
      assert.ok(notes.every((note) => note.title === 'z'.repeat(BOMB_TITLE_BYTES)));
    }
  });
});

describe('content faults', () => {
  const itemsOf = (text) => Buffer.from(text);

  const items = itemsOf('[{"id":"a","title":"one"},{"id":"b","title":"two"}]');
  const apply = (spec, firstId = Buffer.from('"z"')) => bytes(applyContentFaults(items, parseFaults(spec), firstId)).toString();

  test('duplicate-id gives the last note the first id of page 1', () => {
    assert.equal(apply('duplicate-id'), '[{"id":"a","title":"one"},{"id":"z","title":"two"}]');
  });

  test('huge-title replaces the first title', () => {
    assert.equal(apply('huge-title:14'), '[{"id":"a","title":"huge title hug"},{"id":"b","title":"two"}]');
  });

  test('deep adds nested arrays to the first note', () => {
    assert.equal(apply('deep:3'), '[{"deep":[[[]]],"id":"a","title":"one"},{"id":"b","title":"two"}]');
    assert.equal(bytes(applyContentFaults(itemsOf('[{}]'), parseFaults('deep:1'), null)).toString(), '[{"deep":[]}]');
  });

  test('several at once, and nothing to act on', () => {
    assert.equal(bytes(applyContentFaults(items, parseFaults('duplicate-id', 'huge-title:2', 'deep:1'), Buffer.from('"z"'))).toString(),
      '[{"deep":[],"id":"a","title":"hu"},{"id":"z","title":"two"}]');
    assert.equal(bytes(applyContentFaults(itemsOf('[]'), parseFaults('duplicate-id', 'huge-title', 'deep'), Buffer.from('"z"'))).toString(), '[]');
    assert.equal(apply('duplicate-id', null), items.toString());
  });
});
