// The rate limit faults: GitHub's headers (ratelimit-github, remaining-zero, graphql-ratelimit), the
// IETF draft's RateLimit fields (ratelimit-ietf) and a secondary limit's Retry-After.

/**
 * The GitHub rate limit headers of a spent quota that comes back `seconds` after `nowMs` (epoch ms):
 * of the REST API's `core` resource (60 an hour), or of its `graphql` resource (5000 points an hour).
 */
export function githubRateHeaders(seconds, nowMs, resource = 'core') {
  const limit = resource === 'graphql' ? '5000' : '60';
  return {
    'X-RateLimit-Limit': limit,
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(Math.ceil((nowMs + seconds * 1000) / 1000)),
    'X-RateLimit-Used': limit,
    'X-RateLimit-Resource': resource,
  };
}

/**
 * The response of a rate-limit fault at `nowMs` (epoch ms): `{status, headers, body}`, body a JSON value.
 *   ratelimit-github       403, X-RateLimit-* with Remaining 0 and Reset the epoch second it ends
 *   ratelimit-ietf         429, RateLimit: limit=10, remaining=0, reset=S and RateLimit-Policy: 10;w=60
 *   ratelimit-retry-after  403, Retry-After: S (GitHub's secondary rate limit)
 *   graphql-ratelimit      200, X-RateLimit-* of the graphql resource, and GitHub's GraphQL error
 *                          `{"data":null,"errors":[{"type":"RATE_LIMITED","message":…}]}`
 */
export function rateLimitResponse(fault, nowMs) {
  switch (fault.kind) {
    case 'ratelimit-github':
      return { status: 403, headers: githubRateHeaders(fault.seconds, nowMs), body: { message: 'API rate limit exceeded' } };
    case 'ratelimit-ietf':
      return {
        status: 429,
        headers: { RateLimit: `limit=10, remaining=0, reset=${fault.seconds}`, 'RateLimit-Policy': '10;w=60' },
        body: { error: 'rate-limited', message: 'rate limit exceeded; see the RateLimit header' },
      };
    case 'ratelimit-retry-after':
      return { status: 403, headers: { 'Retry-After': String(fault.seconds) }, body: { message: 'You have exceeded a secondary rate limit' } };
    case 'graphql-ratelimit':
      return {
        status: 200,
        headers: githubRateHeaders(fault.seconds, nowMs, 'graphql'),
        body: { data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] },
      };
    default:
      throw new Error(`not a rate limit fault: ${fault.kind}`);
  }
}
