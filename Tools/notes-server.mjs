#!/usr/bin/env node
// notes-server: serves paginated notes over HTTP for client tests, from a notes-gen directory or
// generated in memory, in the common pagination styles (cursor, offset, page number, keyset, cursor
// header), with faults injected by flag or per request. See Tools/README.md, or run with --help.
// Built-in modules only.

import http from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import * as lib from './notes-server-lib.mjs';

const USAGE = `Usage: node Tools/notes-server.mjs (--dir DIR | --count N [--page-size P] [--seed S]) [options]

Serves notes pages at http://HOST:PORT/notes (first page) and /notes?cursor=C (the next ones), and
prints that URL as its first line on stdout. SIGTERM or SIGINT stops it (exit 0).

Pages:
  --dir DIR          serve a notes-gen directory (DIR/manifest.json and its pages)
  --count N          serve N generated notes instead; 0 serves one empty page
  --page-size P      notes per generated page, and the default limit (default 100)
  --seed S           seed of generated titles and cursors, 0-4294967295 (default 42)
  --max-limit L      the largest limit or per_page served; more is served as L (default 1000, or P)
  --totals LIST      what offset and page styles announce of the total: some of count, header,
                     link, pages (comma-separated; default all), or none
  --total-lie D      announce N+D notes instead of N (default 0); the notes served are the same

Server:
  --host HOST        address to listen on (default 127.0.0.1)
  --port PORT        port to listen on; 0 picks a free one (default 0)
  --style STYLE      contract, drf, link, header (cursor pages), or offset, page, keyset (--count
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
  drip[:BYTES/MS]          the body BYTES at a time every MS ms (default 8/5; drip:64, drip:/20)
  delay[:MS]               wait MS ms before answering (default 1000)
  duplicate-id             the page's last note takes the id of page 1's first note
  cycle                    the page's next cursor is page 2's cursor (offset, page: next is the
                           previous page; keyset refuses it)
  huge-title[:BYTES]       the first note's title is BYTES long (default 2 MiB), streamed
  deep[:DEPTH]             the first note gains DEPTH nested arrays (default 100000)
  redirect[:STATUS]        302 (or 301, 303, 307, 308) to the same path and query on a second port
  auth                     401 unless the request has Authorization: Bearer <token>
  shift:N                  from this page on, N new notes new0... sit before n0 (offset, page, keyset)

Styles (the first four take ?cursor=C):
  contract  {"notes":[...],"next_cursor":C}
  drf       {"next":URL,"previous":URL,"results":[...]}
  link      [...] with Link: <URL>; rel="next"
  header    {"notes":[...]} with X-Next-Cursor: C
  offset    ?offset=K&limit=L: {"count":N,"next":URL,"previous":URL,"results":[...]}, X-Total-Count: N
  page      ?page=P&per_page=L: {"count":N,"total_pages":T,"next":URL,"previous":URL,"results":[...]},
            Link: <URL>; rel="next", <URL>; rel="last", X-Total-Count: N
  keyset    ?starting_after=ID&limit=L: {"object":"list","data":[...],"has_more":B,"url":"/notes"}
  @PAGE is the page in the style's terms: offset floor(K/L)+1, page P, keyset the first note's page.

Per request: ?style=drf or X-Notes-Style: link; ?fault=503@2x1 or X-Notes-Fault: delay:50, 500@3; ?totals=none

Exit status: 0 after SIGTERM/SIGINT, 64 bad arguments, 65 bad manifest, 66 unreadable input, 1 other.`;

const EXIT_USAGE = 64;
const EXIT_DATA = 65;
const EXIT_NO_INPUT = 66;

const DEFAULT_FIXTURES = fileURLToPath(new URL('../Fixtures/contract/', import.meta.url));
const CHUNK_BYTES = 64 * 1024;
const SHUTDOWN_GRACE_MS = 1000;
const COMMON_HEADERS = { 'Cache-Control': 'no-store' };

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
  const source = options.dir !== null ? await openDirectory(options.dir) : generatedSource(options);
  const fixtures = await loadFixtures(options.fixtures);
  for (const fault of options.faults) {
    const styleProblem = lib.styleProblem(fault, options.style);
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
    base: null, // http://host:port of the main listener
    targetBase: null, // ... and of the redirect target
  };
  const mainServer = http.createServer((req, res) => handle(req, res, state, false));
  const targetServer = http.createServer((req, res) => handle(req, res, state, true));
  servers.push(mainServer, targetServer);
  state.base = await listen(mainServer, options.host, options.port);
  state.targetBase = await listen(targetServer, options.host, 0);

  process.stdout.write(`${state.base}/notes\n`);
  log(state, `notes-server: ${source.description}, ${source.pages.length} pages, style ${options.style}; `
    + `redirect target ${state.targetBase}`);
}

/**
 * Stops on SIGTERM or SIGINT: ends delays and drips in flight, stops listening, closes idle
 * keep-alive connections (and, after a grace period, any others) and exits 0 once all are closed.
 */
function stop(servers, shutdown) {
  if (shutdown.signal.aborted) return;
  shutdown.abort();
  if (servers.length === 0) process.exit(0);
  let open = servers.length;
  for (const server of servers) {
    server.close(() => { if (--open === 0) process.exit(0); });
    server.closeIdleConnections();
  }
  setTimeout(() => servers.forEach((server) => server.closeAllConnections()), SHUTDOWN_GRACE_MS).unref();
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

function generatedSource({ count, pageSize, seed, maxLimit, totals, totalLie }) {
  const pages = lib.generatedPages(count, pageSize, seed);
  return {
    description: `${count} generated notes (page size ${pageSize}, seed ${seed})`,
    // What the list styles (offset, page, keyset) need; a directory has none of it.
    generated: { count, pageSize, seed, maxLimit, totals, totalLie },
    pages,
    byCursor: lib.indexPages(pages),
    load: async (index) => lib.renderGeneratedPage(count, pageSize, seed, index),
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

function listen(server, host, port) {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => reject(new Fatal(1, `cannot listen on ${host}:${port}: ${error.message}`)));
    server.listen(port, host, () => {
      const { address, port: bound } = server.address();
      resolve(`http://${address.includes(':') ? `[${address}]` : address}:${bound}`);
    });
  });
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
  const record = { bytes: 0, faults: [] };
  const gone = new AbortController(); // the client left before the response was complete
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const secrets = state.token === null ? [] : [state.token];
    const faults = record.faults.length ? ` fault=${record.faults.join(',')}` : '';
    log(state, `${isTarget ? '[redirect target] ' : ''}${req.method} ${lib.redactTarget(req.url, secrets)} `
      + `${res.headersSent ? res.statusCode : '-'} ${record.bytes}B ${ms.toFixed(1)}ms${faults}`);
  });
  const signal = AbortSignal.any([state.shutdown.signal, gone.signal]);
  try {
    const response = await respond(req, state, isTarget, record, signal);
    if (response) await send(res, response, record, signal);
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
  if (pathname !== '/notes') return jsonError(404, 'not-found', 'no such path; pages are at /notes');
  if (req.method !== 'GET') return jsonError(405, 'method-not-allowed', 'only GET', { Allow: 'GET' });

  let style, faults, listQuery;
  try {
    style = lib.parseStyle(query.get('style') ?? req.headers['x-notes-style'] ?? state.style);
    faults = isTarget ? [] : requestFaults(query, req);
    if (lib.LIST_STYLES.includes(style)) {
      if (!state.generated) throw new lib.UsageError(lib.listStyleNeedsCount(style));
      listQuery = lib.parseListQuery(style, query, state.generated);
    }
  } catch (error) {
    if (!(error instanceof lib.UsageError)) throw error;
    return jsonError(400, 'bad-request', error.message);
  }
  for (const fault of faults) {
    const problem = lib.faultProblem(fault, { fixtures: state.fixtures, hasToken: state.token !== null });
    if (problem) return jsonError(400, 'bad-request', problem);
  }
  const active = isTarget ? [] : [...faults, ...state.faults];
  for (const fault of active) {
    const problem = lib.styleProblem(fault, style);
    if (problem) return jsonError(400, 'bad-request', problem);
  }

  // Where the request is: a cursor page (`index`, 0-based) or a place in the list (`list`), and the
  // 1-based page number that faults' @PAGE name.
  let index = null;
  let list = null;
  let page;
  if (listQuery) {
    list = listView(state, isTarget ? targetShifts(query, req, state) : active);
    const start = listStart(style, listQuery, list);
    if (start === null) return jsonError(400, 'unknown-cursor', 'no note has this id');
    page = style === 'page' ? listQuery.page : Math.floor(start / listQuery.limit) + 1;
  } else {
    const cursors = query.getAll('cursor');
    if (cursors.length > 1) return jsonError(400, 'bad-request', 'more than one cursor');
    index = cursors.length === 0 ? 0 : state.byCursor.get(cursors[0]);
    if (index === undefined) return jsonError(400, 'unknown-cursor', 'no page has this cursor');
    page = index + 1;
  }
  if (isTarget && req.headers.authorization !== undefined) {
    return jsonError(400, 'credentials-forwarded', 'this origin must not receive the Authorization header of another');
  }

  const plan = lib.planFaults(active, page, bearerMatches(req.headers.authorization, state.token), state.used);
  for (const fault of plan.fired) state.used.set(fault.key, (state.used.get(fault.key) ?? 0) + 1);
  record.faults = plan.fired.map((fault) => fault.spec);
  if (plan.shift.length) {
    // The new notes are there from this request on; the list this request sees has them.
    state.shifted.push(...plan.shift.map((fault) => ({ key: fault.key, notes: fault.notes })));
    list = listView(state, active);
  }

  if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal });
  if (plan.reset) {
    req.socket.resetAndDestroy();
    return null;
  }
  if (plan.unauthorized) {
    return jsonError(401, 'unauthorized', 'a bearer token is required', { 'WWW-Authenticate': 'Bearer realm="notes"' });
  }
  let response;
  if (plan.replace) response = replacement(plan.replace, req, state);
  else if (list) response = await listResponse(style, list, listQuery, plan.content, query, state);
  else response = await pageResponse(index, style, plan.content, query, state);
  if (plan.contentType) response.headers['Content-Type'] = plan.contentType.contentType;
  response.truncate = plan.truncate;
  response.drip = plan.drip;
  return response;
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
  return new lib.NoteList(state.generated.count, batches);
}

/** The position of the first note a list request asks for, or null for a keyset id that no note has. */
function listStart(style, listQuery, list) {
  switch (style) {
    case 'offset': return listQuery.offset;
    case 'page': return (listQuery.page - 1) * listQuery.limit;
    case 'keyset': {
      if (listQuery.startingAfter === null) return 0;
      const position = list.positionOf(listQuery.startingAfter);
      return position === -1 ? null : position + 1;
    }
  }
}

function bearerMatches(authorization, token) {
  const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  if (token === null || presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Page `index` (0-based) in `style`, with the content faults applied. */
async function pageResponse(index, style, contentFaults, query, state) {
  const page = await state.cache.get(index, state.load);
  const cycles = index > 0 && contentFaults.some((fault) => fault.kind === 'cycle');
  const nextCursor = cycles ? state.pages[1].cursor : state.pages[index].nextCursor;
  const alters = contentFaults.some((fault) => fault.kind !== 'cycle');
  const headers = { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE };

  // The common case: the page bytes exactly as stored.
  if (style === 'contract' && !cycles && !alters) return { status: 200, headers, parts: [page.body] };

  const items = page.body.subarray(...page.items);
  let itemParts = [items];
  if (alters) {
    const first = index === 0 ? page : await state.cache.get(0, state.load);
    itemParts = lib.applyContentFaults(items, contentFaults, lib.firstNoteId(first.body.subarray(...first.items)));
  }
  const url = (cursor) => lib.pageUrl(state.base, cursor, carriedParameters(query));
  const wrapped = lib.wrapPage(style, itemParts, {
    nextCursor,
    nextUrl: nextCursor === null ? null : url(nextCursor),
    prevUrl: index === 0 ? null : url(state.pages[index - 1].cursor),
  });
  return { status: 200, headers: { ...headers, ...wrapped.headers }, parts: wrapped.parts };
}

/**
 * Absolute URLs keep the style, totals and faults a client chose in the query, so following them goes
 * on with the same scenario.
 */
function carriedParameters(query) {
  return ['style', 'totals', 'fault'].flatMap((name) => query.getAll(name).map((value) => [name, value]));
}

/**
 * A page of the list styles (offset, page, keyset): the notes from the requested place, up to the
 * limit, with the content faults applied; `cycle` points `next` at the previous page (keyset refuses it
 * earlier). Totals are announced as --totals or `totals=` say, off by --total-lie; `next` and
 * `has_more` follow the notes, not the announcement.
 */
async function listResponse(style, list, listQuery, contentFaults, query, state) {
  const { seed, totalLie } = state.generated;
  const limit = listQuery.limit;
  const start = listStart(style, listQuery, list);
  const end = Math.min(list.length, start + limit);
  const items = start >= end
    ? Buffer.from('[]')
    : (await state.cache.get(`notes ${list.signature} ${start} ${end}`, async () => ({ body: list.render(seed, start, end) }))).body;
  let itemParts = [items];
  if (contentFaults.some((fault) => fault.kind !== 'cycle')) {
    const firstId = list.length === 0 ? null : Buffer.from(JSON.stringify(list.idAt(0)));
    itemParts = lib.applyContentFaults(items, contentFaults, firstId);
  }
  const headers = { ...COMMON_HEADERS, 'Content-Type': lib.JSON_TYPE };
  if (style === 'keyset') {
    const wrapped = lib.wrapPage(style, itemParts, { hasMore: end < list.length });
    return { status: 200, headers: { ...headers, ...wrapped.headers }, parts: wrapped.parts };
  }

  // Links name the place, then the limit if the request gave one (as served, so a capped limit shows),
  // then the carried parameters. A walk from a bare /notes thus changes one parameter per page.
  const [placeName, limitName] = style === 'offset' ? ['offset', 'limit'] : ['page', 'per_page'];
  const limitPair = query.has(limitName) ? [[limitName, String(limit)]] : [];
  const carried = carriedParameters(query);
  const url = (at) => lib.notesUrl(state.base, [[placeName, String(at)], ...limitPair, ...carried]);
  const total = Math.max(0, list.length + totalLie);
  const { totals } = listQuery;
  let next, previous;
  if (style === 'offset') {
    next = start + limit < list.length ? start + limit : null;
    previous = start > 0 ? Math.max(0, start - limit) : null;
  } else {
    next = start + limit < list.length ? listQuery.page + 1 : null;
    previous = listQuery.page > 1 ? listQuery.page - 1 : null;
  }
  if (previous !== null && contentFaults.some((fault) => fault.kind === 'cycle')) next = previous;
  const lastPage = Math.max(1, Math.ceil(total / limit));
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

/** The response of a status, fixture or redirect fault. */
function replacement(fault, req, state) {
  switch (fault.kind) {
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

// MARK: - Delivery

/**
 * Sends a response with its full Content-Length. Without delivery faults the body goes out in one
 * write; otherwise in chunks, each written before the next (`drip`: `bytes` every `ms` ms), and
 * `truncate` stops short of the end (half the body, or its `bytes`, never all of it) and closes.
 */
async function send(res, { status, headers, parts, truncate = null, drip = null }, record, signal) {
  const total = lib.partsLength(parts);
  res.writeHead(status, { ...headers, 'Content-Length': total });
  if (!truncate && !drip && parts.every(Buffer.isBuffer)) {
    res.end(parts.length === 1 ? parts[0] : Buffer.concat(parts));
    record.bytes = total;
    return;
  }
  const limit = truncate ? Math.min(truncate.bytes ?? Math.floor(total / 2), Math.max(total - 1, 0)) : total;
  if (limit === 0) await write(res, Buffer.alloc(0), signal); // flushes the headers
  for (const chunk of lib.chunks(parts, drip ? drip.bytes : CHUNK_BYTES)) {
    if (record.bytes === limit) break;
    if (drip && record.bytes > 0) await sleep(drip.ms, undefined, { signal });
    const piece = chunk.subarray(0, limit - record.bytes);
    await write(res, piece, signal);
    record.bytes += piece.length;
  }
  if (truncate) res.destroy();
  else res.end();
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
