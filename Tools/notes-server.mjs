#!/usr/bin/env node
// notes-server: serves paginated notes over HTTP for client tests, from a notes-gen directory or
// generated in memory, in the common pagination styles (cursor, offset, page number, keyset, cursor
// header, JSON:API) and as real servers page (Kinto, pygeoapi, flask-smorest, Litestar, Eve, DynamoDB),
// as GraphQL connections (POST /graphql) and as a Notion-style database query (POST
// /v1/databases/notes/query), with faults injected by flag or per request. See Tools/README.md, or run
// with --help. Built-in modules only, and for /graphql graphql-js from Debian's node-graphql, loaded
// when the first GraphQL request comes (without it /graphql answers 501 and the rest works as ever).

import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import * as lib from './notes-server-lib.mjs';

const USAGE = `Usage: node Tools/notes-server.mjs (--dir DIR | --count N [--page-size P] [--seed S] [--id-kind K])
       [options]

Serves notes pages at http://HOST:PORT/notes (first page) and /notes?cursor=C (the next ones), and
prints that URL as its first line on stdout (https:// with --tls-cert). SIGTERM or SIGINT stops it
(exit 0). Whatever the style, the same notes in the same order are also served at:

  POST /graphql      GraphQL over HTTP, executed by graphql-js (Debian's node-graphql; 501 without it):
                     a body {"query":Q,"variables":{...},"operationName":N} of Content-Type
                     application/json, answered in application/json. The schema (SDL: send an
                     introspection query): Query.notes(first: Int, after: String): NoteConnection!,
                     Query.viewer: Viewer! {login, notes(first, after)}, Query.node(id: ID!): Note,
                     Mutation.deleteNote(id: ID!): Boolean (does nothing: false); NoteConnection {edges
                     {cursor node} nodes pageInfo {hasNextPage hasPreviousPage startCursor endCursor}
                     totalCount}; Note {id title created updated excerpt tags rank score pinned archived
                     meta (scalar JSON: the value as it is) big naive (the member "naïve")}.
                     first: default 10, at most 100; over 100 or below 0 is an error in a 200, as a
                     resolver's error: {"data":null,"errors":[{"message":...,"path":["notes"]}]}.
                     after: the cursor of a note, base64 of arrayconnection:POSITION (0-based), as Relay
                     servers write them; an unknown one is an error in a 200. endCursor: the last edge's
                     cursor (null on an empty page, kept on the last page with hasNextPage false).
                     405 for other methods, 415 for another Content-Type, 400 {"errors":[{"message":...}]}
                     for a body that is no GraphQL request; syntax and validation errors are 200s
  POST /v1/databases/notes/query
                     Notion's database query: a JSON body {"start_cursor":C,"page_size":L} (C absent on
                     the first page; L 1-100, default 100) answers {"object":"list","results":[notes],
                     "next_cursor":C|null,"has_more":B,"type":"page_database"}, C a UUID; a bad cursor
                     or size is 400 {"object":"error","status":400,"code":"validation_error",...},
                     a body that is no JSON 400 invalid_json, another method 405
  On both, @PAGE is floor(POSITION / L) + 1 for a page that starts at note POSITION and asks for L
  notes (first, page_size), as in offset style; a GraphQL request that pages no connection is page 1.
  Every fault acts on both, but shift and next-ref on neither, cycle and deep not on /graphql
  (graphql-cycle is its cycle) and the graphql-* faults on /graphql only; a fault that does not act
  on a request is left out, uncounted. --max-limit cuts first and page_size silently; --total-lie changes totalCount.

Pages:
  --dir DIR          serve a notes-gen directory (DIR/manifest.json and its pages)
  --count N          serve N generated notes instead; 0 serves one empty page
  --page-size P      notes per generated page, and the default limit (default 100)
  --seed S           seed of generated titles, cursors and integer ids, 0-4294967295 (default 42)
  --id-kind K        string: ids n0, n1, ... (the default); int: JSON integers rising with gaps, as
                     after deletes (e.g. 1, 3, 5, 6, ...), fixed by the seed, in every style
  --max-limit L      the largest page size served (limit, per_page, page_size, page[size], _limit,
                     max_results, Limit); a larger one is served as L, silently, as DRF's max_limit
                     (x-pagination: 422, as flask-smorest's max_page_size) (default 1000, or P)
  --totals LIST      what the list styles announce of the total: some of count, header, link,
                     pages (comma-separated; default all), or none (see Styles below)
  --total-lie D      announce N+D notes instead of N (default 0); the notes served are the same
  --no-titles        generated notes without their title member, in every style, in the Notion-style
                     query and on /graphql (whose Note type then has no title field)
  --updates          notes that change while the server runs, for incremental syncs (--count, the
                     cursor styles only; see "With --updates" below)

Server:
  --host HOST        address to listen on (default 127.0.0.1)
  --port PORT        port to listen on; 0 picks a free one (default 0)
  --url-host NAME    host name of the printed URL and of absolute URLs (default: the address
                     listened on), e.g. localhost
  --tls-cert FILE    serve HTTPS with this PEM certificate (chain); needs --tls-key
  --tls-key FILE     ... and this PEM private key; needs --tls-cert
  --http2            offer HTTP/2 over TLS (ALPN h2, HTTP/1.1 still accepted); needs --tls-cert.
                     The log marks each HTTP/2 request with h2
  --compress LIST    compress responses with some of gzip, deflate, br (comma-separated, in order
                     of preference) when the request's Accept-Encoding allows it (default none)
  --style STYLE      contract, drf, link, header (cursor pages), or offset, page, keyset, jsonapi,
                     next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb (--count
                     only) (default contract)
  --fault SPEC       inject a fault; repeatable, or several separated by commas
  --token-file FILE  bearer token for the auth fault (default: env NOTES_SERVER_TOKEN)
  --fixtures DIR     contract fixtures for fixture faults (default: Fixtures/contract)
  --cache-mb MB      memory for cached pages, in MiB (default 256)
  --quiet            no log on stderr
  --help             print this help

Fault SPEC: KIND[:ARG][@PAGE][xN]   @PAGE: only on that 1-based page; xN: only the first N times
  500, 502, 401, 403, ...  that status (400-599) with a JSON error body
  503[:S], 429[:S]         ... with Retry-After: S seconds (default 1)
  html, invalid-json, missing-id, number-id
                           that Fixtures/contract file instead of the page, byte for byte
  fixture:FILE             Fixtures/contract/FILE instead of the page
  content-type[:TYPE]      the page labelled TYPE (default text/plain; charset=utf-8)
  truncate[:BYTES]         the full Content-Length, BYTES of the body (default half), then close
  reset                    reset the connection instead of answering
  stall[:BYTES]            the full Content-Length, BYTES of the body (default 10), then nothing,
                           the connection held open
  bomb[:BYTES]             200, gzip whatever the request accepts, no Content-Length: a body that
                           inflates to BYTES (default 1 GiB) of an endless notes array, streamed
  ratelimit-github[:S]     403 with X-RateLimit-Remaining: 0, X-RateLimit-Reset: now+S (default 1)
  ratelimit-ietf[:S]       429 with RateLimit: limit=10, remaining=0, reset=S and
                           RateLimit-Policy: 10;w=60 (default 1)
  ratelimit-retry-after[:S] 403 with Retry-After: S (default 1)
  remaining-zero[:S]       the response with X-RateLimit-Remaining: 0, X-RateLimit-Reset: now+S
  drip[:BYTES/MS]          the body BYTES at a time every MS ms (default 8/5; drip:64, drip:/20)
  delay[:MS]               wait MS ms before answering (default 1000)
  duplicate-id             the page's last note takes the id of page 1's first note
  cycle                    the page's next cursor is page 2's cursor (offset, page, jsonapi, ogc,
                           x-pagination, eve: next is the previous page; next-page and dynamodb: the
                           token or key of page 2; keyset, page-echo, offset-echo refuse it)
  huge-title[:BYTES]       the first note's title is BYTES long (default 2 MiB), streamed
  deep[:DEPTH]             the first note gains DEPTH nested arrays (default 100000)
  redirect[:STATUS]        302 (or 301, 303, 307, 308) to the same path and query on a second port
  auth                     401 unless the request has Authorization: Bearer <token>
  shift:N                  from this page on, N new notes new0... sit before n0 (the list styles:
                           offset, page, keyset, jsonapi, drf with int ids and the styles of real
                           servers; int ids go on after the last)
  next-ref:KIND            the page's next reference (contract: next_cursor, header: X-Next-Cursor,
                           drf: next, link: Link rel="next") is a hostile one; the last page has none.
                           In drf and link a URL, which still names the next page where it can:
                             brackets-raw      BASE/notes?page[offset]=100&cursor=C
                             brackets-encoded  BASE/notes?page%5Boffset%5D=100&cursor=C
                             space             BASE/notes?q=a b&cursor=C (a raw space)
                             bad-escape        BASE/notes%zz?cursor=C
                             unicode           BASE/notes/é?cursor=C (raw UTF-8; /notes/é is served
                                               as /notes, raw or percent-encoded)
                             fragment          BASE/notes?cursor=C#frag
                             userinfo          http://user:pass@HOST:PORT/notes?cursor=C
                             ftp               ftp://HOST:PORT/notes?cursor=C
                             file              file:///etc/passwd
                             empty-host        http:///notes?cursor=C
                             long-name         BASE/notes?cursor=C&NNN...=1 (a name of 64 KiB)
                           In contract and header a cursor: C followed by page[offset]=100
                           (brackets-raw), page%5Boffset%5D=100 (brackets-encoded), ' and space'
                           (space), %zz (bad-escape), é (unicode) or 64 KiB of n (long-name), which
                           the server serves as C's page; the other kinds are URLs' only and refused
                           there (64 at start-up, 400 per request). The list styles refuse next-ref
  graphql-error            /graphql: 200 {"data":null,"errors":[{"message":"Something went wrong while
                           executing your query.","locations":[...],"path":["notes"]}]}
  graphql-ratelimit[:S]    /graphql, once unless xN: 200 {"data":null,"errors":[{"type":"RATE_LIMITED",
                           "message":"API rate limit exceeded for user ID 1."}]} with
                           X-RateLimit-Remaining: 0, X-RateLimit-Reset: now+S (default 1); the retry works
  graphql-cycle            /graphql: the page's endCursor is the previous page's (the cursor that asked
                           for it), hasNextPage true
  graphql-endless          /graphql: from @PAGE on (or every page), hasNextPage is always true; past the
                           last note each empty page names the cursor that asked for it as endCursor

Styles (the first four take ?cursor=C):
  contract  {"notes":[...],"next_cursor":C}
  drf       {"next":URL,"previous":URL,"results":[...]}
  link      [...] with Link: <URL>; rel="next"
  header    {"notes":[...]} with X-Next-Cursor: C
  offset    ?offset=K&limit=L: {"count":N,"next":URL,"previous":URL,"results":[...]}, X-Total-Count: N
  page      ?page=P&per_page=L: {"count":N,"total_pages":T,"next":URL,"previous":URL,"results":[...]},
            Link: <URL>; rel="next", <URL>; rel="last", X-Total-Count: N
  keyset    ?starting_after=ID&limit=L: {"object":"list","data":[...],"has_more":B,"url":"/notes"}
  jsonapi   ?page[number]=P&page[size]=L (raw or percent-encoded), as djangorestframework-jsonapi:
            {"links":{"first":URL,"last":URL,"next":URL,"prev":URL},"data":[{"type":"notes","id":"ID",
            "attributes":{...}},...],"meta":{"pagination":{"page":P,"pages":T,"count":N}}},
            Content-Type: application/vnd.api+json; links sorted and percent-encoded
            (?page%5Bnumber%5D=2&page%5Bsize%5D=100); 406 unless Accept admits
            application/vnd.api+json, application/* or */*; 400 for a query parameter the library
            refuses (not page[...], sort, include, fields[...], filter[...] or the server's own)
  drf with --id-kind int: ?page=P&page_size=L, {"count":N,"next":URL,"previous":URL,"results":[...]},
            as DRF's PageNumberPagination (links as DRF writes them; page 2's previous has no page=)
  The styles of real servers (--count only; their errors in the server's own form):
  next-page ?_limit=L&_token=T, as Kinto: {"data":[...]} with Next-Page: URL (absent on the last
            page; URL the request's own with _limit=L&_token=T, T standard base64 of
            {"last_object": {"id": ID}, "offset": O, "nonce": ...}) and Total-Records: N (totals
            header); HEAD answers Total-Objects: N and Total-Records: N. Any other query parameter
            (but those starting with _, bar _since/_to/_before, and the server's own) is a filter on
            a field that no note has: {"data":[]}, no Next-Page (?cursor=abc). Bad _limit or _token:
            400 {"code":400,"errno":107,"error":"Invalid parameters","message":...,"details":[...]}
  ogc       ?offset=K&limit=L (&f=F), as pygeoapi (OGC API Features): {"type":"FeatureCollection",
            "features":[...],"numberMatched":N,"numberReturned":n,"links":[self, alternate (JSON-LD,
            HTML), prev, next, collection]} as application/geo+json; next while numberMatched > K+L
            or the page is full (so a full last page links an empty one); numberMatched: totals
            count; 400 {"code":"InvalidParameterValue",...} for a bad offset or limit
  x-pagination ?page=P&page_size=L, as flask-smorest: [...] with X-Pagination: {"total": N,
            "total_pages": T, "first_page": 1, "last_page": T, "page": P, "previous_page": P-1,
            "next_page": P+1} (json.dumps; previous_page after page 1, next_page before T, no page
            past T, {"total": 0, "total_pages": 0} for none; totals header); 422 {"code":422,
            "errors":{"query":{...}},"status":"Unprocessable Entity"} for page < 1, page_size
            outside 1..L of --max-limit, or no integer. Other parameters ignored
  page-echo ?current_page=P&page_size=L, as Litestar's ClassicPagination: {"items":[...],
            "page_size":L,"current_page":P,"total_pages":T} (T: totals pages; 0 for none); other
            parameters ignored (page=2 is page 1); 400 {"status_code":400,"detail":"Validation failed
            for GET /notes?...","extra":[...]} for values below 1 or no integer
  offset-echo ?offset=K&limit=L, as Litestar's OffsetPagination: {"items":[...],"limit":L,
            "offset":K,"total":N} (N: totals count); 400 as page-echo
  eve       ?page=P&max_results=L, as Python Eve: {"_items":[{"_id":ID,...}],"_links":{"parent":
            {"title":"home","href":"/"},"self":{"title":"notes","href":"notes?..."},"next":{"title":
            "next page","href":"notes?page=P+1"},"last":{...},"prev":{...}},"_meta":{"page":P,
            "max_results":L,"total":N}}, X-Total-Count: N; hrefs relative without a leading slash,
            max_results in them unless it is --page-size, the request's other parameters raw; notes
            with _id for id; without totals count no total and a next link on every page (Eve's
            OPTIMIZE_PAGINATION_FOR_SPEED). Never an error: bad values are the defaults
  dynamodb  POST /notes with Content-Type: application/x-amz-json-1.0 (and, if sent, X-Amz-Target:
            DynamoDB_20120810.Scan), body {"TableName":"notes","Limit":L,"ExclusiveStartKey":
            {"id":{"S":ID}}} (N for --id-kind int; absent on the first page), as DynamoDB (moto):
            {"Count":n,"Items":[...],"ScannedCount":n,"LastEvaluatedKey":{"id":{"S":ID}}}, the key
            absent on the last page; items are the plain notes, not typed. GET is 400; errors are
            400 {"__type":"com.amazon.coral.validation#ValidationException","message":...} (or
            SerializationException, UnknownOperationException, ResourceNotFoundException)
  Their totals: next-page header (Total-Records); ogc count (numberMatched); x-pagination header
  (X-Pagination, which is then absent: flask-smorest without a PAGINATION_HEADER_NAME); page-echo
  pages; offset-echo count; eve count (_meta.total), header (X-Total-Count), link (_links.last).
  Where the real server derives its next page from its count (ogc, x-pagination, eve), --total-lie
  moves it too; next-page and dynamodb follow the notes.
  @PAGE is the page in the style's terms: offset, ogc and offset-echo floor(K/L)+1; page, drf,
  jsonapi, x-pagination, page-echo and eve P; keyset, next-page and dynamodb the first note's page.

With --updates (GitHub's issues semantics for since):
  Each note ends with "updated_at": an RFC 3339 date-time in UTC, note n<i> 2026-11-30T08:00:00Z plus
  i minutes, whatever the seed; the notes are served in updated_at order (at first the usual order).
  GET /notes?since=T serves only the notes updated at or after T, T an RFC 3339 date-time with Z or
                     an offset (a + percent-encoded as %2B; 2026-11-30T09:00:00%2B01:00); anything
                     else is 422 {"error":"invalid-since","message":...}, two values 400. The pages,
                     cursors and next URLs of a walk with since page through the notes it keeps: the
                     cursor of page K is the one --count gives page K, drf and link carry since in
                     their next URLs, and a cursor past the last page serves an empty page
  POST /admin/touch?count=K
                     edits K notes (default 1; all when fewer) chosen by the seed: the title becomes
                     "Edit E: TITLE" (E: that note's edits so far), updated_at a minute after the
                     newest note's, so the note moves to the end; oldest first
  POST /admin/touch?id=ID&id=ID...
                     edits those notes instead (an id no note has is a 400)
  POST /admin/add?count=K
                     adds K notes new0, new1, ... (with --id-kind int, the ids after the last), each
                     a minute after the newest
  Both change the notes at once and answer 200 {"touched"|"added":[the notes, as GET /notes now
  serves them],"count":NOTES,"newest":T}; K is 0-100000; another method is a 405, another /admin/
  path a 404. /graphql and the Notion-style query serve the same notes, unfiltered. No faults act on
  /admin/; without --updates it is a path like any other (404).

Per request: ?style=drf or X-Notes-Style: link; ?fault=503@2x1 or X-Notes-Fault: delay:50, 500@3;
?totals=none; ?compress=gzip,br or ?compress=none

Log (stderr): METHOD TARGET STATUS BYTESB MSms [graphql=OPERATION vars=JSON | body=JSON] [fault=SPEC,...]
c=CONNECTION t=MS_SINCE_START
  graphql=: a /graphql request's operation type (query, mutation; - for none), :NAME if it has one, and
  its variables; body=: a Notion-style query's body. JSON compact, spaces as \u0020, secrets REDACTED.

Exit status: 0 after SIGTERM/SIGINT, 64 bad arguments, 65 bad manifest or unusable TLS certificate
or key, 66 unreadable input, 1 other.`;

const EXIT_USAGE = 64;
const EXIT_DATA = 65;
const EXIT_NO_INPUT = 66;

const DEFAULT_FIXTURES = fileURLToPath(new URL('../Fixtures/contract/', import.meta.url));
const CHUNK_BYTES = 64 * 1024;
const SHUTDOWN_GRACE_MS = 1000;
const COMMON_HEADERS = { 'Cache-Control': 'no-store' };
// br at quality 5: quality 11 (the default) takes a large fraction of a second for one page.
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } };
const COMPRESS = { gzip: promisify(zlib.gzip), deflate: promisify(zlib.deflate), br: promisify(zlib.brotliCompress) };
const COMPRESS_STREAM = {
  gzip: () => zlib.createGzip(),
  deflate: () => zlib.createDeflate(),
  br: () => zlib.createBrotliCompress(BROTLI_OPTIONS),
};

/** The requests not logged yet, and what to do once there are none (at shutdown: exit). */
const requests = { open: 0, drained: null };

/** An error that ends start-up with a message and an exit status. */
class Fatal extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// MARK: - Start-up

async function main() {
  let options;
  try {
    options = lib.parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
    throw new Fatal(EXIT_USAGE, `${error.message} (see --help)`);
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  // Signals are handled from here on, so that a stop during start-up exits 0 as well.
  const shutdown = new AbortController();
  const servers = [];
  process.on('SIGTERM', () => stop(servers, shutdown));
  process.on('SIGINT', () => stop(servers, shutdown));

  const token = await readToken(options.tokenFile);
  const credentials = await readCredentials(options.tlsCert, options.tlsKey);
  const source = options.dir !== null ? await openDirectory(options.dir) : generatedSource(options);
  const fixtures = await loadFixtures(options.fixtures);
  for (const fault of options.faults) {
    const styleProblem = lib.styleProblem(fault, options.style, options.idKind ?? 'string');
    const problem = lib.faultProblem(fault, { fixtures, hasToken: token !== null, pageCount: source.pages.length })
      ?? (styleProblem && `with --style ${options.style}: ${styleProblem}`);
    if (problem) throw new Fatal(EXIT_USAGE, problem);
  }

  const cache = new lib.PageCache(options.cacheMiB * 1024 * 1024);
  // Page 1 is loaded now so that a broken directory fails at start-up, not on the first request.
  try {
    await cache.get(0, source.load);
  } catch (error) {
    throw new Fatal(error instanceof lib.ManifestError ? EXIT_DATA : EXIT_NO_INPUT, `cannot serve page 1: ${error.message}`);
  }

  const state = {
    ...source,
    cache,
    fixtures,
    token,
    style: options.style,
    faults: options.faults,
    used: new Map(), // fault key -> times fired
    shifted: [], // the shift faults that acted, in order: {key, notes}
    quiet: options.quiet,
    shutdown,
    compress: options.compress, // the content codings offered unless a request's compress= says otherwise
    base: null, // http(s)://host:port of the main listener, host as --url-host says
    targetBase: null, // ... and of the redirect target
    origin: process.hrtime.bigint(), // what the log's t= counts from
    connectionCount: 0,
    connections: new Map(), // connectionKey(socket) -> {number, socket}, while open: the TCP socket
    // --updates: the notes as they change, and the cursors of their pages (cursor -> index) made so far.
    updates: options.updates ? new lib.UpdatingNotes(options.count, options.seed, options.idKind, !options.noTitles) : null,
    updateCursors: new Map(),
  };
  const createServer = (isTarget) => {
    const handler = (req, res) => handle(req, res, state, isTarget);
    const server = !credentials ? http.createServer(handler)
      : options.http2 ? http2.createSecureServer({ ...credentials, allowHTTP1: true }, handler)
        : https.createServer(credentials, handler);
    server.on('connection', (socket) => {
      const key = connectionKey(socket);
      const connection = { number: ++state.connectionCount, socket };
      state.connections.set(key, connection);
      socket.once('close', () => {
        if (state.connections.get(key) === connection) state.connections.delete(key);
      });
    });
    return server;
  };
  const mainServer = createServer(false);
  const targetServer = createServer(true);
  servers.push(mainServer, targetServer);
  const scheme = credentials ? 'https' : 'http';
  state.base = await listen(mainServer, options.host, options.port, scheme, options.urlHost);
  state.targetBase = await listen(targetServer, options.host, 0, scheme, options.urlHost);

  process.stdout.write(`${state.base}/notes\n`);
  log(state, `notes-server: ${source.description}, ${source.pages.length} pages, style ${options.style}; `
    + `redirect target ${state.targetBase}`);
}

/**
 * Stops on SIGTERM or SIGINT: ends delays, drips and stalls in flight, stops listening, closes idle
 * keep-alive connections (and, after a grace period, any others) and exits 0 once all are closed and
 * every request they carried is logged.
 */
function stop(servers, shutdown) {
  if (shutdown.signal.aborted) return;
  shutdown.abort();
  if (servers.length === 0) process.exit(0);
  const exit = () => process.exit(0);
  let open = servers.length;
  for (const server of servers) {
    server.close(() => {
      if (--open > 0) return;
      // A request's log line is written when its response closes, which comes after its connection
      // has left the server: wait for it.
      if (requests.open === 0) exit();
      else requests.drained = exit;
    });
    server.closeIdleConnections();
  }
  setTimeout(() => servers.forEach((server) => server.closeAllConnections()), SHUTDOWN_GRACE_MS).unref();
  setTimeout(exit, 2 * SHUTDOWN_GRACE_MS).unref();
}

async function readToken(tokenFile) {
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

/**
 * The --tls-cert and --tls-key files, as https.createServer takes them, or null for plain HTTP. An
 * unreadable file exits 66; a pair that TLS cannot use (not PEM, a key of another certificate) 65.
 */
async function readCredentials(certFile, keyFile) {
  if (certFile === null) return null;
  const read = async (file, flag) => {
    try {
      return await readFile(file);
    } catch (error) {
      throw new Fatal(EXIT_NO_INPUT, `cannot read ${flag} ${file}: ${error.message}`);
    }
  };
  const credentials = { cert: await read(certFile, '--tls-cert'), key: await read(keyFile, '--tls-key') };
  try {
    tls.createSecureContext(credentials);
  } catch (error) {
    throw new Fatal(EXIT_DATA, `cannot serve HTTPS with ${certFile} and ${keyFile}: ${error.message}`);
  }
  return credentials;
}

/**
 * A notes-gen directory: the page list from its manifest, pages read from disk when first asked for.
 * Pages are read synchronously on purpose: a ~200 KB read from the page cache takes tens of
 * microseconds, while fs.promises.readFile's thread-pool round trips cost several times that, and
 * the first walk through a directory is what client benchmarks measure.
 */
async function openDirectory(dir) {
  const manifestPath = path.join(dir, 'manifest.json');
  let text;
  try {
    text = await readFile(manifestPath, 'utf8');
  } catch (error) {
    throw new Fatal(EXIT_NO_INPUT, `cannot read ${manifestPath}: ${error.message}`);
  }
  let pages, byCursor;
  try {
    pages = lib.readManifest(JSON.parse(text));
    byCursor = lib.indexPages(pages);
  } catch (error) {
    throw new Fatal(EXIT_DATA, `${manifestPath}: ${error.message}`);
  }
  return {
    description: `directory ${dir}`,
    generated: null, // so no offset, page or keyset style
    pages,
    byCursor,
    load: async (index) => {
      const { file, items } = pages[index];
      const body = readFileSync(path.join(dir, file));
      lib.checkItems(body, items, file);
      return { body, items };
    },
  };
}

function generatedSource({ count, pageSize, seed, maxLimit, totals, totalLie, idKind, updates, noTitles }) {
  const pages = lib.generatedPages(count, pageSize, seed);
  const titles = !noTitles;
  return {
    description: `${count} generated notes (page size ${pageSize}, seed ${seed}${idKind === 'int' ? ', integer ids' : ''}`
      + `${titles ? '' : ', no titles'}${updates ? ', with updates' : ''})`,
    // What the list styles (offset, page, keyset, jsonapi, ...) need; a directory has none of it.
    generated: { count, pageSize, seed, maxLimit, totals, totalLie, idKind, titles },
    pages,
    byCursor: lib.indexPages(pages),
    load: async (index) => lib.renderGeneratedPage(count, pageSize, seed, index, idKind, titles),
  };
}

/** Every file of the fixtures directory by name. The default directory may be missing; a given one may not. */
async function loadFixtures(dir) {
  const fixtures = new Map();
  let names;
  try {
    names = await readdir(dir ?? DEFAULT_FIXTURES);
  } catch (error) {
    if (dir === null) return fixtures;
    throw new Fatal(EXIT_NO_INPUT, `cannot read fixtures directory ${dir}: ${error.message}`);
  }
  for (const name of names) fixtures.set(name, await readFile(path.join(dir ?? DEFAULT_FIXTURES, name)));
  return fixtures;
}

/** Listens; resolves with the origin that URLs name: `scheme://host:port`, host `urlHost` or the address bound. */
function listen(server, host, port, scheme, urlHost) {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => reject(new Fatal(1, `cannot listen on ${host}:${port}: ${error.message}`)));
    server.listen(port, host, () => {
      const { address, port: bound } = server.address();
      resolve(`${scheme}://${urlHost ?? (address.includes(':') ? `[${address}]` : address)}:${bound}`);
    });
  });
}

/**
 * What tells a TCP connection apart while it is open: its local and remote ends. A TLS socket has the
 * same ends as the TCP socket under it, so a request's socket finds the connection it came on.
 */
function connectionKey(socket) {
  return `${socket.localAddress} ${socket.localPort} ${socket.remoteAddress} ${socket.remotePort}`;
}

function log(state, line) {
  if (!state.quiet) process.stderr.write(`${line}\n`);
}

// MARK: - Requests

/**
 * Answers one request, on the main listener or (`isTarget`) on the redirect target. The target serves
 * the same pages without faults or auth, and refuses any request that carries an Authorization header:
 * that is a client forwarding its credentials to another origin.
 */
async function handle(req, res, state, isTarget) {
  const started = process.hrtime.bigint();
  const arrived = Number((started - state.origin) / 1_000_000n);
  const connection = state.connections.get(connectionKey(req.socket)) ?? null;
  const record = { bytes: 0, faults: [], connection, detail: '' }; // detail: what /graphql and the Notion query log
  const gone = new AbortController(); // the client left before the response was complete
  requests.open++;
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const secrets = state.token === null ? [] : [state.token];
    const faults = record.faults.length ? ` fault=${record.faults.join(',')}` : '';
    log(state, `${isTarget ? '[redirect target] ' : ''}${req.method} ${lib.redactTarget(req.url, secrets)} `
      + `${res.headersSent ? res.statusCode : '-'} ${record.bytes}B ${ms.toFixed(1)}ms${record.detail && ` ${record.detail}`}${faults} `
      + `c=${connection?.number ?? '?'} t=${arrived}${req.httpVersion === '2.0' ? ' h2' : ''}`);
    if (--requests.open === 0) requests.drained?.();
  });
  const signal = AbortSignal.any([state.shutdown.signal, gone.signal]);
  try {
    const response = await respond(req, state, isTarget, record, signal);
    if (response) {
      await encode(response, req.headers['accept-encoding'], offeredEncodings(req.url, state));
      await send(res, response, record, signal);
    }
  } catch (error) {
    if (error.name !== 'AbortError') process.stderr.write(`notes-server: ${req.method} ${req.url}: ${error.stack}\n`);
    if (res.headersSent || error.name === 'AbortError') res.destroy();
    else await send(res, jsonError(500, 'internal', 'the server failed; see its log'), record, signal);
  }
}

/**
 * Works out the response to a request: `{status, headers, parts}` plus the delivery faults, or null
 * when a fault already dealt with the connection.
 */
async function respond(req, state, isTarget, record, signal) {
  const q = req.url.indexOf('?');
  const pathname = q === -1 ? req.url : req.url.slice(0, q);
  // Query values are form-decoded, as most web frameworks do: an unencoded `+` in a cursor is a space.
  const query = new URLSearchParams(q === -1 ? '' : req.url.slice(q + 1));
  if (pathname === GRAPHQL_PATH) return graphqlResponse(req, query, state, isTarget, record, signal);
  if (pathname === NOTION_PATH) return notionResponse(req, query, state, isTarget, record, signal);
  if (state.updates && !isTarget && pathname.startsWith(ADMIN_PREFIX)) return adminResponse(req, pathname, query, state);
  // next-ref:unicode's path leads to the same pages.
  if (pathname !== '/notes' && !lib.isNextRefPath(pathname)) {
    return jsonError(404, 'not-found', `no such path; pages are at /notes, GraphQL at ${GRAPHQL_PATH}, the Notion-style query at ${NOTION_PATH}`);
  }
  let style;
  try {
    style = lib.parseStyle(query.get('style') ?? req.headers['x-notes-style'] ?? state.style);
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
    return jsonError(400, 'bad-request', error.message);
  }
  const methods = STYLE_METHODS[style] ?? ['GET'];
  if (!methods.includes(req.method)) {
    // DynamoDB answers a request without a JSON body to deserialize as it answers a bad one.
    if (style === 'dynamodb' && req.method === 'GET') {
      return styleError(lib.dynamoError(lib.DYNAMODB_SERIALIZATION, `a Scan is a POST of a JSON body with Content-Type: ${lib.DYNAMODB_TYPE}`));
    }
    return jsonError(405, 'method-not-allowed', `only ${methods.join(' and ')}`, { Allow: methods.join(', ') });
  }

  let faults, listQuery;
  const idKind = state.generated?.idKind ?? 'string';
  try {
    requestedEncodings(query, state);
    faults = isTarget ? [] : requestFaults(query, req);
    const updatesProblem = state.updates && lib.updatesStyleProblem(style, idKind);
    if (updatesProblem) throw new lib.UsageError(updatesProblem);
    if (lib.isListStyle(style, idKind)) {
      if (!state.generated) throw new lib.UsageError(lib.listStyleNeedsCount(style));
      if (style !== 'jsonapi' && style !== 'dynamodb') listQuery = lib.parseListQuery(style, query, state.generated, { method: req.method, target: req.url });
      if (style === 'next-page') listQuery.head = req.method === 'HEAD';
    }
  } catch (error) {
    if (error instanceof lib.StyleError) return styleError(error);
    if (!(error instanceof lib.UsageError)) throw error;
    return jsonError(400, 'bad-request', error.message);
  }
  if (style === 'jsonapi') {
    // As Django REST framework: content negotiation first, then the query parameter filter, then paging.
    if (!lib.acceptsJsonApi(req.headers.accept)) {
      return jsonApiError(406, 'not_acceptable', 'Could not satisfy the request Accept header.');
    }
    const problem = lib.jsonApiQueryProblem(query);
    if (problem) return jsonApiError(400, 'invalid', problem);
    try {
      listQuery = lib.parseListQuery(style, query, state.generated);
    } catch (error) {
      if (!(error instanceof lib.UsageError)) throw error;
      return jsonApiError(400, 'invalid', error.message);
    }
  }
  if (style === 'dynamodb') {
    try {
      listQuery = await dynamoScan(req, state, record);
    } catch (error) {
      if (!(error instanceof lib.StyleError)) throw error;
      return styleError(error);
    }
  }
  for (const fault of faults) {
    const problem = lib.faultProblem(fault, { fixtures: state.fixtures, hasToken: state.token !== null });
    if (problem) return jsonError(400, 'bad-request', problem);
  }
  const active = isTarget ? [] : [...faults, ...state.faults].filter((fault) => lib.faultActsOn(fault, 'notes'));
  for (const fault of active) {
    const problem = lib.styleProblem(fault, style, idKind);
    if (problem) return jsonError(400, 'bad-request', problem);
  }

  // Where the request is: a cursor page (`index`, 0-based) or a place in the list (`list`), and the
  // 1-based page number that faults' @PAGE name.
  let index = null;
  let list = null;
  let view = staticView(state);
  let page;
  if (listQuery) {
    list = listView(state, isTarget ? targetShifts(query, req, state) : active);
    if (style === 'drf' || style === 'jsonapi') {
      const number = lib.resolvePageNumber(listQuery.page, list.length, listQuery.limit);
      if (number === null) {
        return style === 'drf' ? jsonBody(404, { detail: 'Invalid page.' }) : jsonApiError(404, 'not_found', 'Invalid page.');
      }
      listQuery = { ...listQuery, page: number };
    }
    const start = listStart(style, listQuery, list);
    if (start === null) return unknownStart(style);
    page = listQuery.page ?? Math.floor(start / listQuery.limit) + 1;
  } else {
    const cursors = query.getAll('cursor');
    if (cursors.length > 1) return jsonError(400, 'bad-request', 'more than one cursor');
    if (state.updates) {
      const since = lib.parseSince(query);
      if (since?.problem) return jsonError(since.problem.status, since.problem.error, since.problem.message);
      view = updatesView(state, since?.ms ?? null);
    }
    index = cursors.length === 0 ? 0 : view.byCursor.get(cursors[0]);
    // A hostile cursor of next-ref names the page of the cursor it was made from.
    if (index === undefined) index = lib.nextRefBaseCursors(cursors[0]).map((cursor) => view.byCursor.get(cursor)).find((i) => i !== undefined);
    if (index === undefined) return jsonError(400, 'unknown-cursor', 'no page has this cursor');
    page = index + 1;
  }
  if (isTarget && req.headers.authorization !== undefined) return credentialsForwarded();

  const plan = planRequest(active, page, req, state, record);
  if (plan.shift.length) {
    // The new notes are there from this request on; the list this request sees has them.
    state.shifted.push(...plan.shift.map((fault) => ({ key: fault.key, notes: fault.notes })));
    list = listView(state, active);
  }
  return applyPlan(plan, req, state, signal, record, () => (list
    ? listResponse(style, list, listQuery, plan.content, query, state)
    : pageResponse(index, style, plan.content, query, state, view)));
}

/** Plans the faults of a request for page `page` (lib.planFaults), counts those that fire and names them in the log. */
function planRequest(active, page, req, state, record) {
  const plan = lib.planFaults(active, page, bearerMatches(req.headers.authorization, state.token), state.used);
  for (const fault of plan.fired) state.used.set(fault.key, (state.used.get(fault.key) ?? 0) + 1);
  record.faults = plan.fired.map((fault) => fault.spec);
  return plan;
}

/**
 * Carries out a plan of faults, the same for every endpoint: its delays, then a reset (null: no
 * response), a 401, or the replacing fault's response or else the one `build` makes, relabelled,
 * with rate limit headers and delivery faults as planned.
 */
async function applyPlan(plan, req, state, signal, record, build) {
  if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal });
  if (plan.reset) {
    // The TCP socket itself: a TLS socket cannot send a reset. The log line is written when the
    // response closes with its socket, status '-'.
    (record.connection?.socket ?? req.socket).resetAndDestroy();
    return null;
  }
  if (plan.unauthorized) {
    return jsonError(401, 'unauthorized', 'a bearer token is required', { 'WWW-Authenticate': 'Bearer realm="notes"' });
  }
  const response = plan.replace ? replacement(plan.replace, req, state) : await build();
  if (plan.contentType) response.headers['Content-Type'] = plan.contentType.contentType;
  if (plan.remainingZero) Object.assign(response.headers, lib.githubRateHeaders(plan.remainingZero.seconds, Date.now()));
  response.truncate = plan.truncate;
  response.stall = plan.stall;
  response.drip = plan.drip;
  return response;
}

/** The content codings a request's `compress=` offers (none: --compress); throws UsageError. */
function requestedEncodings(query, state) {
  const values = query.getAll('compress');
  if (values.length > 1) throw new lib.UsageError('more than one compress');
  return values.length ? lib.parseCompress(values[0], 'compress=') : state.compress;
}

/** The content codings offered for a request target; a bad `compress=` (answered 400) offers --compress. */
function offeredEncodings(url, state) {
  const q = url.indexOf('?');
  try {
    return requestedEncodings(new URLSearchParams(q === -1 ? '' : url.slice(q + 1)), state);
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
    return state.compress;
  }
}

function requestFaults(query, req) {
  return lib.parseFaultList([...query.getAll('fault'), req.headers['x-notes-fault'] ?? ''], 'request');
}

/**
 * The shift faults behind a request to the redirect target. The target ignores faults, so none acts
 * there, but it serves the same list: with the notes that the flag faults, and the request faults it
 * carries, have inserted on the main listener. Faults that do not parse are ignored, as all are there.
 */
function targetShifts(query, req, state) {
  let faults = [];
  try {
    faults = requestFaults(query, req);
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
  }
  return [...faults, ...state.faults];
}

/** The list of generated notes that a request with these faults sees: with the notes of each shift that has acted. */
function listView(state, faults) {
  const keys = new Set(faults.filter((fault) => fault.kind === 'shift').map((fault) => fault.key));
  const batches = state.shifted.filter((shift) => keys.has(shift.key)).map((shift) => shift.notes);
  return new lib.NoteList(state.generated.count, batches, state.generated.idKind, state.generated.seed, state.generated.titles);
}

/**
 * The position of the first note a list request asks for, or null for a keyset id (keyset's
 * starting_after, the last id of a Kinto token, DynamoDB's ExclusiveStartKey) that no note has.
 */
function listStart(style, listQuery, list) {
  switch (style) {
    case 'offset': case 'ogc': case 'offset-echo': return listQuery.offset;
    case 'keyset': case 'next-page': case 'dynamodb': {
      if (listQuery.startingAfter === null) return 0;
      const position = list.positionOf(listQuery.startingAfter);
      return position === -1 ? null : position + 1;
    }
    default: return (listQuery.page - 1) * listQuery.limit;
  }
}

/** What a list style answers a keyset id that no note has (see listStart), in the real server's form where it has one. */
function unknownStart(style) {
  switch (style) {
    case 'next-page': return styleError(new lib.StyleError(400, lib.kintoErrorBody(null, '_token has invalid content')));
    case 'dynamodb':
      return styleError(lib.dynamoError(lib.DYNAMODB_VALIDATION, 'The provided starting key is invalid: The provided key element does not match the schema'));
    default: return jsonError(400, 'unknown-cursor', 'no note has this id');
  }
}

/** The methods of GET /notes in each style, where they are not GET alone: Kinto counts with HEAD; DynamoDB takes POSTs. */
const STYLE_METHODS = { 'next-page': ['GET', 'HEAD'], dynamodb: ['POST'] };

/**
 * Reads the body of a DynamoDB Scan (POST /notes in dynamodb style): Content-Type
 * application/x-amz-json-1.0 and, if the request has one, X-Amz-Target DynamoDB_20120810.Scan, then
 * lib.parseDynamoScan. Returns the list query; throws StyleError in DynamoDB's form (413 for a body over
 * MAX_BODY_BYTES). The body goes to the log as the Notion query's does.
 */
async function dynamoScan(req, state, record) {
  if (mediaType(req.headers['content-type']) !== lib.DYNAMODB_TYPE) {
    throw lib.dynamoError(lib.DYNAMODB_SERIALIZATION, `a Scan is a POST of a JSON body with Content-Type: ${lib.DYNAMODB_TYPE}`);
  }
  const target = req.headers['x-amz-target'];
  if (target !== undefined && target !== lib.DYNAMODB_SCAN_TARGET) {
    throw lib.dynamoError(lib.DYNAMODB_UNKNOWN_OPERATION, `this endpoint answers X-Amz-Target: ${lib.DYNAMODB_SCAN_TARGET} only`);
  }
  const body = await readBody(req);
  if (body === null) throw new lib.StyleError(413, { __type: lib.DYNAMODB_VALIDATION, message: `the body is over ${MAX_BODY_BYTES} bytes` }, { 'Content-Type': lib.DYNAMODB_TYPE });
  const text = body.toString('utf8');
  try {
    record.detail = `body=${lib.logValue(JSON.parse(text), secretsOf(state))}`;
  } catch {
    // Not JSON: parseDynamoScan says so.
  }
  return lib.parseDynamoScan(text, state.generated);
}

function bearerMatches(authorization, token) {
  const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  if (token === null || presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The cursor pages as the source serves them (a directory's, or --count's): `load(index)` (cached),
 * `cursor(index)` (null for the first page), `nextCursor(index)` and `byCursor` (cursor -> index).
 */
function staticView(state) {
  return {
    load: (index) => state.cache.get(index, state.load),
    cursor: (index) => state.pages[index].cursor,
    nextCursor: (index) => state.pages[index].nextCursor,
    byCursor: state.byCursor,
  };
}

/**
 * The cursor pages of --updates: the notes updated at or after `sinceMs` (all for null), --page-size a
 * page, with the cursors of --count (page k's is lib.deriveCursor(seed, k)), so that a walk with since
 * pages through the filtered list; a cursor past its last page serves an empty page with no next.
 */
function updatesView(state, sinceMs) {
  const { updates, generated: { pageSize, seed } } = state;
  const start = sinceMs === null ? 0 : updates.firstAtOrAfter(sinceMs);
  const pages = Math.max(1, Math.ceil((updates.length - start) / pageSize));
  // Every cursor that a page of the whole list could have, made once each.
  const cursors = state.updateCursors;
  for (let k = cursors.size + 1; k < Math.max(1, Math.ceil(updates.length / pageSize)); k++) cursors.set(lib.deriveCursor(seed, k), k);
  const cursor = (index) => (index === 0 ? null : lib.deriveCursor(seed, index));
  return {
    load: async (index) => updates.renderPage(start, pageSize, index),
    cursor,
    nextCursor: (index) => (index + 1 < pages ? cursor(index + 1) : null),
    byCursor: cursors,
  };
}

/**
 * Page `index` (0-based) of `view` (staticView, updatesView) in `style`, with the content faults
 * applied; the first `next-ref` replaces the next reference (a page without one, the last, keeps none).
 */
async function pageResponse(index, style, contentFaults, query, state, view) {
  const page = await view.load(index);
  const cycles = index > 0 && contentFaults.some((fault) => fault.kind === 'cycle');
  const realNext = cycles ? view.cursor(1) : view.nextCursor(index);
  const nextRef = realNext === null ? null : contentFaults.find((fault) => fault.kind === 'next-ref') ?? null;
  const alters = contentFaults.some((fault) => fault.kind !== 'cycle' && fault.kind !== 'next-ref');
  const headers = { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE };

  // The common case: the page bytes exactly as stored.
  if (style === 'contract' && !cycles && !alters && !nextRef) return { status: 200, headers, parts: [page.body] };

  const items = page.body.subarray(...page.items);
  let itemParts = [items];
  if (alters) {
    const first = index === 0 ? page : await view.load(0);
    itemParts = lib.applyContentFaults(items, contentFaults, lib.firstNoteId(first.body.subarray(...first.items)));
  }
  const url = (cursor) => lib.pageUrl(state.base, cursor, carriedParameters(query, state.updates ? UPDATES_CARRIED : CARRIED));
  const cursorRef = nextRef && ['contract', 'header'].includes(style);
  let nextUrl = realNext === null ? null : url(realNext);
  if (nextRef && !cursorRef) nextUrl = lib.nextRefUrl(nextRef.ref, nextUrl, state.base);
  const wrapped = lib.wrapPage(style, itemParts, {
    nextCursor: cursorRef ? lib.nextRefCursor(nextRef.ref, realNext) : realNext,
    nextUrl,
    prevUrl: index === 0 ? null : url(view.cursor(index - 1)),
  });
  // A header carries bytes: a raw é goes out as its UTF-8 (Node writes header strings as latin1).
  for (const name of ['Link', 'X-Next-Cursor']) {
    if (nextRef && name in wrapped.headers) wrapped.headers[name] = Buffer.from(wrapped.headers[name]).toString('latin1');
  }
  return { status: 200, headers: { ...headers, ...wrapped.headers }, parts: wrapped.parts };
}

/**
 * Absolute URLs keep the style, totals, faults and compression a client chose in the query (and with
 * --updates its since), so following them goes on with the same scenario.
 */
function carriedParameters(query, names = CARRIED) {
  return names.flatMap((name) => query.getAll(name).map((value) => [name, value]));
}

const CARRIED = ['style', 'totals', 'fault', 'compress'];
const UPDATES_CARRIED = [...CARRIED, 'since'];

/**
 * A page of the list styles (offset, page, keyset, jsonapi, drf with integer ids, and the styles of
 * real servers): the notes from the requested place, up to the limit, with the content faults applied;
 * `cycle` points `next` at the previous page (keyset, page-echo and offset-echo refuse it earlier).
 * Totals are announced as --totals or `totals=` say, off by --total-lie; `next` and `has_more` follow
 * the notes, not the announcement (but see realListResponse). A Kinto filter matches no note.
 */
async function listResponse(style, list, listQuery, contentFaults, query, state) {
  const { seed, totalLie } = state.generated;
  const limit = listQuery.limit;
  const start = listStart(style, listQuery, list);
  const end = listQuery.filtered ? start : Math.min(list.length, start + limit);
  const form = style === 'jsonapi' ? 'jsonapi' : style === 'eve' ? 'eve' : 'plain';
  const idKey = form === 'eve' ? '_id' : 'id';
  const items = start >= end
    ? Buffer.from('[]')
    : (await state.cache.get(`notes ${form} ${list.signature} ${start} ${end}`, async () => ({ body: list.render(seed, start, end, form) }))).body;
  let itemParts = [items];
  if (contentFaults.some((fault) => fault.kind !== 'cycle')) {
    const firstId = list.length === 0 ? null : Buffer.from(JSON.stringify(form === 'jsonapi' ? String(list.idAt(0)) : list.idAt(0)));
    itemParts = lib.applyContentFaults(items, contentFaults, firstId, idKey);
  }
  const cycles = contentFaults.some((fault) => fault.kind === 'cycle');
  if (lib.REAL_STYLES.includes(style)) return realListResponse(style, list, listQuery, { start, end, itemParts, cycles }, query, state);
  const headers = { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE };
  if (style === 'keyset') {
    const wrapped = lib.wrapPage(style, itemParts, { hasMore: end < list.length });
    return { status: 200, headers: { ...headers, ...wrapped.headers }, parts: wrapped.parts };
  }
  const total = Math.max(0, list.length + totalLie);
  const { totals } = listQuery;
  const lastPage = Math.max(1, Math.ceil(total / limit));
  if (style === 'drf' || style === 'jsonapi') {
    // Page numbers, with links made as Django REST framework makes them: the request's query with the
    // page number replaced (or, for DRF's page 1, removed), sorted and form-encoded.
    const previous = listQuery.page > 1 ? listQuery.page - 1 : null;
    let next = start + limit < list.length ? listQuery.page + 1 : null;
    if (previous !== null && cycles) next = previous;
    const pairs = [...query];
    const pageName = style === 'drf' ? 'page' : 'page[number]';
    const url = (number) => (number === null ? null : lib.djangoUrl(state.base, pairs, pageName, number));
    const nav = style === 'drf'
      ? { nextUrl: url(next), prevUrl: previous === 1 ? lib.djangoUrl(state.base, pairs, pageName, null) : url(previous), count: totals.count ? total : null }
      : {
        links: { first: url(1), last: totals.link ? url(lastPage) : null, next: url(next), prev: url(previous) },
        page: listQuery.page,
        pages: totals.pages ? lastPage : null,
        count: totals.count ? total : null,
      };
    const wrapped = lib.wrapPage(style, itemParts, nav);
    return { status: 200, headers: { ...headers, ...wrapped.headers }, parts: wrapped.parts };
  }

  // Links name the place, then the limit if the request gave one (as served, so a capped limit shows),
  // then the carried parameters. A walk from a bare /notes thus changes one parameter per page.
  const [placeName, limitName] = style === 'offset' ? ['offset', 'limit'] : ['page', 'per_page'];
  const limitPair = query.has(limitName) ? [[limitName, String(limit)]] : [];
  const carried = carriedParameters(query);
  const url = (at) => lib.notesUrl(state.base, [[placeName, String(at)], ...limitPair, ...carried]);
  let next, previous;
  if (style === 'offset') {
    next = start + limit < list.length ? start + limit : null;
    previous = start > 0 ? Math.max(0, start - limit) : null;
  } else {
    next = start + limit < list.length ? listQuery.page + 1 : null;
    previous = listQuery.page > 1 ? listQuery.page - 1 : null;
  }
  if (previous !== null && cycles) next = previous;
  const wrapped = lib.wrapPage(style, itemParts, {
    nextUrl: next === null ? null : url(next),
    prevUrl: previous === null ? null : url(previous),
    count: totals.count ? total : null,
    totalPages: style === 'page' && totals.pages ? lastPage : null,
    totalHeader: totals.header ? total : null,
    lastUrl: style === 'page' && totals.link ? url(lastPage) : null,
  });
  return { status: 200, headers: { ...headers, ...wrapped.headers }, parts: wrapped.parts };
}

/**
 * A page of a real server's style (lib.REAL_STYLES), the notes [start, end) already made (`itemParts`).
 * Where the real server derives its next page from the count it announces (ogc's next, x-pagination's
 * next_page, eve's next and last), it follows the announced total, --total-lie included, as a server
 * with a wrong count would; where it derives it from the notes (next-page, dynamodb), it follows them.
 * `cycle` points the next page back: at page 2 in next-page and dynamodb style (their next page starts
 * after a note), at the previous page in the others, from any page but the first.
 */
function realListResponse(style, list, listQuery, { start, end, itemParts, cycles }, query, state) {
  const { totalLie, pageSize } = state.generated;
  const { limit, totals } = listQuery;
  const matched = listQuery.filtered ? 0 : list.length;
  const total = Math.max(0, matched + totalLie);
  const served = Math.max(0, end - start);
  const more = end < matched;
  const pairs = [...query];
  // The note that page 2 starts after, for a cycle in the styles whose next page starts after a note.
  const pageTwoAfter = cycles && start > 0 && list.length > limit ? list.idAt(limit - 1) : null;
  let nav;
  switch (style) {
    case 'next-page': {
      if (listQuery.head) {
        // Kinto since 12.0 counts on HEAD only: Total-Objects, and Total-Records for older clients.
        const counts = { 'Total-Objects': String(total), 'Total-Records': String(total) };
        return { status: 200, headers: { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE, ...counts }, parts: [Buffer.from('{"data":[]}')] };
      }
      // Kinto reads one note more than it serves to know whether a next page follows, and its token's
      // offset counts the notes read.
      const token = pageTwoAfter !== null ? lib.kintoToken(pageTwoAfter, limit + 1)
        : more ? lib.kintoToken(list.idAt(end - 1), listQuery.tokenOffset + served + 1) : null;
      nav = { nextUrl: token && lib.kintoNextUrl(state.base, pairs, limit, token), totalHeader: totals.header ? total : null };
      break;
    }
    case 'ogc': {
      const prevOffset = start > 0 ? Math.max(0, start - limit) : null;
      // pygeoapi: next while numberMatched says more remain, or whenever the page is full.
      let nextOffset = (totals.count && total > start + limit) || served === limit ? start + limit : null;
      if (cycles && prevOffset !== null) nextOffset = prevOffset;
      nav = {
        links: lib.ogcLinks(state.base, pairs, { format: listQuery.format, prevOffset, nextOffset }),
        numberMatched: totals.count ? total : null,
        returned: served,
      };
      break;
    }
    case 'x-pagination': {
      const meta = lib.flaskSmorestPagination(listQuery.page, limit, total);
      if (cycles && listQuery.page > 1) meta.next_page = listQuery.page - 1;
      nav = { pagination: totals.header ? lib.pythonJson(meta) : null };
      break;
    }
    case 'page-echo':
      nav = { limit, page: listQuery.page, totalPages: totals.pages ? Math.ceil(total / limit) : null };
      break;
    case 'offset-echo':
      nav = { limit, offset: start, total: totals.count ? total : null };
      break;
    case 'eve': {
      // Without a count, Eve is as with OPTIMIZE_PAGINATION_FOR_SPEED: no total, a next link on every page.
      const count = totals.count ? total : null;
      const { page } = listQuery;
      nav = {
        links: lib.eveLinks(pairs, {
          page, maxResults: limit, defaultMaxResults: pageSize, count, last: totals.link, nextPage: cycles && page > 1 ? page - 1 : null,
        }),
        meta: count === null ? { page, max_results: limit } : { page, max_results: limit, total: count },
        totalHeader: totals.header && count !== null ? count : null,
      };
      break;
    }
    case 'dynamodb': {
      const after = pageTwoAfter ?? (more ? list.idAt(end - 1) : null);
      nav = { count: served, lastEvaluatedKey: after === null ? null : lib.dynamoKey(after) };
      break;
    }
  }
  const wrapped = lib.wrapPage(style, itemParts, nav);
  return { status: 200, headers: { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE, ...wrapped.headers }, parts: wrapped.parts };
}

// MARK: - Changing the notes (--updates)

const ADMIN_PREFIX = '/admin/';
const ADMIN_ACTIONS = { '/admin/touch': 'touch', '/admin/add': 'add' };

/**
 * Answers POST /admin/touch and POST /admin/add of a --updates server (on the main listener only): the
 * notes change at once, for every request after this one, and the answer lists the notes changed as
 * GET /notes now serves them. 404 for another /admin/ path, 405 for another method, 400 for a bad query.
 */
function adminResponse(req, pathname, query, state) {
  req.resume(); // a body, if any, is not read
  const action = ADMIN_ACTIONS[pathname];
  if (action === undefined) return jsonError(404, 'not-found', 'no such path; POST /admin/touch and POST /admin/add change the notes');
  if (req.method !== 'POST') return jsonError(405, 'method-not-allowed', 'only POST', { Allow: 'POST' });
  let changed;
  try {
    const { count, ids } = lib.parseAdminQuery(action, query);
    changed = action === 'touch' ? state.updates.touch(count, ids) : state.updates.add(count);
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
    return jsonError(400, 'bad-request', error.message);
  }
  const { updates } = state;
  const newest = updates.length === 0 ? null : lib.rfc3339(updates.order.at(-1).updatedAt);
  const body = `{"${action === 'touch' ? 'touched' : 'added'}":[${changed.join(',')}],"count":${updates.length},"newest":${JSON.stringify(newest)}}`;
  return { status: 200, headers: { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE }, parts: [Buffer.from(body)] };
}

/** The response of a status, fixture, redirect, bomb or rate-limit fault (graphql-ratelimit too). */
function replacement(fault, req, state) {
  switch (fault.kind) {
    case 'bomb':
      return {
        status: 200,
        headers: { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE, 'Content-Encoding': 'gzip' },
        parts: [],
        stream: () => bomb(fault.bytes),
      };
    case 'ratelimit-github': case 'ratelimit-ietf': case 'ratelimit-retry-after': case 'graphql-ratelimit': {
      const { status, headers, body } = lib.rateLimitResponse(fault, Date.now());
      return jsonBody(status, body, headers);
    }
    case 'status': {
      const headers = {};
      if (fault.retryAfter !== null) headers['Retry-After'] = String(fault.retryAfter);
      if (fault.status === 401) headers['WWW-Authenticate'] = 'Bearer realm="notes"';
      return jsonBody(fault.status, { error: 'injected', status: fault.status }, headers);
    }
    case 'fixture': {
      const type = fault.file.endsWith('.html') ? lib.HTML_TYPE : lib.JSON_TYPE;
      return { status: 200, headers: { ...COMMON_HEADERS, 'Content-Type': type }, parts: [state.fixtures.get(fault.file)] };
    }
    case 'redirect':
      return { status: fault.status, headers: { ...COMMON_HEADERS, Location: `${state.targetBase}${req.url}` }, parts: [] };
  }
}

function jsonBody(status, value, headers = {}) {
  return {
    status,
    headers: { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE, ...headers },
    parts: [Buffer.from(JSON.stringify(value))],
  };
}

function jsonError(status, error, message, headers) {
  return jsonBody(status, { error, message }, headers);
}

/** What the redirect target answers a request that carries an Authorization header, on every path. */
function credentialsForwarded() {
  return jsonError(400, 'credentials-forwarded', 'this origin must not receive the Authorization header of another');
}

/** The answer of a real server's style to a request it refuses (lib.StyleError). */
function styleError(error) {
  return jsonBody(error.status, error.body, error.headers);
}

/** An error of the jsonapi style, as djangorestframework-jsonapi answers: a JSON:API error document. */
function jsonApiError(status, code, detail) {
  return jsonBody(status, lib.jsonApiErrorBody(status, code, detail), { 'Content-Type': lib.JSONAPI_TYPE });
}

// MARK: - GraphQL and the Notion-style query

const GRAPHQL_PATH = '/graphql';
const NOTION_PATH = '/v1/databases/notes/query';
/**
 * graphql-js as Debian's node-graphql installs it, imported by path: its ES module build (index.mjs),
 * since Node's ES module resolution never looks in /usr/share/nodejs and a Node that is not Debian's
 * does not look there for require() either.
 */
const GRAPHQL_MODULE = '/usr/share/nodejs/graphql/index.mjs';
const GRAPHQL_MISSING = `this server has no GraphQL engine: install node-graphql (apt-get install node-graphql), which provides ${GRAPHQL_MODULE}`;
/** The most of a request body that /graphql and the Notion-style query read: more is a 413. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The schema of /graphql. A Note has the members that notes-gen and --count write, each null where a
 * note lacks it; `meta` (an object in notes-gen's notes, of no fixed shape in other directories) is of
 * the scalar JSON, which graphql-js serializes as the value itself; `big` is a double, so notes-gen's
 * extreme numbers lose digits; `naive` is the member "naïve", a name GraphQL cannot spell.
 */
const GRAPHQL_SCHEMA = `
"The notes, in the order GET /notes serves them, paged as GitHub pages its connections."
type Query {
  "The notes, first (default 10, at most 100) at a time, after the note of the cursor after."
  notes(first: Int, after: String): NoteConnection!
  "Who is asking, with the same notes one level deeper."
  viewer: Viewer!
  "The note with this id, or null."
  node(id: ID!): Note
}

type Mutation {
  "Does nothing and returns false: this server only serves notes."
  deleteNote(id: ID!): Boolean
}

type Viewer {
  login: String!
  notes(first: Int, after: String): NoteConnection!
}

type NoteConnection {
  edges: [NoteEdge!]!
  nodes: [Note!]!
  pageInfo: PageInfo!
  totalCount: Int!
}

type NoteEdge {
  cursor: String!
  node: Note!
}

type PageInfo {
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
  endCursor: String
}

"Any JSON value, served as it is in the note."
scalar JSON

type Note {
  id: ID!
  title: String!
  created: String
  updated: String
  excerpt: String
  tags: [String!]
  rank: Int
  score: Float
  pinned: Boolean
  archived: Boolean
  meta: JSON
  big: Float
  "The member naïve."
  naive: Boolean
}
`;

/** The root value: graphql-js's default resolver calls these with (args, context), viewer's notes too. */
const GRAPHQL_ROOT = {
  notes: (args, context) => context.connection(args),
  viewer: () => ({ login: 'notes', notes: (args, context) => context.connection(args) }),
  node: ({ id }, context) => context.node(id),
  deleteNote: () => false,
};

let graphqlEngine = null;

/**
 * graphql-js and the schema built with it, loaded once, at the first request to /graphql, so that the
 * other endpoints start as fast as ever and work without node-graphql; null when it is not installed.
 * Without `titles` (--no-titles) a Note has no title field.
 */
function loadGraphQL(titles = true) {
  const sdl = titles ? GRAPHQL_SCHEMA : GRAPHQL_SCHEMA.replace('\n  title: String!\n', '\n');
  graphqlEngine ??= import(pathToFileURL(GRAPHQL_MODULE).href).then(
    (graphql) => ({ graphql, schema: graphql.buildSchema(sdl) }),
    (error) => {
      if (error.code === 'ERR_MODULE_NOT_FOUND') return null;
      throw error;
    },
  );
  return graphqlEngine;
}

/**
 * Answers POST /graphql. Request errors come first and take no fault: 405 for another method, 400 for a
 * bad fault or compress= in the query, 415 for a body that is not application/json, 413 for one over
 * MAX_BODY_BYTES, 400 for one that is no GraphQL request, and 200 with graphql-js's errors for a query
 * that does not parse or validate. Then graphql-js executes it; the first connection resolved plans the
 * request's faults for its page (see graphqlContext), a request without one as page 1, and the plan acts
 * on the result as on any page.
 */
async function graphqlResponse(req, query, state, isTarget, record, signal) {
  if (req.method !== 'POST') return graphqlError(405, 'a GraphQL request is a POST with a JSON body', { Allow: 'POST' });
  let active;
  try {
    active = endpointFaults('graphql', query, req, state, isTarget);
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
    return graphqlError(400, error.message);
  }
  if (mediaType(req.headers['content-type']) !== 'application/json') {
    return graphqlError(415, 'a GraphQL request has Content-Type: application/json');
  }
  const engine = await loadGraphQL(state.generated?.titles ?? true);
  if (engine === null) return graphqlError(501, GRAPHQL_MISSING);
  const body = await readBody(req);
  if (body === null) return graphqlError(413, `the body is over ${MAX_BODY_BYTES} bytes`);
  let request;
  try {
    request = lib.parseGraphQLRequest(body.toString('utf8'));
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
    return graphqlError(400, error.message);
  }

  const { graphql, schema } = engine;
  const variables = lib.logValue(request.variables ?? {}, secretsOf(state));
  let document;
  try {
    document = graphql.parse(request.query);
  } catch (error) {
    if (!(error instanceof graphql.GraphQLError)) throw error;
    record.detail = `graphql=- vars=${variables}`;
    return jsonBody(200, { errors: [error] });
  }
  const operation = graphql.getOperationAST(document, request.operationName);
  const named = operation?.name ? `:${operation.name.value}` : '';
  record.detail = `graphql=${operation ? `${operation.operation}${named}` : '-'} vars=${variables}`;
  const problems = graphql.validate(schema, document);
  if (problems.length) return jsonBody(200, { errors: problems });
  if (isTarget && req.headers.authorization !== undefined) return credentialsForwarded();

  let plan = null;
  const planPage = (page) => (plan ??= planRequest(active, page, req, state, record));
  const result = await graphql.execute({
    schema,
    document,
    rootValue: GRAPHQL_ROOT,
    contextValue: graphqlContext(state, planPage),
    variableValues: request.variables,
    operationName: request.operationName,
  });
  planPage(1);
  // data first, as GitHub writes it; no data at all when the request failed before execution.
  const answer = 'data' in result ? { data: result.data } : {};
  if (result.errors) answer.errors = result.errors;
  return applyPlan(plan, req, state, signal, record, () => jsonBody(200, answer));
}

/**
 * What the resolvers of one /graphql request reach. `connection` serves Query.notes and Viewer.notes:
 * the first one resolved plans the request's faults for its page (`planPage`); graphql-error makes it
 * throw, graphql-cycle and graphql-endless change its pageInfo (lib.connectionPage), duplicate-id and
 * huge-title its notes. --max-limit cuts `first`; --total-lie shifts totalCount. `node` finds a note by id.
 */
function graphqlContext(state, planPage) {
  const notes = noteAccess(state);
  return {
    async connection(args) {
      const length = await notes.length();
      const slice = lib.connectionSlice(args, length, { maxLimit: state.generated?.maxLimit });
      const { content } = planPage(slice.page);
      const acting = new Set(content.map((fault) => fault.kind));
      if (acting.has('graphql-error')) throw new Error(lib.GRAPHQL_ERROR_MESSAGE);
      const nodes = await graphqlNotes(notes, slice.start, slice.end, content);
      const { cursors, pageInfo } = lib.connectionPage(slice, length, { cycle: acting.has('graphql-cycle'), endless: acting.has('graphql-endless') });
      return {
        edges: nodes.map((node, i) => ({ cursor: cursors[i], node })),
        nodes,
        pageInfo,
        totalCount: Math.max(0, length + (state.generated?.totalLie ?? 0)),
      };
    },
    async node(id) {
      const position = await notes.positionOf(id);
      return position === -1 ? null : (await graphqlNotes(notes, position, position + 1, []))[0];
    },
  };
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The notes at positions [start, end) as /graphql serves them: parsed, "naïve" also as `naive`, with
 * the content faults that act there as they act on the other endpoints: duplicate-id (the last note
 * takes the id of the first note of all) and huge-title (the first title becomes BYTES long).
 */
async function graphqlNotes(notes, start, end, contentFaults) {
  const list = JSON.parse(await notes.array(start, end)).map((note) => (isObject(note) ? { ...note, naive: note['naïve'] } : note));
  for (const fault of contentFaults) {
    const [first, last] = [list[0], list.at(-1)];
    if (fault.kind === 'duplicate-id' && isObject(last) && 'id' in last) {
      const [origin] = JSON.parse(await notes.array(0, 1));
      if (isObject(origin) && 'id' in origin) last.id = origin.id;
    } else if (fault.kind === 'huge-title' && isObject(first) && 'title' in first) {
      first.title = 'huge title '.repeat(Math.ceil(fault.bytes / 11)).slice(0, fault.bytes);
    }
  }
  return list;
}

/**
 * Answers POST /v1/databases/notes/query as Notion answers a database query: request errors first
 * (405, 400 for a bad fault or compress=, 413, then Notion's invalid_json and validation_error), then
 * the faults of the page the body asks for, which act as on any page; `cycle` points next_cursor at
 * page 2, duplicate-id, huge-title and deep alter the notes as in the other styles.
 */
async function notionResponse(req, query, state, isTarget, record, signal) {
  if (req.method !== 'POST') return notionError(405, 'invalid_request', 'a database query is a POST with a JSON body', { Allow: 'POST' });
  let active;
  try {
    active = endpointFaults('notion', query, req, state, isTarget);
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
    return notionError(400, 'validation_error', error.message);
  }
  const body = await readBody(req);
  if (body === null) return notionError(413, 'validation_error', `the body is over ${MAX_BODY_BYTES} bytes`);
  const notes = noteAccess(state);
  const length = await notes.length();
  let slice;
  try {
    const request = lib.parseNotionQuery(body.toString('utf8'));
    record.detail = `body=${lib.logValue(request.body, secretsOf(state))}`;
    slice = lib.notionSlice(request, length, { maxLimit: state.generated?.maxLimit });
  } catch (error) {
    if (!(error instanceof lib.NotionError)) throw error;
    if (error.body !== undefined) record.detail ||= `body=${lib.logValue(error.body, secretsOf(state))}`;
    return notionError(error.status, error.code, error.message);
  }
  if (isTarget && req.headers.authorization !== undefined) return credentialsForwarded();

  const planned = planRequest(active, slice.page, req, state, record);
  return applyPlan(planned, req, state, signal, record, async () => {
    const items = await notes.array(slice.start, slice.end);
    const itemParts = planned.content.some((fault) => fault.kind !== 'cycle')
      ? lib.applyContentFaults(items, planned.content, lib.firstNoteId(await notes.array(0, 1)))
      : [items];
    const nextCursor = lib.notionNextCursor(slice, length, planned.content.some((fault) => fault.kind === 'cycle'));
    const wrapped = lib.wrapPage('notion', itemParts, { nextCursor, hasMore: nextCursor !== null });
    return { status: 200, headers: { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE, ...wrapped.headers }, parts: wrapped.parts };
  });
}

/**
 * The faults of a request to /graphql or the Notion-style query (`endpoint` 'graphql', 'notion'): its
 * own (?fault=, X-Notes-Fault) and --fault's, less those that do not act there (lib.faultActsOn); none
 * on the redirect target. Checks the request's compress= as well; throws UsageError.
 */
function endpointFaults(endpoint, query, req, state, isTarget) {
  requestedEncodings(query, state);
  if (isTarget) return [];
  const faults = requestFaults(query, req);
  for (const fault of faults) {
    const problem = lib.faultProblem(fault, { fixtures: state.fixtures, hasToken: state.token !== null });
    if (problem) throw new lib.UsageError(problem);
  }
  return [...faults, ...state.faults].filter((fault) => lib.faultActsOn(fault, endpoint));
}

/**
 * Random access to the notes in the order the cursor styles serve them, for /graphql and the Notion
 * query: `length()`, `array(start, end)` (a JSON array of the notes at positions [start, end), each
 * note's bytes as GET /notes serves them) and `positionOf(id)` (-1 for no such note). Made once.
 */
function noteAccess(state) {
  state.noteAccess ??= state.updates ? updatingNotes(state.updates) : state.generated ? generatedNotes(state.generated) : directoryNotes(state);
  return state.noteAccess;
}

/** The notes of --updates, as they are at each call (all of them: since filters GET /notes only). */
function updatingNotes(updates) {
  return {
    length: async () => updates.length,
    array: async (start, end) => updates.array(start, Math.min(end, updates.length)),
    positionOf: async (id) => updates.positionOf(id),
  };
}

function generatedNotes({ count, seed, idKind, titles }) {
  const list = new lib.NoteList(count, [], idKind, seed, titles);
  return {
    length: async () => count,
    array: async (start, end) => list.render(seed, start, end),
    positionOf: async (id) => list.positionOf(id),
  };
}

/**
 * The notes of a notes-gen directory by position: where each page starts comes from the manifest's
 * `notes` counts (a page without one is read and counted), and a page's notes are found in its bytes
 * with lib.scanNotes when first asked for (kept with the cached page), checked against its count. Ids
 * (for Query.node) are indexed at the first lookup, by reading every page.
 */
function directoryNotes(state) {
  const scanned = async (index) => {
    const page = await state.cache.get(index, state.load);
    if (!page.notes) {
      const { file, notes: expected } = state.pages[index];
      const found = lib.scanNotes(page.body.subarray(...page.items));
      if (expected !== null && found.length !== expected) throw new Error(`${file} has ${found.length} notes, but its manifest entry says ${expected}`);
      page.notes = found.map(({ start, end }) => [page.items[0] + start, page.items[0] + end]);
    }
    return page;
  };
  let starts = null; // the position of each page's first note, and last the number of notes
  const pageStarts = () => (starts ??= (async () => {
    const at = [0];
    for (const [i, entry] of state.pages.entries()) at.push(at[i] + (entry.notes ?? (await scanned(i)).notes.length));
    return at;
  })());
  let ids = null; // id as Query.node takes it (a string) -> position
  const array = async (start, end) => {
    const at = await pageStarts();
    let index = 0; // the last page that starts at or before `start`
    for (let lo = 0, hi = state.pages.length - 1; lo <= hi;) {
      const mid = (lo + hi) >> 1;
      if (at[mid] <= start) [index, lo] = [mid, mid + 1];
      else hi = mid - 1;
    }
    const parts = [];
    for (; index < state.pages.length && at[index] < end; index++) {
      if (at[index + 1] <= start) continue;
      const page = await scanned(index);
      for (let p = Math.max(start, at[index]); p < Math.min(end, at[index + 1]); p++) {
        parts.push(parts.length ? COMMA : OPEN, page.body.subarray(...page.notes[p - at[index]]));
      }
    }
    return Buffer.concat(parts.length ? [...parts, CLOSE] : [OPEN, CLOSE]);
  };
  return {
    length: async () => (await pageStarts()).at(-1),
    array,
    async positionOf(id) {
      ids ??= (async () => {
        const at = await pageStarts();
        const byId = new Map();
        for (let index = 0; index < state.pages.length; index++) {
          JSON.parse(await array(at[index], at[index + 1])).forEach((note, k) => {
            const key = typeof note?.id === 'string' || typeof note?.id === 'number' ? String(note.id) : null;
            if (key !== null && !byId.has(key)) byId.set(key, at[index] + k);
          });
        }
        return byId;
      })();
      return (await ids).get(id) ?? -1;
    },
  };
}

const [OPEN, COMMA, CLOSE] = ['[', ',', ']'].map((text) => Buffer.from(text));

/**
 * A request's body, or null once it is over MAX_BODY_BYTES (the rest is drained, unread). A client
 * that leaves before the end rejects it with an AbortError, which ends the request quietly.
 */
function readBody(req) {
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
function mediaType(contentType) {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function secretsOf(state) {
  return state.token === null ? [] : [state.token];
}

/** An error of /graphql outside execution, as GraphQL servers write them: `{"errors":[{"message":…}]}`. */
function graphqlError(status, message, headers) {
  return jsonBody(status, { errors: [{ message }] }, headers);
}

/** An error of the Notion-style query, as Notion writes them. */
function notionError(status, code, message, headers) {
  return jsonBody(status, lib.notionErrorBody(status, code, message), headers);
}

// MARK: - Compression

/**
 * Compresses a response's body with the coding of `offered` that `acceptEncoding` allows, if any,
 * setting Content-Encoding; a body that might have been compressed gets `Vary: Accept-Encoding` either
 * way. Empty bodies and the bomb (already gzip) are left alone. Delivery faults then act on the
 * compressed bytes.
 */
async function encode(response, acceptEncoding, offered) {
  if (response.stream || offered.length === 0 || lib.partsLength(response.parts) === 0) return;
  response.headers.Vary = 'Accept-Encoding';
  const encoding = lib.chooseEncoding(acceptEncoding, offered);
  if (encoding === null) return;
  response.parts = [await compress(response.parts, encoding)];
  response.headers['Content-Encoding'] = encoding;
}

async function compress(parts, encoding) {
  if (parts.every(Buffer.isBuffer)) return COMPRESS[encoding](Buffer.concat(parts), encoding === 'br' ? BROTLI_OPTIONS : {});
  // A streamed part (huge-title, deep) is compressed as it is made.
  const compressed = [];
  await pipeline(Readable.from(lib.chunks(parts, CHUNK_BYTES)), COMPRESS_STREAM[encoding](), async (source) => {
    for await (const chunk of source) compressed.push(chunk);
  });
  return Buffer.concat(compressed);
}

/**
 * The gzip stream of a `bomb`: lib.bombChunks through zlib as the client reads it, with the run-length
 * strategy (matches at distance 1 only), which gets the long runs of the titles close to deflate's best
 * ratio (about 1000:1) several times faster than the default strategy.
 */
function bomb(bytes) {
  const source = Readable.from(lib.bombChunks(bytes), { objectMode: false });
  return [source, zlib.createGzip({ level: 9, strategy: zlib.constants.Z_RLE })];
}

// MARK: - Delivery

/**
 * Sends a response with its full Content-Length. Without delivery faults the body goes out in one
 * write; otherwise in chunks, each written before the next (`drip`: `bytes` every `ms` ms);
 * `truncate` stops short of the end (half the body, or its `bytes`, never all of it) and closes, and
 * `stall` stops after its `bytes` (never all of the body) and sends nothing more, holding the
 * connection until the client closes it or the server stops. A `stream` body (the bomb) goes out
 * chunked, as it is made.
 */
async function send(res, { status, headers, parts, stream = null, truncate = null, stall = null, drip = null }, record, signal) {
  if (stream) return sendStream(res, status, headers, stream(), record, signal);
  const total = lib.partsLength(parts);
  res.writeHead(status, { ...headers, 'Content-Length': total });
  if (!truncate && !stall && !drip && parts.every(Buffer.isBuffer)) {
    res.end(parts.length === 1 ? parts[0] : Buffer.concat(parts));
    record.bytes = res.req?.method === 'HEAD' ? 0 : total; // Node sends no body after a HEAD
    return;
  }
  const most = Math.max(total - 1, 0);
  const limit = truncate ? Math.min(truncate.bytes ?? Math.floor(total / 2), most) : stall ? Math.min(stall.bytes, most) : total;
  if (limit === 0) await write(res, Buffer.alloc(0), signal); // flushes the headers
  for (const chunk of lib.chunks(parts, drip ? drip.bytes : CHUNK_BYTES)) {
    if (record.bytes === limit) break;
    if (drip && record.bytes > 0) await sleep(drip.ms, undefined, { signal });
    const piece = chunk.subarray(0, limit - record.bytes);
    await write(res, piece, signal);
    record.bytes += piece.length;
  }
  if (stall) await aborted(signal); // rejects: the caller destroys the response
  if (truncate) res.destroy();
  else res.end();
}

/** Sends the output of a stream pipeline without a Content-Length (chunked), as fast as the client reads it. */
async function sendStream(res, status, headers, streams, record, signal) {
  res.writeHead(status, headers);
  await pipeline(...streams, async (source) => {
    for await (const chunk of source) {
      await write(res, chunk, signal);
      record.bytes += chunk.length;
    }
  }, { signal });
  res.end();
}

// The signals that stalled responses wait on. Nothing else may hold such a signal (one of
// AbortSignal.any, which its sources hold only weakly), and a signal collected never fires.
const stalled = new Set();

/** A promise that rejects with the signal's reason once it is aborted, and never settles otherwise. */
function aborted(signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      stalled.delete(signal);
      reject(signal.reason);
    };
    if (signal.aborted) return onAbort();
    stalled.add(signal);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Writes a chunk and waits until the socket has taken it, or the request is aborted. */
function write(res, chunk, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    res.write(chunk, (error) => {
      signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    });
  });
}

main().catch((error) => {
  if (!(error instanceof Fatal)) throw error;
  process.stderr.write(`Error: ${error.message}\n`);
  process.exit(error.status);
});
