// A notes-gen directory (Fixtures/README.md): its manifest read and checked, page by page.

import path from 'node:path';

/** A notes-gen directory whose manifest or pages break Fixtures/README.md. */
export class ManifestError extends Error {}

/**
 * Reads a parsed notes-gen `manifest.json` (Fixtures/README.md) into the page list:
 * `{file, cursor, nextCursor, items: [start, end], notes}` per page, `notes` the page's note count or
 * null where the entry has none that is a count (then only the page itself can tell). Throws ManifestError.
 */
export function readManifest(manifest) {
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== 'notes-gen/1') {
    throw new ManifestError("manifest.json: 'format' is not \"notes-gen/1\"");
  }
  if (!Array.isArray(manifest.pages) || manifest.pages.length === 0) {
    throw new ManifestError("manifest.json: 'pages' must be a non-empty array");
  }
  return manifest.pages.map((entry, i) => {
    const where = `manifest.json: pages[${i}]`;
    if (entry === null || typeof entry !== 'object') throw new ManifestError(`${where} is not an object`);
    const { file, cursor, next_cursor: nextCursor, items } = entry;
    if (typeof file !== 'string' || path.isAbsolute(file) || path.normalize(file).split(path.sep).includes('..')) {
      throw new ManifestError(`${where}.file must be a path inside the directory`);
    }
    if (!(cursor === null || typeof cursor === 'string') || !(nextCursor === null || typeof nextCursor === 'string')) {
      throw new ManifestError(`${where}: cursor and next_cursor must be strings or null`);
    }
    if (!Array.isArray(items) || items.length !== 2 || !items.every(Number.isSafeInteger) || !(items[0] >= 0 && items[0] < items[1])) {
      throw new ManifestError(`${where}.items must be a byte range [start, end)`);
    }
    const notes = Number.isSafeInteger(entry.notes) && entry.notes >= 0 ? entry.notes : null;
    return { file, cursor, nextCursor, items: [items[0], items[1]], notes };
  });
}

/**
 * Checks that the pages form one chain (the first has no cursor, each names the next one's cursor, the
 * last names none, no cursor repeats) and returns the map from cursor to page index.
 */
export function indexPages(pages) {
  const byCursor = new Map();
  pages.forEach((page, i) => {
    if (i === 0 ? page.cursor !== null : typeof page.cursor !== 'string') {
      throw new ManifestError(`page ${i + 1}: ${i === 0 ? 'the first page must have cursor null' : 'cursor must be a string'}`);
    }
    const expected = pages[i + 1]?.cursor ?? null;
    if (page.nextCursor !== expected) throw new ManifestError(`page ${i + 1}: next_cursor does not name page ${i + 2}`);
    if (i > 0) {
      if (byCursor.has(page.cursor)) throw new ManifestError(`page ${i + 1}: cursor repeats page ${byCursor.get(page.cursor) + 1}'s`);
      byCursor.set(page.cursor, i);
    }
  });
  return byCursor;
}

/** Checks that `items` spans a JSON array in a loaded page body; throws ManifestError. */
export function checkItems(body, [start, end], what) {
  if (end > body.length || body[start] !== 0x5b || body[end - 1] !== 0x5d) {
    throw new ManifestError(`${what}: items [${start}, ${end}) is not the notes array`);
  }
}
