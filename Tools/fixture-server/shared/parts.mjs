// Response bodies as lists of parts: Buffers, and `{fill, length}` for `length` bytes repeating the
// Buffer `fill`, so that a multi-megabyte title or a deep nesting is streamed, never held in memory.

/** The most bytes of a body written, or compressed, at a time. */

export const CHUNK_BYTES = 64 * 1024;

/** A part of `length` bytes repeating `text`. */
export function fill(text, length) {
  return { fill: Buffer.from(text), length };
}

export function partsLength(parts) {
  return parts.reduce((sum, part) => sum + part.length, 0);
}

/** The bytes of `parts` as Buffers of at most `size` bytes, in order. */
export function* chunks(parts, size) {
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      for (let at = 0; at < part.length; at += size) yield part.subarray(at, at + size);
      continue;
    }
    // One repeated block at least `size` long (and a whole number of patterns) serves every chunk.
    const block = Buffer.from(part.fill.toString('latin1').repeat(Math.ceil(size / part.fill.length) + 1), 'latin1');
    for (let at = 0; at < part.length; at += size) {
      const offset = at % part.fill.length;
      yield block.subarray(offset, offset + Math.min(size, part.length - at));
    }
  }
}
