// The contract fixtures (Fixtures/contract, the files the Swift tests read), and a notes-gen directory
// made of five of them.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CONTRACT = fileURLToPath(new URL('../../../Fixtures/contract/', import.meta.url));

/** The bytes of a contract fixture. */

export const contract = (name) => readFileSync(path.join(CONTRACT, name));

/** The ids each contract fixture's notes have, by file (cases.json). */

export const expectedIds = Object.fromEntries(JSON.parse(contract('cases.json')).cases.map((c) => [c.file, c.expect.ids]));

/** The byte range [start, end) of the JSON array that opens at `start`. */
export function arrayAt(bytes, start) {
  let depth = 0;
  let inString = false;
  for (let i = start; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
    } else if ((c === 0x5d || c === 0x7d) && --depth === 0) {
      return [start, i + 1];
    }
  }
  throw new Error('unterminated array');
}

/** The notes array of a contract fixture, byte for byte: under `key`, or the whole file. */
export function notesOf(file, key) {
  const bytes = contract(file);
  const start = key === null ? 0 : bytes.indexOf(`"${key}": [`) + key.length + 4;
  return bytes.subarray(...arrayAt(bytes, start));
}

function fnv1a64(ids) {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(ids.map((id) => `${id}\n`).join(''))) {
    hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

// Five pages from the valid contract fixtures; the cursors need percent-encoding in every way.
const SOURCES = [
  ['valid-page.json', 'notes'],
  ['cursor-first.json', 'notes'],
  ['bare-array.json', null],
  ['drf-page.json', 'results'],
  ['empty-page.json', 'notes'],
];

const CURSORS = [null, 'pA+/Zw==', 'b64:Y3Vyc29yPTI=', 'c2', 'x/y z?&#='];

/** Writes the notes-gen directory (Fixtures/README.md) of SOURCES into a temporary directory. */
export function makeNotesDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'notes-server-test-'));
  mkdirSync(path.join(dir, 'pages'));
  const pages = SOURCES.map(([source, key], i) => {
    const items = notesOf(source, key);
    const head = Buffer.from('{"notes":');
    const nextCursor = CURSORS[i + 1] ?? null;
    const body = Buffer.concat([head, items, Buffer.from(`,"next_cursor":${JSON.stringify(nextCursor)}}`)]);
    const file = `pages/${String(i).padStart(5, '0')}.json`;
    writeFileSync(path.join(dir, file), body);
    return { file, cursor: CURSORS[i], nextCursor, items, body, ids: expectedIds[source], range: [head.length, head.length + items.length] };
  });
  const ids = pages.flatMap((page) => page.ids);
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({
    format: 'notes-gen/1',
    count: ids.length,
    page_size: 3,
    seed: 0,
    faults: [],
    total_bytes: pages.reduce((sum, page) => sum + page.body.length, 0),
    ids_fnv1a64: fnv1a64(ids),
    pages: pages.map((page) => ({
      file: page.file, cursor: page.cursor, next_cursor: page.nextCursor, notes: page.ids.length, bytes: page.body.length, items: page.range,
    })),
  }, null, 1));
  return { dir, pages, ids };
}
