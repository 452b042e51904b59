// The notes by position, whatever serves them (--count, --updates, a notes-gen directory), for the
// endpoints that page through them by position of their own: /graphql and the Notion-style query.

import { scanNotes } from './scan.mjs';
import { NoteList } from './generated.mjs';

/**
 * Random access to the notes in the order the cursor styles serve them, for /graphql and the Notion
 * query: `length()`, `array(start, end)` (a JSON array of the notes at positions [start, end), each
 * note's bytes as GET /notes serves them) and `positionOf(id)` (-1 for no such note). Made once.
 */
export function noteAccess(state) {
  state.noteAccess ??= state.updates ? updatingNotes(state.updates) : state.generated ? generatedNotes(state.generated) : directoryNotes(state);
  return state.noteAccess;
}

/** The notes of --updates, as they are at each call (all of them: since filters GET /notes only). */
function updatingNotes(updates) {
  return {
    length: async () => updates.length,
    array: async (start, end) => updates.array(start, Math.min(end, updates.length)),
    positionOf: async (id) => updates.positionOf(id),
  };
}

function generatedNotes({ count, seed, idKind, titles }) {
  const list = new NoteList(count, [], idKind, seed, titles);
  return {
    length: async () => count,
    array: async (start, end) => list.render(seed, start, end),
    positionOf: async (id) => list.positionOf(id),
  };
}

/**
 * The notes of a notes-gen directory by position: where each page starts comes from the manifest's
 * `notes` counts (a page without one is read and counted), and a page's notes are found in its bytes
 * with scanNotes when first asked for (kept with the cached page), checked against its count. Ids
 * (for Query.node) are indexed at the first lookup, by reading every page.
 */
function directoryNotes(state) {
  const scanned = async (index) => {
    const page = await state.cache.get(index, state.load);
    if (!page.notes) {
      const { file, notes: expected } = state.pages[index];
      const found = scanNotes(page.body.subarray(...page.items));
      if (expected !== null && found.length !== expected) throw new Error(`${file} has ${found.length} notes, but its manifest entry says ${expected}`);
      page.notes = found.map(({ start, end }) => [page.items[0] + start, page.items[0] + end]);
    }
    return page;
  };
  let starts = null; // the position of each page's first note, and last the number of notes
  const pageStarts = () => (starts ??= (async () => {
    const at = [0];
    for (const [i, entry] of state.pages.entries()) at.push(at[i] + (entry.notes ?? (await scanned(i)).notes.length));
    return at;
  })());
  let ids = null; // id as Query.node takes it (a string) -> position
  const array = async (start, end) => {
    const at = await pageStarts();
    let index = 0; // the last page that starts at or before `start`
    for (let lo = 0, hi = state.pages.length - 1; lo <= hi;) {
      const mid = (lo + hi) >> 1;
      if (at[mid] <= start) [index, lo] = [mid, mid + 1];
      else hi = mid - 1;
    }
    const parts = [];
    for (; index < state.pages.length && at[index] < end; index++) {
      if (at[index + 1] <= start) continue;
      const page = await scanned(index);
      for (let p = Math.max(start, at[index]); p < Math.min(end, at[index + 1]); p++) {
        parts.push(parts.length ? COMMA : OPEN, page.body.subarray(...page.notes[p - at[index]]));
      }
    }
    return Buffer.concat(parts.length ? [...parts, CLOSE] : [OPEN, CLOSE]);
  };
  return {
    length: async () => (await pageStarts()).at(-1),
    array,
    async positionOf(id) {
      ids ??= (async () => {
        const at = await pageStarts();
        const byId = new Map();
        for (let index = 0; index < state.pages.length; index++) {
          JSON.parse(await array(at[index], at[index + 1])).forEach((note, k) => {
            const key = typeof note?.id === 'string' || typeof note?.id === 'number' ? String(note.id) : null;
            if (key !== null && !byId.has(key)) byId.set(key, at[index] + k);
          });
        }
        return byId;
      })();
      return (await ids).get(id) ?? -1;
    },
  };
}

const [OPEN, COMMA, CLOSE] = ['[', ',', ']'].map((text) => Buffer.from(text));
