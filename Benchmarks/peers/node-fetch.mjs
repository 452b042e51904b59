// The client a Node.js user would write instead of notes-page: fetch + JSON.parse, page after page.
// Built-in modules only (Node 18 or later, for fetch). It does the job `notes-page fetch --all URL -o FILE`
// does, the plain way: each page read whole, parsed, every note's id checked (a non-empty string, seen once
// in the run), its title a string, each note written as a line of JSON to standard output.
//
//   node Benchmarks/peers/node-fetch.mjs URL   # the benchmarks run it on the fixture server's pages
//   node Benchmarks/peers/node-fetch.mjs --probe   # exit 0 when this Node can run it
//
// Silent when every page was read (exit 0); otherwise it throws, which Node reports on standard error (exit 1).

import { writeSync } from 'node:fs';

const [target] = process.argv.slice(2);
if (target === '--probe') process.exit(typeof fetch === 'function' ? 0 : 1);
if (!target) {
  console.error('usage: node node-fetch.mjs URL');
  process.exit(64);
}

const endpoint = new URL(target);
const ids = new Set();
let next = endpoint.href;
let pages = 0;
while (next !== null) {
  const response = await fetch(next);
  if (!response.ok) throw new Error(`page ${pages + 1}: HTTP ${response.status}`);
  const page = JSON.parse(await response.text());
  if (!Array.isArray(page.notes)) throw new Error(`page ${pages + 1}: no notes array`);
  const lines = [];
  for (const note of page.notes) {
    if (typeof note.id !== 'string' || note.id === '' || typeof note.title !== 'string') {
      throw new Error(`page ${pages + 1}: a note without a string id and title`);
    }
    if (ids.has(note.id)) throw new Error(`page ${pages + 1}: duplicate id ${JSON.stringify(note.id)}`);
    ids.add(note.id);
    lines.push(JSON.stringify(note));
  }
  if (lines.length > 0) writeSync(1, lines.join('\n') + '\n');
  pages += 1;
  const cursor = page.next_cursor;
  if (cursor === null || cursor === undefined || cursor === '') {
    next = null;
  } else {
    const url = new URL(endpoint);
    url.searchParams.set('cursor', cursor);
    next = url.href;
  }
}
