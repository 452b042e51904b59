// Unit tests of what the styles of real servers share (real-servers.mjs); each server's:
// real-servers/*.test.mjs. Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFault, styleProblem } from '../faults/grammar.mjs';
import { updatesStyleProblem } from '../notes/updates.mjs';
import { parseArgs } from '../server/options.mjs';
import { isListStyle, parseStyle, REAL_STYLES, STYLES } from './catalog.mjs';

describe('the styles of real servers', () => {
  test('list styles that need --count; every fault but next-ref works in them, cycle not in page-echo and offset-echo', () => {
    assert.deepEqual(REAL_STYLES, ['next-page', 'ogc', 'x-pagination', 'page-echo', 'offset-echo', 'eve', 'dynamodb']);
    for (const style of REAL_STYLES) {
      assert.ok(STYLES.includes(style) && isListStyle(style), style);
      assert.equal(parseStyle(style), style);
      assert.throws(() => parseArgs(['--dir', 'd', '--style', style]), new RegExp(`style '${style}' pages through generated notes`));
      assert.equal(parseArgs(['--count', '3', '--style', style]).style, style);
      assert.match(updatesStyleProblem(style), /--updates serves the cursor styles/);
      const problem = (spec) => styleProblem(parseFault(spec, 'request'), style);
      assert.equal(problem('shift:2@2'), null, style);
      assert.match(problem('next-ref:space'), /works in the contract, header, drf, link styles only/);
      if (style === 'page-echo' || style === 'offset-echo') {
        assert.equal(problem('cycle@2'), `fault 'cycle@2' cannot work in ${style} style: the client computes the next page from the totals, so nothing can point back`);
      } else {
        assert.equal(problem('cycle@2'), null, style);
      }
    }
  });
});
