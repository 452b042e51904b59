// --updates: notes that change while the server runs (UpdatingNotes), the since= of GET /notes, the
// cursor pages of a walk with since, and POST /admin/touch and /admin/add, which change the notes.

import { UsageError } from '../shared/errors.mjs';
import { jsonError, jsonResponse } from '../shared/http.mjs';
import { rfc3339, parseRfc3339 } from '../shared/rfc3339.mjs';
import { mix32 } from '../shared/seeded.mjs';
import { isListStyle } from '../styles/catalog.mjs';
import { contractPage, deriveCursor, formatNote, newNoteFields, newNoteId, noteFields, noteId } from './generated.mjs';

/** When generated note 0 was last updated, with --updates; note i was updated i minutes later. */
export const UPDATES_EPOCH_MS = Date.UTC(2026, 10, 30, 8, 0, 0);

/** The time between two notes' updated_at, and between an edit or addition and the newest before it. */
export const UPDATES_STEP_MS = 60_000;

/** The most notes that one POST /admin/touch or /admin/add changes. */
export const MAX_ADMIN_COUNT = 100_000;

/**
 * The `since` of a request to a --updates server (`query`: URLSearchParams): null when it has none,
 * else `{ms}`, or `{problem}` with the status and message of the refusal: 422 for a value that is no
 * RFC 3339 date-time (parseRfc3339; a raw `+` in an offset arrives as a space), 400 for two values.
 */
export function parseSince(query) {
  const values = query.getAll('since');
  if (values.length === 0) return null;
  if (values.length > 1) return { problem: { status: 400, error: 'bad-request', message: 'more than one since' } };
  const ms = parseRfc3339(values[0]);
  if (ms === null) {
    const shown = JSON.stringify(values[0].slice(0, 100));
    return {
      problem: {
        status: 422,
        error: 'invalid-since',
        message: `since must be an RFC 3339 date-time such as 2026-11-30T08:00:00Z or 2026-11-30T09:00:00%2B01:00 (a + percent-encoded), not ${shown}`,
      },
    };
  }
  return { ms };
}

/**
 * What `/admin/touch` (`action` 'touch') or `/admin/add` asks of a query (URLSearchParams): `count`
 * (default 1, 0 to MAX_ADMIN_COUNT) and, for touch, the `id` values to edit instead of notes chosen by
 * the seed. Returns `{count, ids}`; throws UsageError.
 */
export function parseAdminQuery(action, query) {
  const counts = query.getAll('count');
  if (counts.length > 1) throw new UsageError('more than one count');
  const ids = query.getAll('id');
  if (action === 'add' && ids.length) throw new UsageError('/admin/add takes count only: the new notes get the next ids');
  if (counts.length && ids.length) throw new UsageError('give count or id, not both');
  const text = counts[0] ?? '1';
  const count = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(count <= MAX_ADMIN_COUNT)) throw new UsageError(`count must be an integer from 0 to ${MAX_ADMIN_COUNT}, not '${text}'`);
  if (new Set(ids).size !== ids.length) throw new UsageError('an id is given twice');
  return { count: ids.length || count, ids };
}

/**
 * The notes of a --updates server: the `count` generated notes (note i with updated_at
 * UPDATES_EPOCH_MS + i minutes, its bytes those of renderNote with `"updated_at"` last), in updated_at
 * order, which touch() and add() change while the server runs. Each edit or addition is a minute after
 * the newest note, so the order stays sorted and a note changed moves to the end. With `titles` false
 * (--no-titles) the notes have no title.
 */
export class UpdatingNotes {
  constructor(count, seed, idKind = 'string', titles = true) {
    this.count = count;
    this.seed = seed;
    this.idKind = idKind;
    this.titles = titles;
    // A record: i (a generated note) or j (an added one), its edits, and updatedAt in ms.
    this.order = Array.from({ length: count }, (_, i) => ({ i, j: null, edits: 0, updatedAt: UPDATES_EPOCH_MS + i * UPDATES_STEP_MS }));
    this.newest = UPDATES_EPOCH_MS + (count - 1) * UPDATES_STEP_MS;
    this.added = 0;
    this.draws = 0; // the seed's choices of notes to touch so far
  }

  get length() {
    return this.order.length;
  }

  /** The id of a record, as a JS value. */
  idOf(record) {
    return record.j === null ? noteId(this.seed, record.i, this.idKind) : newNoteId(this.seed, record.j, this.idKind, this.count);
  }

  /** A record as JSON, in `form` 'plain' or 'jsonapi' (see formatNote); an edited title is "Edit E: TITLE". */
  render(record, form = 'plain') {
    const fields = record.j === null ? noteFields(this.seed, record.i) : newNoteFields(this.seed, record.j);
    const title = record.edits === 0 ? fields.title : `Edit ${record.edits}: ${fields.title}`;
    return formatNote(this.idOf(record), title, fields.rank, fields.pinned, form, record.updatedAt, this.titles);
  }

  /** The position of the first note updated at or after `ms` (the length when there is none). */
  firstAtOrAfter(ms) {
    let [lo, hi] = [0, this.order.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order[mid].updatedAt < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The JSON array of the notes at positions [start, end), compact. */
  array(start, end, form = 'plain') {
    return Buffer.from(`[${this.order.slice(start, Math.max(start, end)).map((record) => this.render(record, form)).join(',')}]`);
  }

  /** The position of the note whose id is written `id` (`n7`, `new2`, digits for integer ids), or -1. */
  positionOf(id) {
    return this.order.findIndex((record) => String(this.idOf(record)) === id);
  }

  /**
   * Edits `count` notes chosen by the seed (distinct; all of them when there are fewer), or the notes
   * of `ids`: each gets a new title and the updated_at a minute after the newest, oldest first.
   * Returns the notes edited, as JSON; throws UsageError for an id that no note has.
   */
  touch(count, ids = []) {
    let positions;
    if (ids.length) {
      positions = ids.map((id) => {
        const position = this.positionOf(id);
        if (position === -1) throw new UsageError(`no note has the id '${id.slice(0, 100)}'`);
        return position;
      });
    } else {
      const chosen = new Set();
      while (chosen.size < Math.min(count, this.order.length)) chosen.add(mix32(this.seed ^ 0x70c4ed, this.draws++) % this.order.length);
      positions = [...chosen];
    }
    positions.sort((a, b) => a - b);
    const records = positions.map((position) => this.order[position]);
    const moved = new Set(positions);
    this.order = this.order.filter((_, position) => !moved.has(position));
    for (const record of records) {
      record.edits++;
      record.updatedAt = this.newest += UPDATES_STEP_MS;
      this.order.push(record);
    }
    return records.map((record) => this.render(record));
  }

  /** Adds `count` notes (new0, new1, …; see newNoteId), each a minute after the newest. Returns them as JSON. */
  add(count) {
    const records = [];
    for (let k = 0; k < count; k++) {
      const record = { i: null, j: this.added++, edits: 0, updatedAt: this.newest += UPDATES_STEP_MS };
      this.order.push(record);
      records.push(record);
    }
    return records.map((record) => this.render(record));
  }

  /**
   * Page `pageIndex` (0-based) of the notes from position `start` on, `pageSize` a page, in the
   * notes-gen page format as renderGeneratedPage writes it, `next_cursor` deriveCursor's; a page past
   * the last is empty, with no next.
   */
  renderPage(start, pageSize, pageIndex) {
    const length = this.order.length - start;
    const pages = Math.max(1, Math.ceil(length / pageSize));
    const from = start + pageIndex * pageSize;
    const items = this.array(from, Math.min(this.order.length, from + pageSize)).toString();
    return contractPage(items, pageIndex + 1 < pages ? deriveCursor(this.seed, pageIndex + 1) : null);
  }
}

/** Why a style cannot be served with --updates, or null: the notes change, so only the cursor styles serve them. */
export function updatesStyleProblem(style, idKind = 'string') {
  return isListStyle(style, idKind)
    ? `--updates serves the cursor styles (contract, drf, link, header), not ${style}${style === 'drf' ? ' with integer ids' : ''}`
    : null;
}

/**
 * The cursor pages of --updates: the notes updated at or after `sinceMs` (all for null), --page-size a
 * page, with the cursors of --count (page k's is deriveCursor(seed, k)), so that a walk with since
 * pages through the filtered list; a cursor past its last page serves an empty page with no next.
 */
export function updatesView(state, sinceMs) {
  const { updates, generated: { pageSize, seed } } = state;
  const start = sinceMs === null ? 0 : updates.firstAtOrAfter(sinceMs);
  const pages = Math.max(1, Math.ceil((updates.length - start) / pageSize));
  // Every cursor that a page of the whole list could have, made once each.
  const cursors = state.updateCursors;
  for (let k = cursors.size + 1; k < Math.max(1, Math.ceil(updates.length / pageSize)); k++) cursors.set(deriveCursor(seed, k), k);
  const cursor = (index) => (index === 0 ? null : deriveCursor(seed, index));
  return {
    load: async (index) => updates.renderPage(start, pageSize, index),
    cursor,
    nextCursor: (index) => (index + 1 < pages ? cursor(index + 1) : null),
    byCursor: cursors,
  };
}

export const ADMIN_PREFIX = '/admin/';

const ADMIN_ACTIONS = { '/admin/touch': 'touch', '/admin/add': 'add' };

/**
 * Answers POST /admin/touch and POST /admin/add of a --updates server (on the main listener only): the
 * notes change at once, for every request after this one, and the answer lists the notes changed as
 * GET /notes now serves them. 404 for another /admin/ path, 405 for another method, 400 for a bad query.
 */
export function adminResponse(req, pathname, query, state) {
  req.resume(); // a body, if any, is not read
  const action = ADMIN_ACTIONS[pathname];
  if (action === undefined) return jsonError(404, 'not-found', 'no such path; POST /admin/touch and POST /admin/add change the notes');
  if (req.method !== 'POST') return jsonError(405, 'method-not-allowed', 'only POST', { Allow: 'POST' });
  let changed;
  try {
    const { count, ids } = parseAdminQuery(action, query);
    changed = action === 'touch' ? state.updates.touch(count, ids) : state.updates.add(count);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return jsonError(400, 'bad-request', error.message);
  }
  const { updates } = state;
  const newest = updates.length === 0 ? null : rfc3339(updates.order.at(-1).updatedAt);
  const body = `{"${action === 'touch' ? 'touched' : 'added'}":[${changed.join(',')}],"count":${updates.length},"newest":${JSON.stringify(newest)}}`;
  return jsonResponse(200, [Buffer.from(body)]);
}
