// The log on stderr: one line per request (see the usage text), with credentials REDACTED.

/** Writes a line to the log, unless --quiet. */

export function log(state, line) {
  if (!state.quiet) process.stderr.write(`${line}\n`);
}

/** What the log must never show: the token of the auth fault, if there is one. */

export function secretsOf(state) {
  return state.token === null ? [] : [state.token];
}

const SENSITIVE_NAME = /token|secret|passw|auth|key|sig/i;

function decodeComponent(text) {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/**
 * A request target fit for the log: query values whose names look like credentials (`token=`,
 * `access_token=`, `api_key=`, `sig=`, ...) become REDACTED, and so does any query value or path that
 * contains one of `secrets` (the configured token), however it was percent-encoded.
 */
export function redactTarget(target, secrets) {
  const leaks = (text) => secrets.some((secret) => text.includes(secret) || decodeComponent(text).includes(secret));
  const q = target.indexOf('?');
  const pathPart = q === -1 ? target : target.slice(0, q);
  const safePath = leaks(pathPart) ? '/REDACTED' : pathPart;
  if (q === -1) return safePath;
  const pairs = target.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (leaks(name)) return 'REDACTED';
    if (eq !== -1 && (SENSITIVE_NAME.test(decodeComponent(name)) || leaks(pair.slice(eq + 1)))) return `${name}=REDACTED`;
    return pair;
  });
  return `${safePath}?${pairs.join('&')}`;
}

/**
 * A JSON value fit for one field of a log line (the variables of a GraphQL request, the body of a
 * Notion-style query): compact JSON, members whose names look like credentials and strings that contain
 * one of `secrets` REDACTED, spaces written `\u0020` so that the field has none, cut after `maxChars`.
 */
export function logValue(value, secrets = [], maxChars = 1000) {
  const text = JSON.stringify(value, (name, member) => {
    if (name !== '' && SENSITIVE_NAME.test(name)) return 'REDACTED';
    return typeof member === 'string' && secrets.some((secret) => member.includes(secret)) ? 'REDACTED' : member;
  }) ?? 'null';
  const spaceless = text.replaceAll(' ', '\\u0020');
  return spaceless.length > maxChars ? `${spaceless.slice(0, maxChars)}...` : spaceless;
}
