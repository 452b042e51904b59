// Hostile bodies: the content faults that alter a page's notes (duplicate-id, huge-title, deep) and the
// bomb, a small gzip body that inflates without end. (cycle and next-ref alter the next reference: see
// the styles and next-ref.mjs.)

import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { fill } from '../shared/parts.mjs';
import { scanNotes } from '../notes/scan.mjs';

/**
 * Applies the content faults that alter a page's notes array and returns it as body parts:
 *   duplicate-id  the last note's id becomes `firstId`, the raw id token of page 1's first note;
 *   huge-title    the first note's title becomes `bytes` bytes of ASCII text;
 *   deep          the first note gains a leading member "deep" of `depth` nested arrays.
 * (`cycle` changes the next cursor, not the notes.) A fault with nothing to act on leaves the notes
 * as they are: no notes, a first note without a title or that is not an object, no `firstId`. The id
 * member is `idKey` (`_id` in Eve's notes).
 */
export function applyContentFaults(items, faults, firstId, idKey = 'id') {
  const notes = scanNotes(items, idKey);
  const first = notes[0];
  const last = notes.at(-1);
  const edits = [];
  for (const fault of faults) {
    if (fault.kind === 'duplicate-id' && last?.id && firstId) {
      edits.push({ start: last.id[0], end: last.id[1], parts: [firstId] });
    } else if (fault.kind === 'huge-title' && first?.title) {
      edits.push({ start: first.title[0], end: first.title[1], parts: [Buffer.from('"'), fill('huge title ', fault.bytes), Buffer.from('"')] });
    } else if (fault.kind === 'deep' && first?.object) {
      const at = first.start + 1;
      edits.push({ start: at, end: at, parts: [Buffer.from('"deep":'), fill('[', fault.depth), fill(']', fault.depth), Buffer.from(first.members ? ',' : '')] });
    }
  }
  edits.sort((a, b) => a.start - b.start);
  const parts = [];
  let at = 0;
  for (const edit of edits) {
    parts.push(items.subarray(at, edit.start), ...edit.parts);
    at = edit.end;
  }
  parts.push(items.subarray(at));
  return parts;
}

/** The title of every note of a `bomb`: one long run of one byte, so that it compresses to almost nothing. */
export const BOMB_TITLE_BYTES = 65_000;

/**
 * The body a `bomb` inflates to, as Buffers of at most `chunkBytes`: exactly `bytes` bytes of a notes
 * array that never ends, `{"notes":[{"id":"bomb0","title":"zzz…"},{"id":"bomb1",…` (ids counting up,
 * titles of BOMB_TITLE_BYTES `z`s), cut wherever `bytes` runs out. Made as it is read, never held.
 */
export function* bombChunks(bytes, chunkBytes = 1 << 20) {
  const title = Buffer.alloc(BOMB_TITLE_BYTES, 'z');
  const close = Buffer.from('"}');
  let left = bytes;
  let chunk = Buffer.allocUnsafe(Math.min(chunkBytes, left));
  let at = 0;
  function* put(part) {
    for (let from = 0; from < part.length && left > 0;) {
      const n = Math.min(part.length - from, chunk.length - at);
      part.copy(chunk, at, from, from + n);
      at += n;
      from += n;
      left -= n;
      if (at === chunk.length) {
        yield chunk;
        chunk = Buffer.allocUnsafe(Math.min(chunkBytes, left));
        at = 0;
      }
    }
  }
  yield* put(Buffer.from('{"notes":['));
  for (let i = 0; left > 0; i++) {
    yield* put(Buffer.from(`${i === 0 ? '' : ','}{"id":"bomb${i}","title":"`));
    yield* put(title);
    yield* put(close);
  }
}

/**
 * The gzip stream of a `bomb`: bombChunks through zlib as the client reads it, with the run-length
 * strategy (matches at distance 1 only), which gets the long runs of the titles close to deflate's best
 * ratio (about 1000:1) several times faster than the default strategy.
 */
export function bomb(bytes) {
  const source = Readable.from(bombChunks(bytes), { objectMode: false });
  return [source, zlib.createGzip({ level: 9, strategy: zlib.constants.Z_RLE })];
}
