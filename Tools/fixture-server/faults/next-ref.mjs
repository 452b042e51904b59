// next-ref:KIND, hostile next references: the URLs and cursors that replace a cursor page's next
// reference, and the server's side of them (the hostile cursor and /notes/é still lead somewhere).

/**
 * The kinds of `next-ref:KIND`, which replace a cursor page's next reference (contract: `next_cursor`,
 * header: `X-Next-Cursor`, drf: `next`, link: `Link: rel="next"`) with a hostile one (nextRefUrl,
 * nextRefCursor).
 */
export const NEXT_REF_KINDS = [
  'brackets-raw', 'brackets-encoded', 'space', 'bad-escape', 'unicode', 'fragment', 'userinfo', 'ftp', 'file',
  'empty-host', 'long-name',
];

/** The kinds that make sense as a cursor string: the only ones of the contract and header styles. */
export const NEXT_REF_CURSOR_KINDS = ['brackets-raw', 'brackets-encoded', 'space', 'bad-escape', 'unicode', 'long-name'];

/** The styles whose pages have a next reference that next-ref replaces; in the first two it is a cursor. */
export const NEXT_REF_STYLES = ['contract', 'header', 'drf', 'link'];

export const NEXT_REF_CURSOR_STYLES = ['contract', 'header'];

/** The length of the name of `long-name`: 64 KiB, so that any URL that holds it is over 65,535 bytes. */
export const NEXT_REF_LONG_NAME_BYTES = 64 * 1024;

/** The path of `unicode` (raw in the URL): the server serves it, raw or percent-encoded, as /notes. */
export const NEXT_REF_UNICODE_PATH = '/notes/é';

// What each cursor kind appends to the real cursor. Generated cursors are base64 (and `~`), so the
// real cursor is what is left without the suffix (nextRefBaseCursor).
const NEXT_REF_CURSOR_SUFFIXES = {
  'brackets-raw': 'page[offset]=100',
  'brackets-encoded': 'page%5Boffset%5D=100',
  'space': ' and space',
  'bad-escape': '%zz',
  'unicode': 'é',
  'long-name': 'n'.repeat(NEXT_REF_LONG_NAME_BYTES),
};

/** The hostile cursor of a cursor kind (NEXT_REF_CURSOR_KINDS): the real next cursor with the kind's suffix. */
export function nextRefCursor(kind, cursor) {
  const suffix = NEXT_REF_CURSOR_SUFFIXES[kind];
  if (suffix === undefined) throw new Error(`not a cursor kind of next-ref: ${kind}`);
  return `${cursor}${suffix}`;
}

/**
 * The real cursors that a cursor received might be a hostile cursor of (nextRefCursor): the cursor less
 * each suffix it ends with. The server looks them up when the cursor itself names no page, so that a
 * client that follows a hostile cursor gets the page it names.
 */
export function nextRefBaseCursors(cursor) {
  return Object.values(NEXT_REF_CURSOR_SUFFIXES).filter((suffix) => cursor.length > suffix.length && cursor.endsWith(suffix))
    .map((suffix) => cursor.slice(0, -suffix.length));
}

/**
 * The hostile next URL of a kind, made from the real one, `nextUrl`, an absolute URL of /notes of the
 * origin `base` (`scheme://host:port`) with a query (`?cursor=…`). The ones a client may follow still
 * lead to the real next page of the same server:
 *   brackets-raw      BASE/notes?page[offset]=100&cursor=…         (raw brackets)
 *   brackets-encoded  BASE/notes?page%5Boffset%5D=100&cursor=…
 *   space             BASE/notes?q=a b&cursor=…                    (a raw space: not a URL)
 *   bad-escape        BASE/notes%zz?cursor=…                       (an invalid percent escape)
 *   unicode           BASE/notes/é?cursor=…                        (raw UTF-8 in the path; served as /notes)
 *   fragment          BASE/notes?cursor=…#frag
 *   userinfo          scheme://user:pass@host:port/notes?cursor=…
 *   ftp               ftp://host:port/notes?cursor=…
 *   file              file:///etc/passwd
 *   empty-host        scheme:///notes?cursor=…
 *   long-name         BASE/notes?cursor=…&NNN…=1                    (a name of 64 KiB)
 */
export function nextRefUrl(kind, nextUrl, base) {
  const rest = nextUrl.slice(base.length); // /notes?…
  const query = rest.slice(rest.indexOf('?') + 1);
  const [scheme, authority] = base.split('://');
  switch (kind) {
    case 'brackets-raw': return `${base}/notes?page[offset]=100&${query}`;
    case 'brackets-encoded': return `${base}/notes?page%5Boffset%5D=100&${query}`;
    case 'space': return `${base}/notes?q=a b&${query}`;
    case 'bad-escape': return `${base}/notes%zz?${query}`;
    case 'unicode': return `${base}${NEXT_REF_UNICODE_PATH}?${query}`;
    case 'fragment': return `${nextUrl}#frag`;
    case 'userinfo': return `${scheme}://user:pass@${authority}${rest}`;
    case 'ftp': return `ftp://${authority}${rest}`;
    case 'file': return 'file:///etc/passwd';
    case 'empty-host': return `${scheme}://${rest}`;
    case 'long-name': return `${nextUrl}&${'n'.repeat(NEXT_REF_LONG_NAME_BYTES)}=1`;
    default: throw new Error(`unknown kind of next-ref: ${kind}`);
  }
}

/** Whether a request path (as received, raw or percent-encoded) is the path of `unicode`, which is served as /notes. */
export function isNextRefPath(pathname) {
  try {
    return decodeURIComponent(pathname) === NEXT_REF_UNICODE_PATH;
  } catch {
    return false;
  }
}
