// The pieces of HTTP that every endpoint shares: media types, the JSON responses (a response is
// `{status, headers, parts}`, parts as in parts.mjs), request bodies and the URLs of /notes.

export const JSON_TYPE = 'application/json; charset=utf-8';

export const HTML_TYPE = 'text/html; charset=utf-8';

/** The headers of every response: no page may be cached, since faults and --updates change them. */

export const COMMON_HEADERS = { 'Cache-Control': 'no-store' };

/** Whether a JSON value is an object (not null, not an array). */

export const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A response of `status` with `parts`, labelled JSON (unless `headers` say otherwise), `headers` last. */
export function jsonResponse(status, parts, headers = {}) {
  return { status, headers: { ...COMMON_HEADERS, 'Content-Type': JSON_TYPE, ...headers }, parts };
}

/** A 200 of a page that a style wrapped: `{headers, parts}`, its headers over the common ones. */
export function jsonPage({ headers, parts }) {
  return jsonResponse(200, parts, headers);
}

export function jsonBody(status, value, headers = {}) {
  return jsonResponse(status, [Buffer.from(JSON.stringify(value))], headers);
}

export function jsonError(status, error, message, headers) {
  return jsonBody(status, { error, message }, headers);
}

/** The answer of a real server's style to a request it refuses (StyleError). */
export function styleError(error) {
  return jsonBody(error.status, error.body, error.headers);
}

/** The most of a request body that /graphql, the Notion-style query and a DynamoDB Scan read: more is a 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A request's body, or null once it is over MAX_BODY_BYTES (the rest is drained, unread). A client
 * that leaves before the end rejects it with an AbortError, which ends the request quietly.
 */
export function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      resolve(null);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', () => reject(new DOMException('the client left', 'AbortError')));
    req.once('close', () => reject(new DOMException('the client left', 'AbortError'))); // after 'end', a no-op
  });
}

/** The media type of a Content-Type header, lowercase, without parameters ('' for none). */
export function mediaType(contentType) {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** The absolute URL of /notes with these query pairs, values percent-encoded. */
export function notesUrl(base, pairs) {
  const query = pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
  return `${base}/notes${query ? `?${query}` : ''}`;
}
