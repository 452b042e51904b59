// The notes of a page found in its bytes, without decoding them: what the content faults edit and what
// /graphql and the Notion-style query serve of a notes-gen directory.

const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, COMMA = 0x2c;

const OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d;

const ID_KEY = Buffer.from('"id"');

const TITLE_KEY = Buffer.from('"title"');

const ATTRIBUTES_KEY = Buffer.from('"attributes"');

/**
 * Finds the notes of a JSON array (the bytes of a page's `items` range) without decoding them:
 * per element, its byte range, whether it is an object with members, and the ranges of the values
 * of its `"id"` and `"title"` members (keys written without escapes), or null; a title may also be a
 * member of an `"attributes"` object member, as in a JSON:API resource object. The id member is
 * `idKey` (`_id` in Eve's notes). Works on bytes, since every JSON delimiter is ASCII and UTF-8 never
 * repeats an ASCII byte inside a multi-byte character. Throws on input that is not a well-formed array.
 */
export function scanNotes(items, idKey = 'id') {
  const idKeyBytes = idKey === 'id' ? ID_KEY : Buffer.from(JSON.stringify(idKey));
  let at = 0;
  const fail = (what) => { throw new Error(`scanNotes: ${what} at byte ${at}`); };
  const space = () => { while (at < items.length && (items[at] === 0x20 || items[at] === 0x0a || items[at] === 0x0d || items[at] === 0x09)) at++; };
  const expect = (byte) => {
    if (items[at] !== byte) fail(`expected '${String.fromCharCode(byte)}'`);
    at++;
  };
  const skipString = () => {
    expect(QUOTE);
    while (items[at] !== QUOTE) {
      if (at >= items.length) fail('unterminated string');
      at += items[at] === BACKSLASH ? 2 : 1;
    }
    at++;
  };
  // Skips any value; containers by counting depth, so that deep nesting needs no recursion.
  const skipValue = () => {
    const open = items[at];
    if (open === QUOTE) return skipString();
    if (open !== OPEN_OBJECT && open !== OPEN_ARRAY) {
      const start = at;
      while (at < items.length && !' \t\r\n,]}:'.includes(String.fromCharCode(items[at]))) at++;
      if (at === start) fail('expected a value');
      return;
    }
    let depth = 0;
    do {
      const byte = items[at];
      if (at >= items.length) fail('unterminated container');
      if (byte === QUOTE) { skipString(); continue; }
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
      else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
      at++;
    } while (depth > 0);
  };

  // Reads the object at `at`, calling `visit(key, valueStart)` at each member's value, which `visit`
  // must read; returns the number of members.
  const members = (visit) => {
    let count = 0;
    expect(OPEN_OBJECT);
    space();
    while (items[at] !== CLOSE_OBJECT) {
      if (count > 0) { expect(COMMA); space(); }
      const keyStart = at;
      skipString();
      const key = items.subarray(keyStart, at);
      space();
      expect(COLON);
      space();
      visit(key, at);
      count++;
      space();
    }
    at++;
    return count;
  };

  const notes = [];
  space();
  expect(OPEN_ARRAY);
  space();
  if (items[at] === CLOSE_ARRAY) return notes;
  for (;;) {
    space();
    const note = { start: at, end: 0, object: items[at] === OPEN_OBJECT, members: 0, id: null, title: null };
    if (note.object) {
      note.members = members((key, valueStart) => {
        if (key.equals(ATTRIBUTES_KEY) && items[at] === OPEN_OBJECT) {
          members((inner, innerStart) => {
            skipValue();
            if (inner.equals(TITLE_KEY)) note.title = [innerStart, at];
          });
          return;
        }
        skipValue();
        if (key.equals(idKeyBytes)) note.id = [valueStart, at];
        else if (key.equals(TITLE_KEY)) note.title = [valueStart, at];
      });
    } else {
      skipValue();
    }
    note.end = at;
    notes.push(note);
    space();
    if (items[at] === CLOSE_ARRAY) return notes;
    expect(COMMA);
  }
}

/** The raw JSON token of the first note's id (member `idKey`) in a notes array (e.g. `"n0"`), or null. */
export function firstNoteId(items, idKey = 'id') {
  const first = scanNotes(items, idKey)[0];
  return first?.id ? items.subarray(...first.id) : null;
}
