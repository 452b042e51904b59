// Unit tests of the note scanner (scan.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFault } from '../faults/grammar.mjs';
import { applyContentFaults } from '../faults/hostile-bodies.mjs';
import { renderNote } from './generated.mjs';
import { firstNoteId, scanNotes } from './scan.mjs';
import { contract } from '../testing/notes-dir.mjs';
import { bytes } from '../testing/units.mjs';

describe('scanNotes', () => {
  const itemsOf = (text) => Buffer.from(text);

  test('finds notes, ids and titles in the contract fixtures without decoding them', () => {
    const valid = contract('valid-page.json');
    const items = valid.subarray(valid.indexOf('['), valid.lastIndexOf(']') + 1);
    const notes = scanNotes(items);
    assert.equal(notes.length, 3);
    assert.deepEqual(notes.map((n) => items.subarray(...n.id).toString()), ['"n1"', '"n2"', '"n3"']);
    assert.equal(items.subarray(...notes[1].title).toString(), '"Caf\\u00e9 \\"quotes\\" \\\\ back\\/slash"');
    assert.deepEqual(notes.map((n) => JSON.parse(items.subarray(n.start, n.end)).id), ['n1', 'n2', 'n3']);
  });

  test('JSON:API resource objects: the id, and the title among the attributes', () => {
    const items = Buffer.from(`[${renderNote(7, 0, 'int', 'jsonapi')},${renderNote(7, 1, 'int', 'jsonapi')}]`);
    const notes = scanNotes(items);
    assert.equal(notes.length, 2);
    assert.equal(items.subarray(...notes[0].id).toString(), '"1"');
    assert.equal(JSON.parse(items.subarray(...notes[1].title)), JSON.parse(renderNote(7, 1)).title);
    assert.equal(notes[0].members, 3);
    const huge = JSON.parse(bytes(applyContentFaults(items, [parseFault('huge-title:5', 'request')], null)));
    assert.equal(huge[0].attributes.title, 'huge ');
    const duplicated = JSON.parse(bytes(applyContentFaults(items, [parseFault('duplicate-id', 'request')], Buffer.from('"1"'))));
    assert.deepEqual(duplicated.map((n) => n.id), ['1', '1']);
  });

  test('ids of nested objects are not note ids', () => {
    const unknown = JSON.parse(contract('unknown-fields.json'));
    const items = itemsOf(JSON.stringify(unknown.notes));
    assert.deepEqual(scanNotes(items).map((n) => items.subarray(...n.id).toString()), ['"x1"', '"x2"']);
  });

  test('non-objects, empty objects, deep nesting, whitespace', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const items = itemsOf(` [ "s" , {} , {"x": ${deep}, "id" : "d"}, 3 ] `);
    const notes = scanNotes(items);
    assert.deepEqual(notes.map((n) => [n.object, n.members]), [[false, 0], [true, 0], [true, 2], [false, 0]]);
    assert.equal(items.subarray(...notes[2].id).toString(), '"d"');
    assert.deepEqual(scanNotes(itemsOf('[]')), []);
  });

  for (const bad of ['{}', '[', '[{"id" "x"}]', '[{"id":"x}]', '[1 2]', '[{"a":}]']) {
    test(`throws on ${bad}`, () => assert.throws(() => scanNotes(itemsOf(bad)), /scanNotes/));
  }

  test('firstNoteId', () => {
    assert.equal(firstNoteId(itemsOf('[{"title":"t","id":"first"},{"id":"b"}]')).toString(), '"first"');
    assert.equal(firstNoteId(itemsOf('[]')), null);
  });
});
