// The errors that a bad command line or request is refused with, and the integer parsers that throw them.

/** A bad command line or per-request parameter; the message is shown to the user as is. */
export class UsageError extends Error {}

/**
 * A request that the style of a real server refuses, answered as that server answers it: `status`,
 * `body` (a JSON value) and `headers` (a Content-Type of the server's own, if it has one).
 */
export class StyleError extends Error {
  constructor(status, body, headers = {}) {
    super(typeof body?.message === 'string' ? body.message : JSON.stringify(body));
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export function parseInteger(text, what, min, max) {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${what} must be an integer from ${min} to ${max}, not '${text}'`);
  return value;
}

export function parseSignedInteger(text, what, min, max) {
  const value = /^-?\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${what} must be an integer from ${min} to ${max}, not '${text}'`);
  return value;
}
