// The notes of --count: their ids (strings, or integers with gaps), bytes and cursors, all fixed by the
// seed (shared/seeded.mjs), whatever style, page size or page serves them, and the list that the list
// styles page through, with the notes that `shift` faults insert in front.

import { mix32, sha256 } from '../shared/seeded.mjs';
import { rfc3339 } from '../shared/rfc3339.mjs';

/** The kinds of note id of generated notes: `n<i>` strings, or integers with gaps. */
export const ID_KINDS = ['string', 'int'];

/**
 * The cursor that requests page `pageIndex` (0-based, so at least 1) of a generated run: standard
 * base64 of 12 to 14 bytes of SHA-256 over the seed and the page index. The length cycles so that
 * some cursors end in `=` or `==` and some have no padding; most also contain `+` or `/`. One that
 * would start with `/` gets a `~` in front: the contract reads a leading `/` as a path, not a cursor.
 */
export function deriveCursor(seed, pageIndex) {
  const digest = sha256(`notes-server cursor ${seed} ${pageIndex}`);
  const cursor = digest.subarray(0, 12 + (pageIndex % 3)).toString('base64');
  // The contract reads a next value that starts with '/' as a path, so an opaque cursor never does.
  return cursor.startsWith('/') ? `~${cursor}` : cursor;
}

/** The page list of a generated run: `count` notes, `pageSize` a page; `count` 0 is one empty page. */
export function generatedPages(count, pageSize, seed) {
  const pageCount = Math.max(1, Math.ceil(count / pageSize));
  const cursor = (i) => (i === 0 ? null : deriveCursor(seed, i));
  return Array.from({ length: pageCount }, (_, i) => ({
    cursor: cursor(i),
    nextCursor: i + 1 < pageCount ? cursor(i + 1) : null,
  }));
}

// Titles as JSON string contents, escapes already written: plain ASCII, \u escapes, raw UTF-8,
// control-character and solidus escapes, and an escaped surrogate pair.
const TITLES = [
  (i) => `Note ${i}`,
  (i) => `Caf\\u00e9 \\"${i}\\"`,
  (i) => `日本語 ${i} 😀`,
  (i) => `tab\\tand back\\\\slash\\/${i}`,
  (i) => `\\ud83d\\ude00 pair ${i}`,
  (i) => `Grüße — “${i}”`,
];

// Integer ids: each group of INT_ID_GROUP notes takes the INT_ID_SPAN ids after the group before,
// less two that were "deleted" (never the group's first id), so the ids rise with gaps of one or two,
// as in a table with deletes, and id and index convert in constant time either way.
const INT_ID_GROUP = 8;

const INT_ID_SPAN = 10;

// The two deleted slots (1 to 9, ascending) of group `g` of the integer ids.
function deletedSlots(seed, g) {
  const r = mix32(seed ^ 0x1d5e1d5e, g);
  const a = 1 + (r % 9);
  let b = 1 + ((r >>> 8) % 8);
  if (b >= a) b++;
  return a < b ? [a, b] : [b, a];
}

/**
 * The id of note `i` (0-based) as a JS value: `n<i>`, or with idKind 'int' a positive integer, the
 * same for every style and page size, rising with `i`, with gaps (e.g. 1, 2, 4, 5, 7, …).
 */
export function noteId(seed, i, idKind = 'string') {
  if (idKind !== 'int') return `n${i}`;
  const g = Math.floor(i / INT_ID_GROUP);
  const [a, b] = deletedSlots(seed, g);
  let slot = i % INT_ID_GROUP;
  if (slot >= a) slot++;
  if (slot >= b) slot++;
  return g * INT_ID_SPAN + slot + 1;
}

/** The index of the generated note with integer id `id`, or -1 for an id that was never given or was deleted. */
export function intIdIndex(seed, id) {
  if (!Number.isSafeInteger(id) || id < 1) return -1;
  const g = Math.floor((id - 1) / INT_ID_SPAN);
  const slot = (id - 1) % INT_ID_SPAN;
  const [a, b] = deletedSlots(seed, g);
  if (slot === a || slot === b) return -1;
  return g * INT_ID_GROUP + slot - (slot > a ? 1 : 0) - (slot > b ? 1 : 0);
}

/** The largest integer id of `count` generated notes (0 for none): the notes that `shift` inserts count on from it. */
export function lastIntId(seed, count) {
  return count === 0 ? 0 : noteId(seed, count - 1, 'int');
}

/** The forms of a note: plain JSON, a JSON:API resource object, or Eve's (`_id` for `id`). */
export const NOTE_FORMS = ['plain', 'jsonapi', 'eve'];

/**
 * A note as JSON: `{"id":…,"title":"…","rank":…,"pinned":…}` (form 'plain'), the same with `_id` for
 * `id` (form 'eve': Python Eve's records have `_id`), or (form 'jsonapi') a JSON:API resource object,
 * `{"type":"notes","id":"<id as a string>","attributes":{"title":…,…}}`. `title` is the contents of a
 * JSON string, escapes already written; with `titles` false (--no-titles) the note has no title. With
 * `updatedAt` (ms since 1970, --updates) the note ends with `"updated_at":"<RFC 3339>"`.
 */
export function formatNote(id, title, rank, pinned, form, updatedAt = null, titles = true) {
  const updated = updatedAt === null ? '' : `,"updated_at":"${rfc3339(updatedAt)}"`;
  const attributes = `${titles ? `"title":"${title}",` : ''}"rank":${rank},"pinned":${pinned}${updated}`;
  if (form === 'jsonapi') return `{"type":"notes","id":${JSON.stringify(String(id))},"attributes":{${attributes}}}`;
  return `{"${form === 'eve' ? '_id' : 'id'}":${JSON.stringify(id)},${attributes}}`;
}

/**
 * Note `i` (0-based) of a generated run, compact: `{"id":"n<i>","title":…,"rank":…,"pinned":…}`, with
 * an integer id for idKind 'int' (see noteId), in `form` 'jsonapi' or 'eve', without its title for
 * `titles` false (see formatNote). Its bytes depend on the seed, `i`, the id kind, the form and
 * `titles` only, whatever page or style serves it.
 */
export function renderNote(seed, i, idKind = 'string', form = 'plain', titles = true) {
  const { title, rank, pinned } = noteFields(seed, i);
  return formatNote(noteId(seed, i, idKind), title, rank, pinned, form, null, titles);
}

/** The title (JSON string contents), rank and pinned flag of generated note `i`. */
export function noteFields(seed, i) {
  const r = mix32(seed, i);
  return { title: TITLES[r % TITLES.length](i), rank: (r >>> 8) % 10_000, pinned: ((r >>> 3) & 1) === 1 };
}

/** ... and of note `j` of those that `shift` inserts and /admin/add adds. */
export function newNoteFields(seed, j) {
  const r = mix32(seed ^ 0x5eed5eed, j);
  return { title: `New note ${j}`, rank: (r >>> 8) % 10_000, pinned: false };
}

/**
 * The id of note `j` of those that `shift` faults insert: `new<j>`, or with idKind 'int' the `j+1`-th
 * id after the last of the `count` generated notes, as a database numbers new rows.
 */
export function newNoteId(seed, j, idKind = 'string', count = 0) {
  return idKind === 'int' ? lastIntId(seed, count) + 1 + j : `new${j}`;
}

/** Note `j` of those that `shift` faults insert: `{"id":"new<j>","title":"New note <j>",…}` (ids: see newNoteId). */
export function renderNewNote(seed, j, idKind = 'string', count = 0, form = 'plain', titles = true) {
  const { title, rank, pinned } = newNoteFields(seed, j);
  return formatNote(newNoteId(seed, j, idKind, count), title, rank, pinned, form, null, titles);
}

/**
 * Page `pageIndex` (0-based) of a generated run, in the notes-gen page format: compact, `notes` first,
 * `next_cursor` last. Note ids are `n<index>` with the note's 0-based index in the run, or integers
 * (idKind 'int', see noteId); with `titles` false the notes have no title.
 */
export function renderGeneratedPage(count, pageSize, seed, pageIndex, idKind = 'string', titles = true) {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  const notes = [];
  for (let i = pageIndex * pageSize; i < Math.min(count, (pageIndex + 1) * pageSize); i++) notes.push(renderNote(seed, i, idKind, 'plain', titles));
  return contractPage(`[${notes.join(',')}]`, pageIndex + 1 < pages ? deriveCursor(seed, pageIndex + 1) : null);
}

/**
 * A page in the notes-gen page format, `{"notes":ITEMS,"next_cursor":NEXT}`: `items` the text of the notes
 * array, `nextCursor` a string or null. Returns `{body, items: [start, end]}`, the byte range of the array.
 */
export function contractPage(items, nextCursor) {
  const head = '{"notes":';
  const body = Buffer.from(`${head}${items},"next_cursor":${JSON.stringify(nextCursor)}}`);
  const start = Buffer.byteLength(head);
  return { body, items: [start, start + Buffer.byteLength(items)] };
}

/**
 * The list that the list styles page through: the `count` generated notes n0…, after the notes that
 * `shift` faults inserted at the front. `batches` are the shifts' sizes in the order they acted. Each
 * batch goes in front of the ones before it, and the batches' ids count on from each other: batches
 * [2, 3] give new2 new3 new4 new0 new1 n0 n1 …. One batch of N gives new0 … new<N-1> n0 …. With
 * idKind 'int' the ids are integers (noteId, newNoteId) of `seed`; with `titles` false (--no-titles)
 * the notes have no title.
 */
export class NoteList {
  constructor(count, batches = [], idKind = 'string', seed = 42, titles = true) {
    this.count = count;
    this.batches = batches;
    this.idKind = idKind;
    this.seed = seed;
    this.titles = titles;
    this.inserted = batches.reduce((sum, size) => sum + size, 0);
    this.length = this.inserted + count;
    // The first id number of each batch, in the order they acted.
    this.firstIds = [];
    batches.reduce((next, size) => { this.firstIds.push(next); return next + size; }, 0);
  }

  /** A key that tells lists apart: two lists with the same batches hold the same notes. */
  get signature() {
    return this.batches.join('+');
  }

  /** What is at position `p`: `{fresh: true, j}` for new<j>, `{fresh: false, i}` for n<i>. */
  at(p) {
    if (p >= this.inserted) return { fresh: false, i: p - this.inserted };
    for (let b = this.batches.length - 1; b >= 0; b--) {
      if (p < this.batches[b]) return { fresh: true, j: this.firstIds[b] + p };
      p -= this.batches[b];
    }
    throw new Error('unreachable');
  }

  /** The id of the note at position `p`, as a JS value (a string, or a number with idKind 'int'). */
  idAt(p) {
    const note = this.at(p);
    return note.fresh ? newNoteId(this.seed, note.j, this.idKind, this.count) : noteId(this.seed, note.i, this.idKind);
  }

  /** The position of the note whose id is written `id` (`n7`, `new2`; with idKind 'int', digits), or -1. */
  positionOf(id) {
    let fresh, number;
    if (this.idKind === 'int') {
      if (!/^[1-9]\d{0,15}$/.test(id)) return -1;
      const value = Number(id);
      const last = lastIntId(this.seed, this.count);
      if (value <= last) {
        const i = intIdIndex(this.seed, value);
        return i === -1 ? -1 : this.inserted + i;
      }
      [fresh, number] = [true, value - last - 1];
    } else {
      const match = /^(n|new)(0|[1-9]\d{0,15})$/.exec(id);
      if (!match) return -1;
      [fresh, number] = [match[1] === 'new', Number(match[2])];
      if (!fresh) return number < this.count ? this.inserted + number : -1;
    }
    let before = 0; // the notes of the batches in front of batch b
    for (let b = this.batches.length - 1; b >= 0; b--) {
      if (number >= this.firstIds[b] && number < this.firstIds[b] + this.batches[b]) return before + number - this.firstIds[b];
      before += this.batches[b];
    }
    return -1;
  }

  /** The JSON array of the notes at positions [start, end), compact, in `form` 'plain', 'jsonapi' or 'eve' (see formatNote). */
  render(seed, start, end, form = 'plain') {
    const notes = [];
    for (let p = start; p < Math.min(end, this.length); p++) {
      const note = this.at(p);
      notes.push(note.fresh
        ? renderNewNote(seed, note.j, this.idKind, this.count, form, this.titles)
        : renderNote(seed, note.i, this.idKind, form, this.titles));
    }
    return Buffer.from(`[${notes.join(',')}]`);
  }
}
