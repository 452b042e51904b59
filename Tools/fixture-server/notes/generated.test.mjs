// Unit tests of the generated notes (generated.mjs): cursors, pages, ids, the list with shifted notes,
// --no-titles. Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyContentFaults } from '../faults/hostile-bodies.mjs';
import { indexPages } from './directory.mjs';
import { deriveCursor, generatedPages, intIdIndex, lastIntId, NOTE_FORMS, noteId, NoteList, renderGeneratedPage, renderNewNote, renderNote } from './generated.mjs';
import { scanNotes } from './scan.mjs';
import { UpdatingNotes } from './updates.mjs';
import { parseArgs } from '../server/options.mjs';
import { notesOf } from '../testing/notes-dir.mjs';
import { bytes, parseFaults } from '../testing/units.mjs';

describe('cursors and generated pages', () => {
  test('cursors: deterministic standard base64, some with + / or =', () => {
    const cursors = generatedPages(100, 1, 42).slice(1).map((p) => p.cursor);
    assert.deepEqual(cursors, generatedPages(100, 1, 42).slice(1).map((p) => p.cursor));
    assert.notDeepEqual(cursors, generatedPages(100, 1, 43).slice(1).map((p) => p.cursor));
    for (const cursor of cursors) {
      // A leading '/' would make the cursor a path under the contract: such cursors carry a '~' first.
      assert.ok(!cursor.startsWith('/'), cursor);
      const base64 = cursor.startsWith('~') ? cursor.slice(1) : cursor;
      assert.match(base64, /^[A-Za-z0-9+/]+={0,2}$/);
      assert.equal(Buffer.from(base64, 'base64').toString('base64'), base64);
    }
    // Seed 7's cursor of page index 4 (the fifth page) is one whose base64 starts with '/'.
    assert.equal(deriveCursor(7, 4), '~/7H8JH0esHOqD5mO5g==');
    assert.equal(new Set(cursors).size, cursors.length);
    assert.ok(cursors.some((c) => c.endsWith('==')) && cursors.some((c) => /[^=]=$/.test(c)) && cursors.some((c) => !c.endsWith('=')));
    assert.ok(cursors.some((c) => c.includes('+')) && cursors.some((c) => c.includes('/')));
  });

  test('pages chain from cursor to cursor', () => {
    const pages = generatedPages(25, 10, 7);
    assert.equal(pages.length, 3);
    assert.equal(pages[0].cursor, null);
    assert.equal(pages[2].nextCursor, null);
    assert.deepEqual([...indexPages(pages).values()], [1, 2]);
  });

  test('rendered pages are contract pages with their items range', () => {
    const ids = [];
    generatedPages(25, 10, 7).forEach((meta, i) => {
      const { body, items } = renderGeneratedPage(25, 10, 7, i);
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
    const { body } = renderGeneratedPage(60, 60, 42, 0);
    const text = body.toString();
    assert.match(text, /[^\x00-\x7f]/);
    assert.match(text, /\\u00e9/);
    assert.match(text, /\\"/);
    assert.match(text, /\\\\/);
  });

  test("a note's bytes depend on the seed and its index only, not on the page size", () => {
    const notesOf = (pageSize) => generatedPages(25, pageSize, 7).flatMap((_, i) => {
      const { body, items } = renderGeneratedPage(25, pageSize, 7, i);
      const array = body.subarray(...items);
      return scanNotes(array).map((note) => array.subarray(note.start, note.end).toString());
    });
    const expected = Array.from({ length: 25 }, (_, i) => renderNote(7, i));
    for (const pageSize of [1, 7, 10, 25, 100]) assert.deepEqual(notesOf(pageSize), expected, `page size ${pageSize}`);
    assert.notEqual(renderNote(8, 3), renderNote(7, 3));
    assert.equal(renderNote(7, 3), renderNote(7, 3));
  });

  test('integer ids: from 1, strictly increasing with gaps of one or two, fixed by the seed; back to the index', () => {
    for (const seed of [0, 7, 42, 0xffffffff]) {
      const ids = Array.from({ length: 2000 }, (_, i) => noteId(seed, i, 'int'));
      assert.equal(ids[0], 1);
      for (let i = 1; i < ids.length; i++) {
        assert.ok(Number.isSafeInteger(ids[i]) && ids[i] > ids[i - 1], `seed ${seed}, index ${i}`);
        assert.ok(ids[i] - ids[i - 1] <= 3, `seed ${seed}, index ${i}`);
      }
      // Two of every ten ids are missing, as after deletes.
      assert.ok(ids.at(-1) > 2490 && ids.at(-1) <= 2500);
      assert.ok(ids.some((id, i) => i > 0 && id - ids[i - 1] === 2) && ids.some((id, i) => i > 0 && id - ids[i - 1] === 3));
      const given = new Set(ids);
      for (let id = 1; id <= 2500; id++) assert.equal(intIdIndex(seed, id), given.has(id) ? ids.indexOf(id) : -1, `seed ${seed}, id ${id}`);
      for (const id of [0, -1, 1.5, NaN]) assert.equal(intIdIndex(seed, id), -1);
    }
    assert.deepEqual(Array.from({ length: 10 }, (_, i) => noteId(7, i, 'int')), [1, 2, 4, 5, 6, 7, 8, 10, 11, 12]);
    assert.deepEqual(Array.from({ length: 10 }, (_, i) => noteId(42, i, 'int')), [1, 3, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.notDeepEqual(Array.from({ length: 40 }, (_, i) => noteId(7, i, 'int')), Array.from({ length: 40 }, (_, i) => noteId(8, i, 'int')));
    assert.equal(noteId(7, 3), 'n3');
    assert.equal(lastIntId(7, 0), 0);
    assert.equal(lastIntId(7, 10), 12);
  });

  test('integer ids in notes and pages: the same note otherwise, byte for byte', () => {
    for (let i = 0; i < 30; i++) {
      const plain = renderNote(7, i);
      const int = renderNote(7, i, 'int');
      assert.equal(int, plain.replace(`"id":"n${i}"`, `"id":${noteId(7, i, 'int')}`));
      assert.deepEqual(Object.keys(JSON.parse(int)), ['id', 'title', 'rank', 'pinned']);
    }
    const { body, items } = renderGeneratedPage(25, 10, 7, 1, 'int');
    const page = JSON.parse(body);
    assert.deepEqual(page.notes.map((n) => n.id), Array.from({ length: 10 }, (_, i) => noteId(7, 10 + i, 'int')));
    assert.ok(page.notes.every((n) => typeof n.id === 'number'));
    assert.deepEqual(JSON.parse(body.subarray(...items)), page.notes);
    assert.equal(page.next_cursor, deriveCursor(7, 2));
  });

  test('JSON:API resource objects: the id as a string, the other members as attributes', () => {
    const note = JSON.parse(renderNote(7, 3, 'int', 'jsonapi'));
    const plain = JSON.parse(renderNote(7, 3, 'int'));
    assert.deepEqual(Object.keys(note), ['type', 'id', 'attributes']);
    assert.deepEqual(note, { type: 'notes', id: String(plain.id), attributes: { title: plain.title, rank: plain.rank, pinned: plain.pinned } });
    assert.equal(JSON.parse(renderNote(7, 3, 'string', 'jsonapi')).id, 'n3');
    assert.equal(renderNote(7, 3, 'string', 'jsonapi'), `{"type":"notes","id":"n3","attributes":{${renderNote(7, 3).slice('{"id":"n3",'.length)}}`);
  });

  test('--count 0 is one empty page', () => {
    assert.deepEqual(generatedPages(0, 10, 1), [{ cursor: null, nextCursor: null }]);
    const { body, items } = renderGeneratedPage(0, 10, 1, 0);
    assert.equal(body.toString(), '{"notes":[],"next_cursor":null}');
    assert.equal(body.subarray(...items).toString(), '[]');
  });
});

describe('the list of the offset, page and keyset styles', () => {
  test('without shifts: n0 to n<N-1>', () => {
    const list = new NoteList(5);
    assert.equal(list.length, 5);
    assert.deepEqual(Array.from({ length: 5 }, (_, p) => list.idAt(p)), ['n0', 'n1', 'n2', 'n3', 'n4']);
    assert.deepEqual(['n0', 'n4', 'n5', 'new0', 'n01', 'n-1', 'x', ''].map((id) => list.positionOf(id)), [0, 4, -1, -1, -1, -1, -1, -1]);
    const items = list.render(7, 1, 3);
    assert.equal(items.toString(), `[${renderNote(7, 1)},${renderNote(7, 2)}]`);
    assert.equal(list.render(7, 4, 99).toString(), `[${renderNote(7, 4)}]`);
    assert.equal(list.render(7, 5, 9).toString(), '[]');
  });

  test('one shift puts new0 to new<N-1> first; later shifts go in front and number on', () => {
    const one = new NoteList(3, [2]);
    assert.deepEqual(Array.from({ length: one.length }, (_, p) => one.idAt(p)), ['new0', 'new1', 'n0', 'n1', 'n2']);
    const two = new NoteList(2, [2, 3]);
    const ids = Array.from({ length: two.length }, (_, p) => two.idAt(p));
    assert.deepEqual(ids, ['new2', 'new3', 'new4', 'new0', 'new1', 'n0', 'n1']);
    assert.deepEqual(ids.map((id) => two.positionOf(id)), ids.map((_, p) => p));
    assert.equal(two.positionOf('new5'), -1);
    assert.notEqual(one.signature, two.signature);
    const notes = JSON.parse(two.render(7, 2, 4));
    assert.deepEqual(notes.map((note) => note.id), ['new4', 'new0']);
    assert.deepEqual(Object.keys(notes[0]), ['id', 'title', 'rank', 'pinned']);
    assert.equal(two.render(7, 5, 6).toString(), `[${renderNote(7, 0)}]`);
  });

  test('integer ids: positions by the digits of the id; shifted notes count on from the last id', () => {
    const list = new NoteList(10, [], 'int', 7);
    const ids = Array.from({ length: 10 }, (_, p) => list.idAt(p));
    assert.deepEqual(ids, [1, 2, 4, 5, 6, 7, 8, 10, 11, 12]);
    assert.deepEqual(ids.map((id) => list.positionOf(String(id))), ids.map((_, p) => p));
    for (const text of ['3', '9', '13', '0', '01', '-1', 'n1', '1.0', '', ' 1']) assert.equal(list.positionOf(text), -1, text);
    const shifted = new NoteList(10, [2, 3], 'int', 7);
    const all = Array.from({ length: shifted.length }, (_, p) => shifted.idAt(p));
    assert.deepEqual(all, [15, 16, 17, 13, 14, ...ids]);
    assert.deepEqual(all.map((id) => shifted.positionOf(String(id))), all.map((_, p) => p));
    assert.equal(shifted.positionOf('18'), -1);
    const notes = JSON.parse(shifted.render(7, 4, 6));
    assert.deepEqual(notes.map((n) => n.id), [14, 1]);
    assert.deepEqual(Object.keys(notes[0]), ['id', 'title', 'rank', 'pinned']);
    assert.deepEqual(JSON.parse(shifted.render(7, 4, 6, 'jsonapi')).map((n) => n.id), ['14', '1']);
    assert.equal(new NoteList(0, [1], 'int', 7).idAt(0), 1);
  });

});

describe('notes without titles (--no-titles)', () => {
  test('parseArgs: --no-titles goes with --count; it takes no value', () => {
    assert.equal(parseArgs(['--count', '1']).noTitles, false);
    assert.equal(parseArgs(['--count', '1', '--no-titles']).noTitles, true);
    assert.throws(() => parseArgs(['--dir', 'd', '--no-titles']), /--no-titles goes with --count, not --dir/);
    assert.throws(() => parseArgs(['--count', '1', '--no-titles=yes']), /--no-titles takes no value/);
  });

  test('every form of every note, without its title member and otherwise byte for byte the same', () => {
    for (const idKind of ['string', 'int']) {
      for (const form of NOTE_FORMS) {
        for (let i = 0; i < 12; i++) {
          const full = renderNote(7, i, idKind, form);
          const bare = renderNote(7, i, idKind, form, false);
          const title = `"title":${JSON.stringify(JSON.parse(renderNote(7, i)).title)},`;
          assert.ok(!bare.includes('"title"'), bare);
          // The title's bytes as written (escapes kept), cut out.
          const written = /"title":"(?:[^"\\]|\\.)*",/.exec(full)[0];
          assert.equal(JSON.parse(`{${written.slice(0, -1)}}`).title, JSON.parse(`{${title.slice(0, -1)}}`).title);
          assert.equal(bare, full.replace(written, ''), `${idKind} ${form} ${i}`);
        }
      }
    }
    assert.equal(renderNewNote(7, 0, 'string', 0, 'plain', false), renderNewNote(7, 0).replace('"title":"New note 0",', ''));
    const { body } = renderGeneratedPage(5, 5, 7, 0, 'string', false);
    assert.deepEqual(JSON.parse(body).notes.map((n) => Object.keys(n)), Array(5).fill(['id', 'rank', 'pinned']));
    const list = new NoteList(3, [1], 'int', 7, false);
    assert.deepEqual(JSON.parse(list.render(7, 0, 4)).map((n) => Object.keys(n)), Array(4).fill(['id', 'rank', 'pinned']));
    assert.deepEqual(JSON.parse(list.render(7, 0, 1, 'eve')).map((n) => Object.keys(n)), [['_id', 'rank', 'pinned']]);
    const updating = new UpdatingNotes(3, 7, 'string', false);
    assert.deepEqual(Object.keys(JSON.parse(updating.array(0, 3))[0]), ['id', 'rank', 'pinned', 'updated_at']);
    assert.deepEqual(Object.keys(JSON.parse(updating.touch(1)[0])), ['id', 'rank', 'pinned', 'updated_at']);
  });

  test('huge-title has nothing to act on', () => {
    const items = new NoteList(2, [], 'string', 7, false).render(7, 0, 2);
    assert.equal(bytes(applyContentFaults(items, parseFaults('huge-title:5'), null)).toString(), items.toString());
  });
});
