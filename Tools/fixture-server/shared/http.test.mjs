// Unit tests of the URLs of /notes (http.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { notesUrl } from './http.mjs';

describe('envelopes', () => {
  test('notesUrl', () => {
    assert.equal(notesUrl('http://h:1', [['offset', '3'], ['limit', '2'], ['fault', 'shift:2@2']]), 'http://h:1/notes?offset=3&limit=2&fault=shift%3A2%402');
    assert.equal(notesUrl('http://h:1', []), 'http://h:1/notes');
  });
});
