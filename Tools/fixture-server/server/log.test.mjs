// Unit tests of the log's redaction (log.mjs). Run with `node --test Tools/`.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { logValue, redactTarget } from './log.mjs';

describe('redactTarget', () => {
  test('credential-like query parameters', () => {
    assert.equal(redactTarget('/notes?cursor=abc&token=s3&access_token=x&api_key=k&X-Amz-Signature=q&style=drf', []),
      '/notes?cursor=abc&token=REDACTED&access_token=REDACTED&api_key=REDACTED&X-Amz-Signature=REDACTED&style=drf');
  });

  test('the configured token anywhere, however encoded', () => {
    const secret = 'se+cr/et';
    assert.equal(redactTarget('/notes?q=se%2Bcr%2Fet', [secret]), '/notes?q=REDACTED');
    assert.equal(redactTarget('/notes?q=xse+cr/ety', [secret]), '/notes?q=REDACTED');
    assert.equal(redactTarget('/se%2bcr%2fet/notes?cursor=c', [secret]), '/REDACTED?cursor=c');
    assert.equal(redactTarget('/notes?se%2Bcr%2Fet', [secret]), '/notes?REDACTED');
  });

  test('leaves the rest alone', () => {
    assert.equal(redactTarget('/notes?cursor=a%2B%2F%3D&fault=500', ['zzz']), '/notes?cursor=a%2B%2F%3D&fault=500');
    assert.equal(redactTarget('/other', []), '/other');
  });
});

describe('logValue', () => {
  test('compact JSON without spaces; credential-like members and the configured token REDACTED; cut when long', () => {
    assert.equal(logValue({ first: 2, after: 'a b' }), '{"first":2,"after":"a\\u0020b"}');
    assert.deepEqual(JSON.parse(logValue({ first: 2, after: 'a b' })), { first: 2, after: 'a b' });
    assert.equal(logValue({ apiKey: 'k', nested: { token: 1, x: 'has s3cret in it' } }, ['s3cret']),
      '{"apiKey":"REDACTED","nested":{"token":"REDACTED","x":"REDACTED"}}');
    assert.equal(logValue({}), '{}');
    assert.equal(logValue(undefined), 'null');
    const long = logValue({ text: 'x'.repeat(2000) });
    assert.equal(long.length, 1003);
    assert.ok(long.endsWith('...'));
  });
});
