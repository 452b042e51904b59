// The auth fault: the bearer token (--token-file or NOTES_SERVER_TOKEN) and the check of a request's
// Authorization header, and the redirect target's refusal of credentials forwarded to it.

import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { jsonError } from '../shared/http.mjs';
import { EXIT_NO_INPUT, EXIT_USAGE, Fatal } from '../server/startup.mjs';

/** The token of the auth fault, or null: --token-file's, else NOTES_SERVER_TOKEN's; visible ASCII only. */
export async function readToken(tokenFile) {
  let token = process.env.NOTES_SERVER_TOKEN ?? null;
  if (tokenFile !== null) {
    try {
      token = (await readFile(tokenFile, 'utf8')).trim();
    } catch (error) {
      throw new Fatal(EXIT_NO_INPUT, `cannot read token file ${tokenFile}: ${error.message}`);
    }
  }
  if (token !== null && !/^[\x21-\x7e]+$/.test(token)) {
    throw new Fatal(EXIT_USAGE, 'the token must be one or more visible ASCII characters');
  }
  return token;
}

/** Whether an Authorization header presents the bearer token (compared in constant time). */

export function bearerMatches(authorization, token) {
  const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  if (token === null || presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The 401 of a request without the right bearer token: the auth fault's, and the nested API's when the server has a token. */
export function unauthorized() {
  return jsonError(401, 'unauthorized', 'a bearer token is required', { 'WWW-Authenticate': 'Bearer realm="notes"' });
}

/** What the redirect target answers a request that carries an Authorization header, on every path. */
export function credentialsForwarded() {
  return jsonError(400, 'credentials-forwarded', 'this origin must not receive the Authorization header of another');
}
