// The cursor pages, a notes-gen directory's or --count's (with --updates, those of notes/updates.mjs),
// each named by a cursor: in the contract and header styles here, and in drf and link (drf.mjs,
// link.mjs), with the content faults and the hostile next references of next-ref.

import { jsonPage, jsonResponse, notesUrl } from '../shared/http.mjs';
import { applyContentFaults } from '../faults/hostile-bodies.mjs';
import { nextRefCursor, nextRefUrl } from '../faults/next-ref.mjs';
import { firstNoteId } from '../notes/scan.mjs';
import { wrapDrf } from './drf.mjs';
import { wrapLink } from './link.mjs';

/** contract: `{"notes":[…],"next_cursor":"…"|null}`, the cursor `nav.nextCursor`. */
export function wrapContract(items, nav) {
  return {
    headers: {},
    parts: [Buffer.from('{"notes":'), ...items, Buffer.from(`,"next_cursor":${JSON.stringify(nav.nextCursor)}}`)],
  };
}

/** header: `{"notes":[…]}` with `X-Next-Cursor: nav.nextCursor` (none on the last page). */
export function wrapHeader(items, nav) {
  return {
    headers: nav.nextCursor === null ? {} : { 'X-Next-Cursor': nav.nextCursor },
    parts: [Buffer.from('{"notes":'), ...items, Buffer.from('}')],
  };
}

/**
 * The envelope of each style of cursor pages, from `nav`: `nextCursor` and the absolute `nextUrl` and
 * `prevUrl` (null where there is none).
 */
const ENVELOPES = { contract: wrapContract, header: wrapHeader, drf: wrapDrf, link: wrapLink };

/** The absolute URL of the page that `cursor` requests (null: the first page), with `carried` query pairs. */
export function pageUrl(base, cursor, carried = []) {
  return notesUrl(base, cursor === null ? carried : [['cursor', cursor], ...carried]);
}

/**
 * The cursor pages as the source serves them (a directory's, or --count's): `load(index)` (cached),
 * `cursor(index)` (null for the first page), `nextCursor(index)` and `byCursor` (cursor -> index).
 */
export function staticView(state) {
  return {
    load: (index) => state.cache.get(index, state.load),
    cursor: (index) => state.pages[index].cursor,
    nextCursor: (index) => state.pages[index].nextCursor,
    byCursor: state.byCursor,
  };
}

/**
 * Page `index` (0-based) of `view` (staticView, updatesView) in `style`, with the content faults
 * applied; the first `next-ref` replaces the next reference (a page without one, the last, keeps none).
 */
export async function pageResponse(index, style, contentFaults, query, state, view) {
  const page = await view.load(index);
  const cycles = index > 0 && contentFaults.some((fault) => fault.kind === 'cycle');
  const realNext = cycles ? view.cursor(1) : view.nextCursor(index);
  const nextRef = realNext === null ? null : contentFaults.find((fault) => fault.kind === 'next-ref') ?? null;
  const alters = contentFaults.some((fault) => fault.kind !== 'cycle' && fault.kind !== 'next-ref');

  // The common case: the page bytes exactly as stored.
  if (style === 'contract' && !cycles && !alters && !nextRef) return jsonResponse(200, [page.body]);

  const items = page.body.subarray(...page.items);
  let itemParts = [items];
  if (alters) {
    const first = index === 0 ? page : await view.load(0);
    itemParts = applyContentFaults(items, contentFaults, firstNoteId(first.body.subarray(...first.items)));
  }
  const url = (cursor) => pageUrl(state.base, cursor, carriedParameters(query, state.updates ? UPDATES_CARRIED : CARRIED));
  const cursorRef = nextRef && ['contract', 'header'].includes(style);
  let nextUrl = realNext === null ? null : url(realNext);
  if (nextRef && !cursorRef) nextUrl = nextRefUrl(nextRef.ref, nextUrl, state.base);
  const wrapped = ENVELOPES[style](itemParts, {
    nextCursor: cursorRef ? nextRefCursor(nextRef.ref, realNext) : realNext,
    nextUrl,
    prevUrl: index === 0 ? null : url(view.cursor(index - 1)),
  });
  // A header carries bytes: a raw é goes out as its UTF-8 (Node writes header strings as latin1).
  for (const name of ['Link', 'X-Next-Cursor']) {
    if (nextRef && name in wrapped.headers) wrapped.headers[name] = Buffer.from(wrapped.headers[name]).toString('latin1');
  }
  return jsonPage(wrapped);
}

/**
 * Absolute URLs keep the style, totals, faults and compression a client chose in the query (and with
 * --updates its since), so following them goes on with the same scenario.
 */
export function carriedParameters(query, names = CARRIED) {
  return names.flatMap((name) => query.getAll(name).map((value) => [name, value]));
}

const CARRIED = ['style', 'totals', 'fault', 'compress'];

const UPDATES_CARRIED = [...CARRIED, 'since'];
