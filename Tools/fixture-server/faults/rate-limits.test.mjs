// Unit tests of the rate limit faults' responses (rate-limits.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFault } from './grammar.mjs';
import { githubRateHeaders, rateLimitResponse } from './rate-limits.mjs';

describe('rate limits', () => {
  test('rate limit responses: GitHub, the IETF draft, Retry-After; resets rounded up to the second', () => {
    const fault = (spec) => parseFault(spec, 'request');
    const now = 1_700_000_000_250; // epoch ms, a quarter second past a second
    assert.deepEqual(rateLimitResponse(fault('ratelimit-github:30'), now), {
      status: 403,
      headers: {
        'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1700000031',
        'X-RateLimit-Used': '60', 'X-RateLimit-Resource': 'core',
      },
      body: { message: 'API rate limit exceeded' },
    });
    assert.equal(githubRateHeaders(0, 1_700_000_000_000)['X-RateLimit-Reset'], '1700000000');
    const graphql = rateLimitResponse(parseFault('graphql-ratelimit', 'flag', 0), 1_700_000_000_000);
    assert.equal(graphql.status, 200);
    assert.deepEqual(graphql.body, { data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] });
    assert.equal(graphql.headers['X-RateLimit-Remaining'], '0');
    assert.equal(graphql.headers['X-RateLimit-Reset'], '1700000001');
    assert.equal(graphql.headers['X-RateLimit-Resource'], 'graphql');
    const ietf = rateLimitResponse(fault('ratelimit-ietf'), now);
    assert.equal(ietf.status, 429);
    assert.deepEqual(ietf.headers, { RateLimit: 'limit=10, remaining=0, reset=1', 'RateLimit-Policy': '10;w=60' });
    const secondary = rateLimitResponse(fault('ratelimit-retry-after:7'), now);
    assert.equal(secondary.status, 403);
    assert.deepEqual(secondary.headers, { 'Retry-After': '7' });
  });
});
