// Unit tests of --updates (updates.mjs): dates, since, /admin/'s query, the notes as they change. Run with
// `node --test Tools/`.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generatedPages, lastIntId, renderNewNote, renderNote } from './generated.mjs';
import { MAX_ADMIN_COUNT, parseAdminQuery, parseSince, UPDATES_EPOCH_MS, UPDATES_STEP_MS, updatesStyleProblem, UpdatingNotes } from './updates.mjs';
import { parseArgs } from '../server/options.mjs';
import { UsageError } from '../shared/errors.mjs';
import { parseRfc3339, rfc3339 } from '../shared/rfc3339.mjs';

describe('notes that change (--updates)', () => {
  const minute = (i) => rfc3339(UPDATES_EPOCH_MS + i * UPDATES_STEP_MS);
  /** A generated note's bytes with updated_at last, as --updates serves it before any change. */
  const withUpdatedAt = (json, updatedAt) => `${json.slice(0, -1)},"updated_at":"${updatedAt}"}`;

  test('parseArgs: --updates goes with --count and a cursor style', () => {
    assert.equal(parseArgs(['--count', '5']).updates, false);
    assert.equal(parseArgs(['--count', '5', '--updates']).updates, true);
    for (const style of ['contract', 'drf', 'link', 'header']) assert.equal(parseArgs(['--count', '5', '--updates', '--style', style]).style, style);
    assert.equal(parseArgs(['--count', '5', '--updates', '--id-kind', 'int']).idKind, 'int');
    assert.throws(() => parseArgs(['--dir', 'x', '--updates']), /--updates goes with --count, not --dir/);
    assert.throws(() => parseArgs(['--count', '5', '--updates=yes']), /--updates takes no value/);
    for (const style of ['offset', 'page', 'keyset', 'jsonapi']) {
      assert.throws(() => parseArgs(['--count', '5', '--updates', '--style', style]), new RegExp(`cursor styles .*not ${style}$`));
    }
    assert.throws(() => parseArgs(['--count', '5', '--updates', '--style', 'drf', '--id-kind', 'int']), /not drf with integer ids/);
    assert.equal(updatesStyleProblem('link'), null);
  });

  test('rfc3339 writes UTC with Z, milliseconds only when there are some', () => {
    assert.equal(rfc3339(UPDATES_EPOCH_MS), '2026-11-30T08:00:00Z');
    assert.equal(minute(999), '2026-12-01T00:39:00Z');
    assert.equal(rfc3339(UPDATES_EPOCH_MS + 250), '2026-11-30T08:00:00.250Z');
  });

  test('parseRfc3339: Z or an offset, T and Z in either case, fractions, leap days; null for anything else', () => {
    const epoch = UPDATES_EPOCH_MS;
    for (const [text, ms] of [
      ['2026-11-30T08:00:00Z', epoch], ['2026-11-30t08:00:00z', epoch], ['2026-11-30T09:00:00+01:00', epoch],
      ['2026-11-30T02:30:00-05:30', epoch], ['2026-11-30T08:00:00.5Z', epoch + 500], ['2026-11-30T08:00:00.000001Z', epoch + 0.001],
      ['2026-11-30T08:00:00+00:00', epoch], ['2026-11-30T08:00:00-00:00', epoch], ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
      ['0050-01-01T00:00:00Z', -60589296000000], ['2026-11-30T07:59:60Z', epoch],
    ]) {
      assert.equal(parseRfc3339(text), ms, text);
    }
    for (const text of ['', '2026-11-30', '2026-11-30 08:00:00Z', '2026-11-30T08:00:00', '2026-11-30T08:00Z', '2026-11-30T08:00:00 01:00',
      '2026-11-30T08:00:00+0100', '2026-13-01T00:00:00Z', '2026-00-01T00:00:00Z', '2023-02-29T00:00:00Z', '2026-04-31T00:00:00Z',
      '2026-11-30T24:00:00Z', '2026-11-30T08:60:00Z', '2026-11-30T08:00:61Z', '2026-11-30T08:00:00+24:00', '2026-11-30T08:00:00.Z',
      ' 2026-11-30T08:00:00Z', '2026-11-30T08:00:00Zjunk', '1764489600', '２０２６-11-30T08:00:00Z']) {
      assert.equal(parseRfc3339(text), null, JSON.stringify(text));
    }
  });

  test('parseSince: none, a time, 422 for what is no RFC 3339 date-time (a raw + arrives as a space), 400 for two', () => {
    assert.equal(parseSince(new URLSearchParams('cursor=x')), null);
    assert.deepEqual(parseSince(new URLSearchParams('since=2026-11-30T09%3A00%3A00%2B01%3A00')), { ms: UPDATES_EPOCH_MS });
    const raw = parseSince(new URLSearchParams('since=2026-11-30T09:00:00+01:00'));
    assert.equal(raw.problem.status, 422);
    assert.equal(raw.problem.error, 'invalid-since');
    assert.match(raw.problem.message, /^since must be an RFC 3339 date-time .* not "2026-11-30T09:00:00 01:00"$/);
    assert.equal(parseSince(new URLSearchParams('since=')).problem.status, 422);
    assert.equal(parseSince(new URLSearchParams(`since=${'9'.repeat(500)}`)).problem.message.length < 300, true);
    assert.deepEqual(parseSince(new URLSearchParams('since=2026-11-30T08:00:00Z&since=2026-11-30T08:00:00Z')).problem,
      { status: 400, error: 'bad-request', message: 'more than one since' });
  });

  test('parseAdminQuery: count (default 1, 0 to the cap) or ids; 400s', () => {
    const q = (text) => new URLSearchParams(text);
    assert.deepEqual(parseAdminQuery('touch', q('')), { count: 1, ids: [] });
    assert.deepEqual(parseAdminQuery('add', q('count=0')), { count: 0, ids: [] });
    assert.deepEqual(parseAdminQuery('touch', q(`count=${MAX_ADMIN_COUNT}`)), { count: MAX_ADMIN_COUNT, ids: [] });
    assert.deepEqual(parseAdminQuery('touch', q('id=n3&id=n1')), { count: 2, ids: ['n3', 'n1'] });
    for (const [action, text, message] of [
      ['touch', 'count=-1', /count must be an integer from 0 to 100000, not '-1'/], ['add', 'count=100001', /not '100001'/],
      ['add', 'count=x', /not 'x'/], ['add', 'count=1&count=2', /more than one count/], ['add', 'id=n1', /takes count only/],
      ['touch', 'count=1&id=n1', /count or id, not both/], ['touch', 'id=n1&id=n1', /an id is given twice/],
    ]) {
      assert.throws(() => parseAdminQuery(action, q(text)), (error) => error instanceof UsageError && message.test(error.message), text);
    }
  });

  test('before any change: the generated notes byte for byte, updated_at last, a minute apart by position', () => {
    for (const idKind of ['string', 'int']) {
      const notes = new UpdatingNotes(250, 7, idKind);
      assert.equal(notes.length, 250);
      const served = JSON.parse(notes.array(0, 250));
      const expected = Array.from({ length: 250 }, (_, i) => JSON.parse(withUpdatedAt(renderNote(7, i, idKind), minute(i))));
      assert.deepEqual(served, expected);
      assert.equal(notes.array(3, 4).toString(), `[${withUpdatedAt(renderNote(7, 3, idKind), minute(3))}]`);
      assert.equal(notes.render(notes.order[0], 'jsonapi'), renderNote(7, 0, idKind, 'jsonapi').replace(/\}\}$/, `,"updated_at":"${minute(0)}"}}`));
    }
    assert.deepEqual(JSON.parse(new UpdatingNotes(0, 7).array(0, 10)), []);
  });

  test('firstAtOrAfter: updated at or after, by binary search', () => {
    const notes = new UpdatingNotes(10, 7);
    assert.equal(notes.firstAtOrAfter(-Infinity), 0);
    assert.equal(notes.firstAtOrAfter(UPDATES_EPOCH_MS), 0);
    assert.equal(notes.firstAtOrAfter(UPDATES_EPOCH_MS + 1), 1);
    assert.equal(notes.firstAtOrAfter(UPDATES_EPOCH_MS + 9 * UPDATES_STEP_MS), 9);
    assert.equal(notes.firstAtOrAfter(UPDATES_EPOCH_MS + 9 * UPDATES_STEP_MS + 0.001), 10);
    assert.equal(new UpdatingNotes(0, 7).firstAtOrAfter(0), 0);
  });

  test('touch: notes chosen by the seed, new titles, a minute after the newest each, moved to the end in order', () => {
    const notes = new UpdatingNotes(100, 7);
    const touched = notes.touch(3).map((json) => JSON.parse(json));
    assert.equal(touched.length, 3);
    assert.deepEqual(touched.map((note) => note.updated_at), [minute(100), minute(101), minute(102)]);
    const before = Object.fromEntries(JSON.parse(new UpdatingNotes(100, 7).array(0, 100)).map((note) => [note.id, note]));
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
    assert.deepEqual(new UpdatingNotes(100, 7).touch(3).map((json) => JSON.parse(json).id), touched.map((note) => note.id));
    assert.notDeepEqual(new UpdatingNotes(100, 8).touch(3).map((json) => JSON.parse(json).id), touched.map((note) => note.id));
    // A second edit of the same note counts on; asking for more notes than there are edits them all.
    const again = JSON.parse(notes.touch(0, [touched[0].id])[0]);
    assert.equal(again.title, `Edit 2: ${before[touched[0].id].title}`);
    assert.equal(again.updated_at, minute(103));
    assert.equal(new UpdatingNotes(4, 7).touch(10).length, 4);
    assert.throws(() => notes.touch(0, ['n100']), /no note has the id 'n100'/);
    assert.deepEqual(notes.touch(0), []);
  });

  test('add: new0, new1, … (integer ids after the last with idKind int), a minute after the newest, at the end', () => {
    const notes = new UpdatingNotes(5, 7);
    notes.touch(0, ['n2']);
    const added = notes.add(2).map((json) => JSON.parse(json));
    assert.deepEqual(added.map((note) => [note.id, note.title, note.updated_at]), [['new0', 'New note 0', minute(6)], ['new1', 'New note 1', minute(7)]]);
    assert.equal(notes.add(1)[0], withUpdatedAt(renderNewNote(7, 2), minute(8)));
    assert.deepEqual(JSON.parse(notes.array(0, notes.length)).map((note) => note.id), ['n0', 'n1', 'n3', 'n4', 'n2', 'new0', 'new1', 'new2']);
    assert.equal(notes.positionOf('new1'), 6);
    assert.equal(notes.positionOf('n9'), -1);
    const ints = new UpdatingNotes(5, 7, 'int');
    assert.equal(JSON.parse(ints.add(1)[0]).id, lastIntId(7, 5) + 1);
    assert.equal(ints.positionOf(String(lastIntId(7, 5) + 1)), 5);
    assert.equal(JSON.parse(new UpdatingNotes(0, 7).add(1)[0]).updated_at, minute(0));
  });

  test('renderPage: the contract page of the notes from a position on, with the cursors of --count', () => {
    const notes = new UpdatingNotes(25, 7);
    const pages = generatedPages(25, 10, 7);
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
