// Unit tests of the hostile next references of next-ref (next-ref.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { isNextRefPath, NEXT_REF_CURSOR_KINDS, NEXT_REF_KINDS, nextRefBaseCursors, nextRefCursor, nextRefUrl } from './next-ref.mjs';

describe('next-ref: hostile next references', () => {
  const base = 'http://127.0.0.1:8080';
  const next = `${base}/notes?cursor=abc%2B%3D&style=drf`;

  test('the URL of each kind, made from the real next URL', () => {
    const expected = {
      'brackets-raw': `${base}/notes?page[offset]=100&cursor=abc%2B%3D&style=drf`,
      'brackets-encoded': `${base}/notes?page%5Boffset%5D=100&cursor=abc%2B%3D&style=drf`,
      'space': `${base}/notes?q=a b&cursor=abc%2B%3D&style=drf`,
      'bad-escape': `${base}/notes%zz?cursor=abc%2B%3D&style=drf`,
      'unicode': `${base}/notes/é?cursor=abc%2B%3D&style=drf`,
      'fragment': `${next}#frag`,
      'userinfo': 'http://user:pass@127.0.0.1:8080/notes?cursor=abc%2B%3D&style=drf',
      'ftp': 'ftp://127.0.0.1:8080/notes?cursor=abc%2B%3D&style=drf',
      'file': 'file:///etc/passwd',
      'empty-host': 'http:///notes?cursor=abc%2B%3D&style=drf',
    };
    assert.deepEqual(Object.keys(expected), NEXT_REF_KINDS.filter((kind) => kind !== 'long-name'));
    for (const [kind, url] of Object.entries(expected)) assert.equal(nextRefUrl(kind, next, base), url, kind);
    const long = nextRefUrl('long-name', next, base);
    assert.equal(long, `${next}&${'n'.repeat(65536)}=1`);
    assert.ok(Buffer.byteLength(long) > 65535);
    assert.equal(nextRefUrl('userinfo', 'https://[::1]:9/notes?cursor=x', 'https://[::1]:9'), 'https://user:pass@[::1]:9/notes?cursor=x');
    assert.throws(() => nextRefUrl('gopher', next, base), /unknown kind/);
  });

  test('the cursor of each cursor kind, and back', () => {
    const suffixes = {
      'brackets-raw': 'page[offset]=100', 'brackets-encoded': 'page%5Boffset%5D=100', 'space': ' and space', 'bad-escape': '%zz',
      'unicode': 'é', 'long-name': 'n'.repeat(64 * 1024),
    };
    assert.deepEqual(Object.keys(suffixes), NEXT_REF_CURSOR_KINDS);
    for (const [kind, suffix] of Object.entries(suffixes)) {
      const cursor = nextRefCursor(kind, 'Qw+rZWEP=');
      assert.equal(cursor, `Qw+rZWEP=${suffix}`, kind);
      assert.ok(nextRefBaseCursors(cursor).includes('Qw+rZWEP='), kind);
    }
    assert.throws(() => nextRefCursor('ftp', 'abc'), /not a cursor kind/);
    assert.deepEqual(nextRefBaseCursors('Qw+rZWEP='), []);
    // A suffix alone is no cursor made from one.
    assert.deepEqual(nextRefBaseCursors('%zz'), []);
  });

  test("unicode's path, raw or percent-encoded, and nothing else", () => {
    assert.equal(isNextRefPath('/notes/%C3%A9'), true);
    assert.equal(isNextRefPath('/notes/é'), true);
    for (const path of ['/notes', '/notes/', '/notes/e', '/notes/%E9', '/notes%zz', '/notes/%C3']) assert.equal(isNextRefPath(path), false, path);
  });
});
