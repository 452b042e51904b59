// Unit tests of what the Python servers write (python.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pythonJson, pythonQuote, quotePlus } from './python.mjs';

describe('the styles of real servers', () => {
  test('pythonJson writes as json.dumps; pythonQuote as urllib.parse.quote', () => {
    assert.equal(pythonJson({ a: 1, b: [true, null, 'é'], c: { d: 'x"y' } }), '{"a": 1, "b": [true, null, "\\u00e9"], "c": {"d": "x\\"y"}}');
    assert.equal(pythonJson({}), '{}');
    assert.equal(pythonQuote("a b/c,d:e@f!'()*~._-é"), 'a%20b%2Fc%2Cd%3Ae%40f%21%27%28%29%2A~._-%C3%A9');
    assert.equal(pythonQuote('a,b c', ','), 'a,b%20c');
    assert.equal(quotePlus('a b+c'), 'a+b%2Bc');
  });
});
