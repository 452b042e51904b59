// Unit tests of the link style's envelope and Link header (link.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLinkHeader, wrapLink } from './link.mjs';
import { bytes } from '../testing/units.mjs';

describe('envelopes', () => {
  const items = [Buffer.from('[{"id":"a","title":"t"}]')];
  const nav = { nextCursor: 'c+/=', nextUrl: 'http://h:1/notes?cursor=c%2B%2F%3D', prevUrl: 'http://h:1/notes' };

  test('link', () => {
    const page = wrapLink(items, nav);
    assert.equal(bytes(page.parts).toString(), '[{"id":"a","title":"t"}]');
    assert.equal(page.headers.Link, '<http://h:1/notes>; rel="prev", <http://h:1/notes?cursor=c%2B%2F%3D>; rel="next"');
    assert.deepEqual(wrapLink(items, { nextCursor: null, nextUrl: null, prevUrl: null }).headers, {});
  });

  test('formatLinkHeader', () => {
    assert.equal(formatLinkHeader([{ url: 'http://a/n?cursor=x', rel: 'next' }]), '<http://a/n?cursor=x>; rel="next"');
  });
});
