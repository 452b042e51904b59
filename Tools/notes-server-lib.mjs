// The pure parts of notes-server: argument parsing, the fault grammar and planner, cursor derivation
// and generated pages with string or integer ids, the notes-gen manifest, envelope wrapping, Django REST
// framework's links and djangorestframework-jsonapi's checks, the parameters, tokens, links, headers
// and errors of the styles of real servers (Kinto, pygeoapi, flask-smorest, Litestar, Eve, DynamoDB),
// the paging of the GraphQL connections and of the Notion-style query (requests, cursors, limits),
// content-coding negotiation, the bomb's body, rate limit headers, the note scanner behind the content
// faults, a page cache and log redaction.
// Nothing here touches the network, the file system or the clock (callers pass the time in), so all of
// it is unit-tested in notes-server-lib.test.mjs.

import { createHash } from 'node:crypto';
import path from 'node:path';

/** A bad command line or per-request parameter; the message is shown to the user as is. */
export class UsageError extends Error {}

/** A notes-gen directory whose manifest or pages break Fixtures/README.md. */
export class ManifestError extends Error {}

/**
 * The styles that imitate one real server each (see wrapPage): Kinto's Next-Page header, OGC API
 * Features as pygeoapi serves it, flask-smorest's X-Pagination header, Litestar's ClassicPagination and
 * OffsetPagination, Python Eve, and DynamoDB's Scan as moto serves it.
 */
export const REAL_STYLES = ['next-page', 'ogc', 'x-pagination', 'page-echo', 'offset-echo', 'eve', 'dynamodb'];
export const STYLES = ['contract', 'drf', 'link', 'header', 'offset', 'page', 'keyset', 'jsonapi', ...REAL_STYLES];
/**
 * The styles that page through the list of generated notes by position rather than by cursor. With
 * `--id-kind int`, `drf` does too (see isListStyle).
 */
export const LIST_STYLES = ['offset', 'page', 'keyset', 'jsonapi', ...REAL_STYLES];

/** The kinds of note id of generated notes: `n<i>` strings, or integers with gaps. */
export const ID_KINDS = ['string', 'int'];

/** What the offset and page styles announce of the total, by default: everything. */
export const TOTALS = ['count', 'header', 'link', 'pages'];

/** The content codings that --compress and `compress=` may offer, as Accept-Encoding names them. */
export const ENCODINGS = ['gzip', 'deflate', 'br'];

export const JSON_TYPE = 'application/json; charset=utf-8';
export const HTML_TYPE = 'text/html; charset=utf-8';
/** The media type of JSON:API (jsonapi.org), which takes no parameters. */
export const JSONAPI_TYPE = 'application/vnd.api+json';

// MARK: - Command line

const VALUE_FLAGS = new Set([
  '--dir', '--count', '--page-size', '--seed', '--host', '--port', '--style', '--fault',
  '--token-file', '--fixtures', '--cache-mb', '--max-limit', '--totals', '--total-lie',
  '--tls-cert', '--tls-key', '--url-host', '--compress', '--id-kind',
]);
// The flags of generated notes only; a --dir run refuses them.
const COUNT_FLAGS = [
  ['--page-size', 'pageSize'], ['--seed', 'seed'], ['--max-limit', 'maxLimit'], ['--totals', 'totals'], ['--total-lie', 'totalLie'],
  ['--id-kind', 'idKind'],
];
const BOOLEAN_FLAGS = { '--quiet': 'quiet', '--help': 'help', '--http2': 'http2', '--updates': 'updates', '--no-titles': 'noTitles' };

/**
 * Parses the command line (without `node` and the script). Returns the options; throws UsageError.
 * `--flag value` and `--flag=value` are both accepted; `--fault` may repeat.
 */
export function parseArgs(argv) {
  const options = {
    dir: null, count: null, pageSize: null, seed: null, maxLimit: null, totals: null, totalLie: null, idKind: null,
    host: '127.0.0.1', port: 0, style: 'contract', faults: [],
    tokenFile: null, fixtures: null, cacheMiB: 256, quiet: false, help: false,
    tlsCert: null, tlsKey: null, urlHost: null, compress: [], http2: false, updates: false, noTitles: false,
  };
  const faultSpecs = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (Object.hasOwn(BOOLEAN_FLAGS, flag)) {
      if (eq !== -1) throw new UsageError(`${flag} takes no value`);
      options[BOOLEAN_FLAGS[flag]] = true;
      continue;
    }
    if (!VALUE_FLAGS.has(flag)) throw new UsageError(`unknown argument '${arg}'`);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    switch (flag) {
      case '--dir': options.dir = nonEmpty(value, flag); break;
      case '--count': options.count = parseInteger(value, flag, 0, Number.MAX_SAFE_INTEGER); break;
      case '--page-size': options.pageSize = parseInteger(value, flag, 1, 10_000_000); break;
      case '--seed': options.seed = parseInteger(value, flag, 0, 0xffff_ffff); break;
      case '--host': options.host = nonEmpty(value, flag); break;
      case '--port': options.port = parseInteger(value, flag, 0, 65535); break;
      case '--style': options.style = parseStyle(value); break;
      case '--fault': faultSpecs.push(value); break;
      case '--token-file': options.tokenFile = nonEmpty(value, flag); break;
      case '--fixtures': options.fixtures = nonEmpty(value, flag); break;
      case '--cache-mb': options.cacheMiB = parseInteger(value, flag, 1, 1 << 20); break;
      case '--max-limit': options.maxLimit = parseInteger(value, flag, 1, 10_000_000); break;
      case '--totals': options.totals = parseTotals(value, flag); break;
      case '--total-lie': options.totalLie = parseSignedInteger(value, flag, -1e15, 1e15); break;
      case '--tls-cert': options.tlsCert = nonEmpty(value, flag); break;
      case '--tls-key': options.tlsKey = nonEmpty(value, flag); break;
      case '--url-host': options.urlHost = parseUrlHost(value, flag); break;
      case '--compress': options.compress = parseCompress(value, flag); break;
      case '--id-kind': options.idKind = parseIdKind(value, flag); break;
    }
  }
  if (options.help) return options;
  options.faults = parseFaultList(faultSpecs, 'flag');
  if ((options.tlsCert === null) !== (options.tlsKey === null)) {
    throw new UsageError('give both --tls-cert FILE and --tls-key FILE, or neither');
  }
  if (options.http2 && options.tlsCert === null) throw new UsageError('--http2 needs --tls-cert and --tls-key');
  if ((options.dir === null) === (options.count === null)) {
    throw new UsageError('give exactly one of --dir DIR or --count N');
  }
  if (options.dir !== null) {
    const given = COUNT_FLAGS.filter(([, name]) => options[name] !== null).map(([flag]) => flag);
    if (given.length) throw new UsageError(`${COUNT_FLAGS.map(([flag]) => flag).join(', ')} go with --count, not --dir (given: ${given.join(', ')})`);
    if (LIST_STYLES.includes(options.style)) throw new UsageError(listStyleNeedsCount(options.style));
    if (options.noTitles) throw new UsageError('--no-titles goes with --count, not --dir: it changes generated notes');
  }
  if (options.count !== null) {
    options.pageSize ??= 100;
    options.seed ??= 42;
    // A request without a limit gets --page-size notes, so the default cap is never below it.
    options.maxLimit ??= Math.max(1000, options.pageSize);
    options.totals ??= parseTotals(TOTALS.join(','), '--totals');
    options.totalLie ??= 0;
    options.idKind ??= 'string';
  }
  if (options.updates) {
    if (options.dir !== null) throw new UsageError('--updates goes with --count, not --dir: it changes generated notes');
    const problem = updatesStyleProblem(options.style, options.idKind);
    if (problem) throw new UsageError(problem);
  }
  return options;
}

export function parseIdKind(value, what) {
  if (!ID_KINDS.includes(value)) throw new UsageError(`${what} takes ${ID_KINDS.join(' or ')}, not '${value}'`);
  return value;
}

/**
 * Whether a style pages through the list of generated notes (offset, page, keyset, jsonapi) rather
 * than through cursor pages. `drf` with integer ids does, as Django REST framework's
 * PageNumberPagination over a default model; with string ids it is CursorPagination.
 */
export function isListStyle(style, idKind = 'string') {
  return LIST_STYLES.includes(style) || (style === 'drf' && idKind === 'int');
}

export function parseStyle(value) {
  if (!STYLES.includes(value)) throw new UsageError(`unknown style '${value}' (use ${STYLES.join(', ')})`);
  return value;
}

export function listStyleNeedsCount(style) {
  return `style '${style}' pages through generated notes: it needs --count, not --dir`;
}

/**
 * Parses a --totals or `totals=` value: a comma-separated subset of count, header, link and pages, or
 * `none`. Returns `{count, header, link, pages}` booleans.
 */
export function parseTotals(value, what) {
  const names = value.split(',').map((name) => name.trim());
  const totals = { count: false, header: false, link: false, pages: false };
  if (value.trim() === 'none') return totals;
  for (const name of names) {
    if (!TOTALS.includes(name)) throw new UsageError(`${what} takes a comma-separated list of ${TOTALS.join(', ')}, or none; not '${value}'`);
    totals[name] = true;
  }
  return totals;
}

/**
 * Parses a --compress or `compress=` value: a comma-separated list of gzip, deflate and br (each at
 * most once; the order breaks ties between codings a client accepts equally), or `none`. Returns the list.
 */
export function parseCompress(value, what) {
  if (value.trim() === 'none') return [];
  const names = value.split(',').map((name) => name.trim());
  if (!names.every((name) => ENCODINGS.includes(name)) || new Set(names).size !== names.length) {
    throw new UsageError(`${what} takes a comma-separated list of ${ENCODINGS.join(', ')} (each once), or none; not '${value}'`);
  }
  return names;
}

/**
 * Parses --url-host: a DNS name or IPv4 address as written, or an IPv6 address with or without
 * brackets. Returns the form that goes in a URL (IPv6 in brackets).
 */
export function parseUrlHost(value, what) {
  const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
  if (new RegExp(`^${label}(?:\\.${label})*$`).test(value) && value.length <= 253) return value;
  const ipv6 = /^\[?([0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)\]?$/.exec(value);
  if (ipv6 && (value.startsWith('[') === value.endsWith(']'))) return `[${ipv6[1]}]`;
  throw new UsageError(`${what} must be a host name or an IP address, not '${value}'`);
}

function nonEmpty(value, what) {
  if (value === '') throw new UsageError(`${what} needs a value`);
  return value;
}

function parseInteger(text, what, min, max) {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${what} must be an integer from ${min} to ${max}, not '${text}'`);
  return value;
}

function parseSignedInteger(text, what, min, max) {
  const value = /^-?\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`${what} must be an integer from ${min} to ${max}, not '${text}'`);
  return value;
}

// MARK: - Fault grammar

// KIND[:ARG][@PAGE][xN]. KIND and ARG are matched lazily so that a trailing `@PAGE` and `xN` are always
// read as the page and the count ("500x2" is status 500 twice, "delay:100x2" a 100 ms delay twice).
const FAULT_SYNTAX = /^(?<kind>[a-z0-9-]+?)(?::(?<arg>[^@]*?))?(?:@(?<page>\d+))?(?:x(?<times>\d+))?$/;

/** Short names for the contract fixtures that faults serve most often. */
export const FIXTURE_ALIASES = {
  'html': 'html-body.html',
  'invalid-json': 'invalid-json.json',
  'missing-id': 'missing-id.json',
  'number-id': 'number-id.json',
};

const RETRY_AFTER_STATUSES = new Set([429, 503]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Parses one fault spec. `source` names where it came from ('flag' or 'request'); it becomes part of
 * the fault's counter key: every `--fault` counts on its own, while per-request faults with the same
 * text share one counter, so a client can send `X-Notes-Fault: 503@2x2` on every request of a walk.
 */
export function parseFault(spec, source, index) {
  const match = FAULT_SYNTAX.exec(spec);
  if (!match) throw new UsageError(`bad fault '${spec}' (expected KIND[:ARG][@PAGE][xN])`);
  const { kind, arg, page, times } = match.groups;
  const fault = {
    spec,
    key: source === 'flag' ? `flag#${index}` : `request:${spec}`,
    page: page === undefined ? null : parseInteger(page, `page of fault '${spec}'`, 1, Number.MAX_SAFE_INTEGER),
    times: times === undefined ? null : parseInteger(times, `count of fault '${spec}'`, 1, Number.MAX_SAFE_INTEGER),
    ...faultParameters(kind, arg, spec),
  };
  if (fault.kind === 'shift') {
    // A shift acts once, and the notes it inserts stay: it counts as a fault that fires once.
    if (fault.times !== null) throw new UsageError(`fault 'shift' acts once and takes no xN ('${spec}')`);
    fault.times = 1;
  }
  // GitHub's GraphQL rate limit lasts until its reset: the retry after it succeeds, unless xN says otherwise.
  if (fault.kind === 'graphql-ratelimit') fault.times ??= 1;
  return fault;
}

/**
 * Parses fault specs from flags, query parameters or headers: each value may hold several specs
 * separated by commas. Empty items (an absent header, a trailing comma) are skipped.
 */
export function parseFaultList(values, source) {
  const faults = [];
  let index = 0;
  for (const value of values) {
    for (const item of value.split(',')) {
      const spec = item.trim();
      if (spec !== '') faults.push(parseFault(spec, source, index++));
    }
  }
  return faults;
}

// The fault-specific fields of one KIND[:ARG]; `arg` is undefined when no `:` was given.
function faultParameters(kind, arg, spec) {
  const what = `argument of fault '${spec}'`;
  const number = (min, max, fallback) => (arg === undefined ? fallback : parseInteger(arg, what, min, max));
  const noArgument = () => {
    if (arg !== undefined) throw new UsageError(`fault '${kind}' takes no argument ('${spec}')`);
  };
  if (/^\d{3}$/.test(kind)) {
    const status = Number(kind);
    if (status < 400 || status > 599) throw new UsageError(`fault status must be 400-599 ('${spec}')`);
    if (!RETRY_AFTER_STATUSES.has(status)) {
      noArgument();
      return { kind: 'status', status, retryAfter: null };
    }
    return { kind: 'status', status, retryAfter: number(0, 86_400, 1) };
  }
  switch (kind) {
    case 'html': case 'invalid-json': case 'missing-id': case 'number-id':
      noArgument();
      return { kind: 'fixture', file: FIXTURE_ALIASES[kind] };
    case 'fixture':
      if (arg === undefined || !/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(arg)) {
        throw new UsageError(`fault 'fixture' needs a file name of Fixtures/contract ('${spec}')`);
      }
      return { kind: 'fixture', file: arg };
    case 'content-type':
      if (arg !== undefined && !/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(arg)) {
        throw new UsageError(`bad content type in '${spec}'`);
      }
      return { kind: 'content-type', contentType: arg ?? 'text/plain; charset=utf-8' };
    case 'truncate':
      return { kind: 'truncate', bytes: number(0, Number.MAX_SAFE_INTEGER, null) };
    case 'reset':
      noArgument();
      return { kind: 'reset' };
    case 'stall':
      return { kind: 'stall', bytes: number(0, Number.MAX_SAFE_INTEGER, 10) };
    case 'bomb':
      return { kind: 'bomb', bytes: number(0, 2 ** 40, 2 ** 30) };
    case 'ratelimit-github': case 'ratelimit-ietf': case 'ratelimit-retry-after': case 'remaining-zero':
      return { kind, seconds: number(0, 86_400, 1) };
    case 'drip': {
      const parts = /^(\d*)(?:\/(\d+))?$/.exec(arg ?? '');
      if (arg !== undefined && (!parts || (parts[1] === '' && parts[2] === undefined))) {
        throw new UsageError(`fault 'drip' takes BYTES, BYTES/MS or /MS ('${spec}')`);
      }
      return {
        kind: 'drip',
        bytes: parts[1] ? parseInteger(parts[1], what, 1, 1 << 30) : 8,
        ms: parts[2] !== undefined ? parseInteger(parts[2], what, 0, 60_000) : 5,
      };
    }
    case 'delay':
      return { kind: 'delay', ms: number(0, 600_000, 1000) };
    case 'duplicate-id': case 'cycle':
      noArgument();
      return { kind };
    case 'huge-title':
      return { kind: 'huge-title', bytes: number(0, 1 << 30, 2 * 1024 * 1024) };
    case 'deep':
      return { kind: 'deep', depth: number(1, 10_000_000, 100_000) };
    case 'redirect': {
      const status = number(300, 399, 302);
      if (!REDIRECT_STATUSES.has(status)) throw new UsageError(`redirect status must be 301, 302, 303, 307 or 308 ('${spec}')`);
      return { kind: 'redirect', status };
    }
    case 'auth':
      noArgument();
      return { kind: 'auth' };
    case 'shift':
      if (arg === undefined) throw new UsageError(`fault 'shift' needs the number of notes to insert, as in shift:5@2 ('${spec}')`);
      return { kind: 'shift', notes: number(1, 10_000_000, null) };
    case 'graphql-error': case 'graphql-cycle': case 'graphql-endless':
      noArgument();
      return { kind };
    case 'graphql-ratelimit':
      return { kind, seconds: number(0, 86_400, 1) };
    case 'next-ref':
      if (!NEXT_REF_KINDS.includes(arg)) {
        throw new UsageError(`fault 'next-ref' needs one of ${NEXT_REF_KINDS.join(', ')}, as in next-ref:space@2 ('${spec}')`);
      }
      return { kind: 'next-ref', ref: arg };
    default:
      throw new UsageError(`unknown fault kind '${kind}' in '${spec}'`);
  }
}

/**
 * What keeps a parsed fault from working against this server, or null. `pageCount` is only given for
 * command-line faults: a per-request fault for a page past the end simply never applies.
 */
export function faultProblem(fault, { fixtures, hasToken, pageCount = null }) {
  // GraphQL pages hold `first` notes, not --page-size: their number is not known at start-up.
  if (pageCount !== null && fault.page !== null && fault.page > pageCount && !GRAPHQL_FAULT_KINDS.has(fault.kind)) {
    return `fault '${fault.spec}' names page ${fault.page}, but there are ${pageCount} pages`;
  }
  if (fault.kind === 'fixture' && !fixtures.has(fault.file)) {
    return `fault '${fault.spec}': no fixture '${fault.file}' in the fixtures directory`;
  }
  if (fault.kind === 'auth' && !hasToken) {
    return `fault '${fault.spec}' needs a token (--token-file FILE or NOTES_SERVER_TOKEN)`;
  }
  if ((fault.kind === 'cycle' || fault.kind === 'graphql-cycle') && fault.page === 1) {
    return `fault '${fault.spec}': page 1 cannot be in a cycle (no cursor requests it)`;
  }
  return null;
}

/** The faults that act on POST /graphql only. */
export const GRAPHQL_FAULT_KINDS = new Set(['graphql-error', 'graphql-ratelimit', 'graphql-cycle', 'graphql-endless']);

// The faults that mean nothing to an endpoint: shift moves the list of the list styles; cycle and deep
// act on REST bodies (graphql-cycle is the cycle of /graphql, whose notes cannot nest arrays).
// next-ref replaces the next reference of the cursor pages of GET /notes only.
const IDLE_FAULTS = {
  notes: new Set(GRAPHQL_FAULT_KINDS),
  graphql: new Set(['shift', 'cycle', 'deep', 'next-ref']),
  notion: new Set([...GRAPHQL_FAULT_KINDS, 'shift', 'next-ref']),
};

/**
 * Whether a fault acts on requests to an endpoint: 'notes' (GET /notes, every style), 'graphql' (POST
 * /graphql) or 'notion' (POST /v1/databases/notes/query). Elsewhere it is left out, unplanned and
 * uncounted, so that one --fault list can serve walks of several endpoints.
 */
export function faultActsOn(fault, endpoint) {
  return !IDLE_FAULTS[endpoint].has(fault.kind);
}

/**
 * What keeps a fault from working in a style, or null: `cycle` in the keyset, page-echo and offset-echo
 * styles, `shift` outside the list styles (see isListStyle; `idKind` is that of the generated notes), `next-ref` outside the
 * cursor page styles (contract, drf, link, header) and, where the next reference is a cursor
 * (contract, header), a `next-ref` kind that is a URL's only (see NEXT_REF_CURSOR_KINDS).
 */
export function styleProblem(fault, style, idKind = 'string') {
  if (fault.kind === 'next-ref') {
    if (isListStyle(style, idKind) || !NEXT_REF_STYLES.includes(style)) {
      return `fault '${fault.spec}' works in the ${NEXT_REF_STYLES.join(', ')} styles only, not ${style}${style === 'drf' ? ' with --id-kind int' : ''}`;
    }
    if (NEXT_REF_CURSOR_STYLES.includes(style) && !NEXT_REF_CURSOR_KINDS.includes(fault.ref)) {
      return `fault '${fault.spec}': in ${style} style the next reference is a cursor, and '${fault.ref}' is a URL's; `
        + `use ${NEXT_REF_CURSOR_KINDS.join(', ')}, or the drf or link style`;
    }
  }
  if (fault.kind === 'cycle' && style === 'keyset') {
    return `fault '${fault.spec}' cannot work in keyset style: the next page starts after the last id served, so nothing can point back`;
  }
  if (fault.kind === 'cycle' && (style === 'page-echo' || style === 'offset-echo')) {
    return `fault '${fault.spec}' cannot work in ${style} style: the client computes the next page from the totals, so nothing can point back`;
  }
  if (fault.kind === 'shift' && !isListStyle(style, idKind)) {
    return `fault '${fault.spec}' works in the ${LIST_STYLES.join(', ')} styles (and drf with --id-kind int) only, not ${style}`;
  }
  return null;
}

// MARK: - Fault planning

const REPLACING_KINDS = new Set(['status', 'fixture', 'redirect', 'bomb', 'ratelimit-github', 'ratelimit-ietf', 'ratelimit-retry-after',
  'graphql-ratelimit']);
const CONTENT_KINDS = new Set(['duplicate-id', 'cycle', 'huge-title', 'deep', 'next-ref', 'graphql-error', 'graphql-cycle', 'graphql-endless']);

/**
 * Decides what the faults do to one request for page `page` (1-based). A fault is live when it names
 * this page (or none; `graphql-endless@N` names every page from N on) and has not used up its `xN`;
 * `used` maps fault keys to how often each fired.
 * Live faults act in this order, and only the ones that act are listed in `fired` (so counted):
 *   0. every `shift` (`shift`; it inserts its notes for good, so it is live until it has acted once);
 *   1. every `delay` (they add up);
 *   2. the first `reset`, which ends the request;
 *   3. the first `auth`, which ends it with 401 unless `authorized`;
 *   4. the first status, fixture, redirect, bomb or rate-limit fault (ratelimit-github, -ietf,
 *      -retry-after, graphql-ratelimit) replaces the page (`replace`); otherwise every content fault
 *      (duplicate-id, cycle, huge-title, deep, next-ref, graphql-error, -cycle, -endless) alters it
 *      (`content`);
 *   5. the first `content-type` relabels the response and the first `remaining-zero` adds its rate
 *      limit headers; the first of `truncate` and `stall` and the first `drip` shape its delivery (a
 *      dripped body can also be truncated or stalled). A `bomb` is streamed as it is made: no
 *      delivery fault acts on it.
 */
export function planFaults(faults, page, authorized, used) {
  const onPage = (f) => f.page === null || f.page === page || (f.kind === 'graphql-endless' && page > f.page);
  const live = faults.filter((f) => onPage(f) && (f.times === null || (used.get(f.key) ?? 0) < f.times));
  const plan = {
    fired: [], shift: [], delayMs: 0, reset: false, unauthorized: false, replace: null, content: [],
    contentType: null, remainingZero: null, truncate: null, stall: null, drip: null,
  };
  const first = (test) => {
    const fault = live.find(test);
    if (fault) plan.fired.push(fault);
    return fault ?? null;
  };
  plan.shift = live.filter((f) => f.kind === 'shift');
  plan.fired.push(...plan.shift);
  for (const fault of live.filter((f) => f.kind === 'delay')) {
    plan.fired.push(fault);
    plan.delayMs += fault.ms;
  }
  if (first((f) => f.kind === 'reset')) {
    plan.reset = true;
    return plan;
  }
  if (first((f) => f.kind === 'auth') && !authorized) {
    plan.unauthorized = true;
    return plan;
  }
  plan.replace = first((f) => REPLACING_KINDS.has(f.kind));
  if (!plan.replace) {
    plan.content = live.filter((f) => CONTENT_KINDS.has(f.kind));
    plan.fired.push(...plan.content);
  }
  plan.contentType = first((f) => f.kind === 'content-type');
  plan.remainingZero = first((f) => f.kind === 'remaining-zero');
  if (plan.replace?.kind === 'bomb') return plan;
  const end = first((f) => f.kind === 'truncate' || f.kind === 'stall');
  plan.truncate = end?.kind === 'truncate' ? end : null;
  plan.stall = end?.kind === 'stall' ? end : null;
  plan.drip = first((f) => f.kind === 'drip');
  return plan;
}

// MARK: - Hostile next references

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
const NEXT_REF_CURSOR_STYLES = ['contract', 'header'];
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

// MARK: - Pages and cursors

/**
 * The cursor that requests page `pageIndex` (0-based, so at least 1) of a generated run: standard
 * base64 of 12 to 14 bytes of SHA-256 over the seed and the page index. The length cycles so that
 * some cursors end in `=` or `==` and some have no padding; most also contain `+` or `/`. One that
 * would start with `/` gets a `~` in front: the contract reads a leading `/` as a path, not a cursor.
 */
export function deriveCursor(seed, pageIndex) {
  const digest = createHash('sha256').update(`notes-server cursor ${seed} ${pageIndex}`).digest();
  const cursor = digest.subarray(0, 12 + (pageIndex % 3)).toString('base64');
  // The contract reads a next value that starts with '/' as a path, so an opaque cursor never does.
  return cursor.startsWith('/') ? `~${cursor}` : cursor;
}

/** The page list of a generated run: `count` notes, `pageSize` a page; `count` 0 is one empty page. */
export function generatedPages(count, pageSize, seed) {
  const pageCount = Math.max(1, Math.ceil(count / pageSize));
  const cursor = (i) => (i === 0 ? null : deriveCursor(seed, i));
  return Array.from({ length: pageCount }, (_, i) => ({
    cursor: cursor(i),
    nextCursor: i + 1 < pageCount ? cursor(i + 1) : null,
  }));
}

// Titles as JSON string contents, escapes already written: plain ASCII, \u escapes, raw UTF-8,
// control-character and solidus escapes, and an escaped surrogate pair.
const TITLES = [
  (i) => `Note ${i}`,
  (i) => `Caf\\u00e9 \\"${i}\\"`,
  (i) => `日本語 ${i} 😀`,
  (i) => `tab\\tand back\\\\slash\\/${i}`,
  (i) => `\\ud83d\\ude00 pair ${i}`,
  (i) => `Grüße — “${i}”`,
];

// A 32-bit hash of (seed, i) for the per-note choices: the two mixed in, then MurmurHash3's finalizer.
function mix32(seed, i) {
  let h = (Math.imul(i, 0x9e3779b9) + Math.imul(seed, 0x85ebca6b) + 0x27d4eb2f) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// Integer ids: each group of INT_ID_GROUP notes takes the INT_ID_SPAN ids after the group before,
// less two that were "deleted" (never the group's first id), so the ids rise with gaps of one or two,
// as in a table with deletes, and id and index convert in constant time either way.
const INT_ID_GROUP = 8;
const INT_ID_SPAN = 10;

// The two deleted slots (1 to 9, ascending) of group `g` of the integer ids.
function deletedSlots(seed, g) {
  const r = mix32(seed ^ 0x1d5e1d5e, g);
  const a = 1 + (r % 9);
  let b = 1 + ((r >>> 8) % 8);
  if (b >= a) b++;
  return a < b ? [a, b] : [b, a];
}

/**
 * The id of note `i` (0-based) as a JS value: `n<i>`, or with idKind 'int' a positive integer, the
 * same for every style and page size, rising with `i`, with gaps (e.g. 1, 2, 4, 5, 7, …).
 */
export function noteId(seed, i, idKind = 'string') {
  if (idKind !== 'int') return `n${i}`;
  const g = Math.floor(i / INT_ID_GROUP);
  const [a, b] = deletedSlots(seed, g);
  let slot = i % INT_ID_GROUP;
  if (slot >= a) slot++;
  if (slot >= b) slot++;
  return g * INT_ID_SPAN + slot + 1;
}

/** The index of the generated note with integer id `id`, or -1 for an id that was never given or was deleted. */
export function intIdIndex(seed, id) {
  if (!Number.isSafeInteger(id) || id < 1) return -1;
  const g = Math.floor((id - 1) / INT_ID_SPAN);
  const slot = (id - 1) % INT_ID_SPAN;
  const [a, b] = deletedSlots(seed, g);
  if (slot === a || slot === b) return -1;
  return g * INT_ID_GROUP + slot - (slot > a ? 1 : 0) - (slot > b ? 1 : 0);
}

/** The largest integer id of `count` generated notes (0 for none): the notes that `shift` inserts count on from it. */
export function lastIntId(seed, count) {
  return count === 0 ? 0 : noteId(seed, count - 1, 'int');
}

/** The forms of a note: plain JSON, a JSON:API resource object, or Eve's (`_id` for `id`). */
export const NOTE_FORMS = ['plain', 'jsonapi', 'eve'];

/**
 * A note as JSON: `{"id":…,"title":"…","rank":…,"pinned":…}` (form 'plain'), the same with `_id` for
 * `id` (form 'eve': Python Eve's records have `_id`), or (form 'jsonapi') a JSON:API resource object,
 * `{"type":"notes","id":"<id as a string>","attributes":{"title":…,…}}`. `title` is the contents of a
 * JSON string, escapes already written; with `titles` false (--no-titles) the note has no title. With
 * `updatedAt` (ms since 1970, --updates) the note ends with `"updated_at":"<RFC 3339>"`.
 */
function formatNote(id, title, rank, pinned, form, updatedAt = null, titles = true) {
  const updated = updatedAt === null ? '' : `,"updated_at":"${rfc3339(updatedAt)}"`;
  const attributes = `${titles ? `"title":"${title}",` : ''}"rank":${rank},"pinned":${pinned}${updated}`;
  if (form === 'jsonapi') return `{"type":"notes","id":${JSON.stringify(String(id))},"attributes":{${attributes}}}`;
  return `{"${form === 'eve' ? '_id' : 'id'}":${JSON.stringify(id)},${attributes}}`;
}

/**
 * Note `i` (0-based) of a generated run, compact: `{"id":"n<i>","title":…,"rank":…,"pinned":…}`, with
 * an integer id for idKind 'int' (see noteId), in `form` 'jsonapi' or 'eve', without its title for
 * `titles` false (see formatNote). Its bytes depend on the seed, `i`, the id kind, the form and
 * `titles` only, whatever page or style serves it.
 */
export function renderNote(seed, i, idKind = 'string', form = 'plain', titles = true) {
  const { title, rank, pinned } = noteFields(seed, i);
  return formatNote(noteId(seed, i, idKind), title, rank, pinned, form, null, titles);
}

// The title (JSON string contents), rank and pinned flag of generated note `i`.
function noteFields(seed, i) {
  const r = mix32(seed, i);
  return { title: TITLES[r % TITLES.length](i), rank: (r >>> 8) % 10_000, pinned: ((r >>> 3) & 1) === 1 };
}

// ... and of note `j` of those that `shift` inserts and /admin/add adds.
function newNoteFields(seed, j) {
  const r = mix32(seed ^ 0x5eed5eed, j);
  return { title: `New note ${j}`, rank: (r >>> 8) % 10_000, pinned: false };
}

/**
 * The id of note `j` of those that `shift` faults insert: `new<j>`, or with idKind 'int' the `j+1`-th
 * id after the last of the `count` generated notes, as a database numbers new rows.
 */
export function newNoteId(seed, j, idKind = 'string', count = 0) {
  return idKind === 'int' ? lastIntId(seed, count) + 1 + j : `new${j}`;
}

/** Note `j` of those that `shift` faults insert: `{"id":"new<j>","title":"New note <j>",…}` (ids: see newNoteId). */
export function renderNewNote(seed, j, idKind = 'string', count = 0, form = 'plain', titles = true) {
  const { title, rank, pinned } = newNoteFields(seed, j);
  return formatNote(newNoteId(seed, j, idKind, count), title, rank, pinned, form, null, titles);
}

/**
 * Page `pageIndex` (0-based) of a generated run, in the notes-gen page format: compact, `notes` first,
 * `next_cursor` last. Note ids are `n<index>` with the note's 0-based index in the run, or integers
 * (idKind 'int', see noteId); with `titles` false the notes have no title.
 */
export function renderGeneratedPage(count, pageSize, seed, pageIndex, idKind = 'string', titles = true) {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  const notes = [];
  for (let i = pageIndex * pageSize; i < Math.min(count, (pageIndex + 1) * pageSize); i++) notes.push(renderNote(seed, i, idKind, 'plain', titles));
  const head = '{"notes":';
  const items = `[${notes.join(',')}]`;
  const next = pageIndex + 1 < pages ? deriveCursor(seed, pageIndex + 1) : null;
  const body = Buffer.from(`${head}${items},"next_cursor":${JSON.stringify(next)}}`);
  const start = Buffer.byteLength(head);
  return { body, items: [start, start + Buffer.byteLength(items)] };
}

/**
 * The list that the list styles page through: the `count` generated notes n0…, after the notes that
 * `shift` faults inserted at the front. `batches` are the shifts' sizes in the order they acted. Each
 * batch goes in front of the ones before it, and the batches' ids count on from each other: batches
 * [2, 3] give new2 new3 new4 new0 new1 n0 n1 …. One batch of N gives new0 … new<N-1> n0 …. With
 * idKind 'int' the ids are integers (noteId, newNoteId) of `seed`; with `titles` false (--no-titles)
 * the notes have no title.
 */
export class NoteList {
  constructor(count, batches = [], idKind = 'string', seed = 42, titles = true) {
    this.count = count;
    this.batches = batches;
    this.idKind = idKind;
    this.seed = seed;
    this.titles = titles;
    this.inserted = batches.reduce((sum, size) => sum + size, 0);
    this.length = this.inserted + count;
    // The first id number of each batch, in the order they acted.
    this.firstIds = [];
    batches.reduce((next, size) => { this.firstIds.push(next); return next + size; }, 0);
  }

  /** A key that tells lists apart: two lists with the same batches hold the same notes. */
  get signature() {
    return this.batches.join('+');
  }

  /** What is at position `p`: `{fresh: true, j}` for new<j>, `{fresh: false, i}` for n<i>. */
  at(p) {
    if (p >= this.inserted) return { fresh: false, i: p - this.inserted };
    for (let b = this.batches.length - 1; b >= 0; b--) {
      if (p < this.batches[b]) return { fresh: true, j: this.firstIds[b] + p };
      p -= this.batches[b];
    }
    throw new Error('unreachable');
  }

  /** The id of the note at position `p`, as a JS value (a string, or a number with idKind 'int'). */
  idAt(p) {
    const note = this.at(p);
    return note.fresh ? newNoteId(this.seed, note.j, this.idKind, this.count) : noteId(this.seed, note.i, this.idKind);
  }

  /** The position of the note whose id is written `id` (`n7`, `new2`; with idKind 'int', digits), or -1. */
  positionOf(id) {
    let fresh, number;
    if (this.idKind === 'int') {
      if (!/^[1-9]\d{0,15}$/.test(id)) return -1;
      const value = Number(id);
      const last = lastIntId(this.seed, this.count);
      if (value <= last) {
        const i = intIdIndex(this.seed, value);
        return i === -1 ? -1 : this.inserted + i;
      }
      [fresh, number] = [true, value - last - 1];
    } else {
      const match = /^(n|new)(0|[1-9]\d{0,15})$/.exec(id);
      if (!match) return -1;
      [fresh, number] = [match[1] === 'new', Number(match[2])];
      if (!fresh) return number < this.count ? this.inserted + number : -1;
    }
    let before = 0; // the notes of the batches in front of batch b
    for (let b = this.batches.length - 1; b >= 0; b--) {
      if (number >= this.firstIds[b] && number < this.firstIds[b] + this.batches[b]) return before + number - this.firstIds[b];
      before += this.batches[b];
    }
    return -1;
  }

  /** The JSON array of the notes at positions [start, end), compact, in `form` 'plain', 'jsonapi' or 'eve' (see formatNote). */
  render(seed, start, end, form = 'plain') {
    const notes = [];
    for (let p = start; p < Math.min(end, this.length); p++) {
      const note = this.at(p);
      notes.push(note.fresh
        ? renderNewNote(seed, note.j, this.idKind, this.count, form, this.titles)
        : renderNote(seed, note.i, this.idKind, form, this.titles));
    }
    return Buffer.from(`[${notes.join(',')}]`);
  }
}

// MARK: - Notes that change (--updates)

/** When generated note 0 was last updated, with --updates; note i was updated i minutes later. */
export const UPDATES_EPOCH_MS = Date.UTC(2026, 10, 30, 8, 0, 0);
/** The time between two notes' updated_at, and between an edit or addition and the newest before it. */
export const UPDATES_STEP_MS = 60_000;
/** The most notes that one POST /admin/touch or /admin/add changes. */
export const MAX_ADMIN_COUNT = 100_000;

/** `ms` since 1970 as an RFC 3339 date-time in UTC: 2026-11-30T08:00:00Z, with milliseconds only when it has some. */
export function rfc3339(ms) {
  const text = new Date(ms).toISOString();
  return text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
}

const RFC3339_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const isLeapYear = (year) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/**
 * Milliseconds since 1970 of an RFC 3339 date-time (section 5.6: `2026-11-30T08:00:00Z`,
 * `2026-11-30t09:00:00.25+01:00`; T and Z in either case, a fraction of any length, a leap second 60
 * read as the next minute's first), or null for anything else: a date alone, a space for the T, no
 * offset, a field out of range (month 13, February 30, hour 24, offset +24:00).
 */
export function parseRfc3339(text) {
  const match = RFC3339_DATE_TIME.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const days = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (days === undefined || day < 1 || day > days || hour > 23 || minute > 59 || second > 60) return null;
  let offsetMinutes = 0;
  if (match[8] === undefined) {
    const [hours, minutes] = [Number(match[10]), Number(match[11])];
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, years 0-99 stay themselves
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime() - offsetMinutes * 60_000 + (match[7] === undefined ? 0 : Number(`0${match[7]}`) * 1000);
}

/**
 * The `since` of a request to a --updates server (`query`: URLSearchParams): null when it has none,
 * else `{ms}`, or `{problem}` with the status and message of the refusal: 422 for a value that is no
 * RFC 3339 date-time (parseRfc3339; a raw `+` in an offset arrives as a space), 400 for two values.
 */
export function parseSince(query) {
  const values = query.getAll('since');
  if (values.length === 0) return null;
  if (values.length > 1) return { problem: { status: 400, error: 'bad-request', message: 'more than one since' } };
  const ms = parseRfc3339(values[0]);
  if (ms === null) {
    const shown = JSON.stringify(values[0].slice(0, 100));
    return {
      problem: {
        status: 422,
        error: 'invalid-since',
        message: `since must be an RFC 3339 date-time such as 2026-11-30T08:00:00Z or 2026-11-30T09:00:00%2B01:00 (a + percent-encoded), not ${shown}`,
      },
    };
  }
  return { ms };
}

/**
 * What `/admin/touch` (`action` 'touch') or `/admin/add` asks of a query (URLSearchParams): `count`
 * (default 1, 0 to MAX_ADMIN_COUNT) and, for touch, the `id` values to edit instead of notes chosen by
 * the seed. Returns `{count, ids}`; throws UsageError.
 */
export function parseAdminQuery(action, query) {
  const counts = query.getAll('count');
  if (counts.length > 1) throw new UsageError('more than one count');
  const ids = query.getAll('id');
  if (action === 'add' && ids.length) throw new UsageError('/admin/add takes count only: the new notes get the next ids');
  if (counts.length && ids.length) throw new UsageError('give count or id, not both');
  const text = counts[0] ?? '1';
  const count = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(count <= MAX_ADMIN_COUNT)) throw new UsageError(`count must be an integer from 0 to ${MAX_ADMIN_COUNT}, not '${text}'`);
  if (new Set(ids).size !== ids.length) throw new UsageError('an id is given twice');
  return { count: ids.length || count, ids };
}

/**
 * The notes of a --updates server: the `count` generated notes (note i with updated_at
 * UPDATES_EPOCH_MS + i minutes, its bytes those of renderNote with `"updated_at"` last), in updated_at
 * order, which touch() and add() change while the server runs. Each edit or addition is a minute after
 * the newest note, so the order stays sorted and a note changed moves to the end. With `titles` false
 * (--no-titles) the notes have no title.
 */
export class UpdatingNotes {
  constructor(count, seed, idKind = 'string', titles = true) {
    this.count = count;
    this.seed = seed;
    this.idKind = idKind;
    this.titles = titles;
    // A record: i (a generated note) or j (an added one), its edits, and updatedAt in ms.
    this.order = Array.from({ length: count }, (_, i) => ({ i, j: null, edits: 0, updatedAt: UPDATES_EPOCH_MS + i * UPDATES_STEP_MS }));
    this.newest = UPDATES_EPOCH_MS + (count - 1) * UPDATES_STEP_MS;
    this.added = 0;
    this.draws = 0; // the seed's choices of notes to touch so far
  }

  get length() {
    return this.order.length;
  }

  /** The id of a record, as a JS value. */
  idOf(record) {
    return record.j === null ? noteId(this.seed, record.i, this.idKind) : newNoteId(this.seed, record.j, this.idKind, this.count);
  }

  /** A record as JSON, in `form` 'plain' or 'jsonapi' (see formatNote); an edited title is "Edit E: TITLE". */
  render(record, form = 'plain') {
    const fields = record.j === null ? noteFields(this.seed, record.i) : newNoteFields(this.seed, record.j);
    const title = record.edits === 0 ? fields.title : `Edit ${record.edits}: ${fields.title}`;
    return formatNote(this.idOf(record), title, fields.rank, fields.pinned, form, record.updatedAt, this.titles);
  }

  /** The position of the first note updated at or after `ms` (the length when there is none). */
  firstAtOrAfter(ms) {
    let [lo, hi] = [0, this.order.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order[mid].updatedAt < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The JSON array of the notes at positions [start, end), compact. */
  array(start, end, form = 'plain') {
    return Buffer.from(`[${this.order.slice(start, Math.max(start, end)).map((record) => this.render(record, form)).join(',')}]`);
  }

  /** The position of the note whose id is written `id` (`n7`, `new2`, digits for integer ids), or -1. */
  positionOf(id) {
    return this.order.findIndex((record) => String(this.idOf(record)) === id);
  }

  /**
   * Edits `count` notes chosen by the seed (distinct; all of them when there are fewer), or the notes
   * of `ids`: each gets a new title and the updated_at a minute after the newest, oldest first.
   * Returns the notes edited, as JSON; throws UsageError for an id that no note has.
   */
  touch(count, ids = []) {
    let positions;
    if (ids.length) {
      positions = ids.map((id) => {
        const position = this.positionOf(id);
        if (position === -1) throw new UsageError(`no note has the id '${id.slice(0, 100)}'`);
        return position;
      });
    } else {
      const chosen = new Set();
      while (chosen.size < Math.min(count, this.order.length)) chosen.add(mix32(this.seed ^ 0x70c4ed, this.draws++) % this.order.length);
      positions = [...chosen];
    }
    positions.sort((a, b) => a - b);
    const records = positions.map((position) => this.order[position]);
    const moved = new Set(positions);
    this.order = this.order.filter((_, position) => !moved.has(position));
    for (const record of records) {
      record.edits++;
      record.updatedAt = this.newest += UPDATES_STEP_MS;
      this.order.push(record);
    }
    return records.map((record) => this.render(record));
  }

  /** Adds `count` notes (new0, new1, …; see newNoteId), each a minute after the newest. Returns them as JSON. */
  add(count) {
    const records = [];
    for (let k = 0; k < count; k++) {
      const record = { i: null, j: this.added++, edits: 0, updatedAt: this.newest += UPDATES_STEP_MS };
      this.order.push(record);
      records.push(record);
    }
    return records.map((record) => this.render(record));
  }

  /**
   * Page `pageIndex` (0-based) of the notes from position `start` on, `pageSize` a page, in the
   * notes-gen page format as renderGeneratedPage writes it, `next_cursor` deriveCursor's; a page past
   * the last is empty, with no next.
   */
  renderPage(start, pageSize, pageIndex) {
    const length = this.order.length - start;
    const pages = Math.max(1, Math.ceil(length / pageSize));
    const from = start + pageIndex * pageSize;
    const head = '{"notes":';
    const items = this.array(from, Math.min(this.order.length, from + pageSize)).toString();
    const next = pageIndex + 1 < pages ? deriveCursor(this.seed, pageIndex + 1) : null;
    const body = Buffer.from(`${head}${items},"next_cursor":${JSON.stringify(next)}}`);
    return { body, items: [Buffer.byteLength(head), Buffer.byteLength(head) + Buffer.byteLength(items)] };
  }
}

/** Why a style cannot be served with --updates, or null: the notes change, so only the cursor styles serve them. */
export function updatesStyleProblem(style, idKind = 'string') {
  return isListStyle(style, idKind)
    ? `--updates serves the cursor styles (contract, drf, link, header), not ${style}${style === 'drf' ? ' with integer ids' : ''}`
    : null;
}

/** The parameter of the page size in each list style (dynamodb's is a member of the request body). */
export const LIMIT_NAMES = {
  offset: 'limit', page: 'per_page', keyset: 'limit', drf: 'page_size', jsonapi: 'page[size]',
  'next-page': '_limit', ogc: 'limit', 'x-pagination': 'page_size', 'page-echo': 'page_size', 'offset-echo': 'limit', eve: 'max_results',
  dynamodb: 'Limit',
};

/**
 * The paging parameters of a request in a list style (`query`: URLSearchParams), or a UsageError:
 *   offset   offset=K (default 0) and limit=L
 *   page     page=P (1-based, default 1) and per_page=L
 *   keyset   starting_after=ID (default: from the start) and limit=L
 *   drf      page=P and page_size=L (drf with --id-kind int: Django REST framework's PageNumberPagination)
 *   jsonapi  page[number]=P and page[size]=L (djangorestframework-jsonapi)
 * L defaults to `pageSize` and is served as `maxLimit` when larger. All but keyset also read `totals=`
 * (default `totals`). Returns `{offset|page|startingAfter, limit, totals}`.
 * drf and jsonapi read their parameters as Django REST framework does: the last value of each, as
 * Python's int() reads it; a page size that is not a positive integer is the default, and `page` is
 * 'last', or null for a page number that is not an integer (see resolvePageNumber).
 * The styles of real servers (REAL_STYLES but dynamodb, whose parameters are in its body: see
 * parseDynamoScan) read theirs as those servers do (see parseRealListQuery), and refuse what they
 * refuse with a StyleError; `request` ({method, target}) is what Litestar's errors name.
 */
export function parseListQuery(style, query, { pageSize, maxLimit, totals }, request = {}) {
  if (REAL_STYLES.includes(style)) return parseRealListQuery(style, query, { pageSize, maxLimit, totals }, request);
  const single = (name) => {
    const values = query.getAll(name);
    if (values.length > 1) throw new UsageError(`more than one ${name}`);
    return values[0] ?? null;
  };
  const integer = (name, min, fallback, max = Number.MAX_SAFE_INTEGER) => {
    const text = single(name);
    if (text === null) return fallback;
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(value >= min)) throw new UsageError(`${name} must be an integer of at least ${min}, not '${text}'`);
    if (value > max) throw new UsageError(`${name} must be at most ${max}, not '${text}'`);
    return value;
  };
  const limitName = LIMIT_NAMES[style];
  if (limitName === undefined) throw new Error(`not a list style: ${style}`);
  if (style === 'drf' || style === 'jsonapi') {
    const last = (name) => query.getAll(name).at(-1) ?? null;
    const size = pythonInteger(last(limitName));
    const text = last(style === 'drf' ? 'page' : 'page[number]');
    const page = text === null ? 1 : text === 'last' ? 'last' : pythonInteger(text);
    return {
      page: Number.isNaN(page) ? null : page,
      limit: Math.min(size >= 1 ? size : pageSize, maxLimit),
      totals: optionalTotals(single('totals'), totals),
    };
  }
  const limit = Math.min(integer(limitName, 1, pageSize, Infinity), maxLimit);
  switch (style) {
    case 'offset':
      return { offset: integer('offset', 0, 0), limit, totals: optionalTotals(single('totals'), totals) };
    case 'page':
      return { page: integer('page', 1, 1), limit, totals: optionalTotals(single('totals'), totals) };
    case 'keyset':
      return { startingAfter: single('starting_after'), limit };
  }
}

/** The query parameters of the server's own, which every style takes. */
export const SERVER_PARAMETERS = ['style', 'fault', 'totals', 'compress'];

// The names that djangorestframework-jsonapi's QueryParameterValidationFilter lets through.
const JSONAPI_PARAMETER = /^(?:sort|include)$|^(?<family>filter|fields|page)(?:\[[\w.-]+\])?$/;

/**
 * What djangorestframework-jsonapi's QueryParameterValidationFilter says of a query (URLSearchParams),
 * as its message, or null: a name other than `sort`, `include`, `filter`, `fields` and `page` (each
 * alone or with one bracketed member, as `page[number]`) or the server's own is invalid, and only
 * `filter[…]` (and the server's `fault`) may repeat.
 */
export function jsonApiQueryProblem(query) {
  for (const name of new Set(query.keys())) {
    if (SERVER_PARAMETERS.includes(name)) continue;
    const match = JSONAPI_PARAMETER.exec(name);
    if (!match) return `invalid query parameter: ${name}`;
    if (match.groups.family !== 'filter' && query.getAll(name).length !== 1) return `repeated query parameter not allowed: ${name}`;
  }
  return null;
}

/**
 * Whether an Accept header admits JSON:API, as Django REST framework's content negotiation decides it
 * for a view that renders only `application/vnd.api+json`: no header, or a media range (parameters
 * aside) of `application/vnd.api+json`, `application/*` or the full wildcard. An empty header admits
 * nothing.
 */
export function acceptsJsonApi(accept) {
  if (accept === undefined) return true;
  return accept.split(',').some((range) => ['application/vnd.api+json', 'application/*', '*/*'].includes(range.split(';')[0].trim().toLowerCase()));
}

/**
 * A JSON:API error document as djangorestframework-jsonapi's exception handler writes one for Django
 * REST framework's own exceptions: `{"errors":[{"detail":…,"status":"406","source":{"pointer":"/data"},"code":…}]}`.
 */
export function jsonApiErrorBody(status, code, detail) {
  return { errors: [{ detail, status: String(status), source: { pointer: '/data' }, code }] };
}

/**
 * A query value or name as Python's urllib.parse.quote_plus writes it (and so Django REST framework's
 * links): everything but letters, digits and `_.-~` percent-encoded in UTF-8, a space as `+`.
 */
export function quotePlus(text) {
  return pythonQuote(text).replaceAll('%20', '+');
}

/**
 * The absolute URL of /notes with the request's query pairs `pairs` (decoded), the parameter `name`
 * set to `value` (or removed, for null), as Django REST framework's replace_query_param and
 * remove_query_param write it: the pairs sorted by name (a name's values in their order), quotePlus-encoded.
 */
export function djangoUrl(base, pairs, name, value) {
  const kept = pairs.filter(([n]) => n !== name);
  if (value !== null) kept.push([name, String(value)]);
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = kept.map(([n, v]) => `${quotePlus(n)}=${quotePlus(v)}`).join('&');
  return `${base}/notes${query ? `?${query}` : ''}`;
}

// A number as Python's int() reads a string (surrounding space, a sign, `_` between digits), or NaN.
function pythonInteger(text) {
  const match = /^\s*([+-]?\d+(?:_\d+)*)\s*$/.exec(text ?? '');
  return match ? Number(match[1].replaceAll('_', '')) : NaN;
}

/**
 * The page that a drf or jsonapi request's `page` (see parseListQuery) names among `length` notes in
 * pages of `limit`, or null where Django's Paginator finds no such page (Django REST framework then
 * answers 404 "Invalid page."): not an integer, below 1, or past the last page. Page 1 always exists,
 * even with no notes; 'last' is the last page.
 */
export function resolvePageNumber(page, length, limit) {
  const lastPage = Math.max(1, Math.ceil(length / limit));
  if (page === 'last') return lastPage;
  return Number.isSafeInteger(page) && page >= 1 && page <= lastPage ? page : null;
}

function optionalTotals(text, fallback) {
  return text === null ? fallback : parseTotals(text, 'totals=');
}

// MARK: - The styles of real servers

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

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A value as Python's json.dumps writes it by default: `", "` and `": "` between items, non-ASCII
 * characters as \u escapes (ensure_ascii). Objects, arrays, strings, numbers, booleans and null.
 */
export function pythonJson(value) {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (isPlainObject(value)) return `{${Object.entries(value).map(([name, member]) => `${pythonJson(name)}: ${pythonJson(member)}`).join(', ')}}`;
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value);
}

/**
 * Text as Python's urllib.parse.quote writes it with `safe`: everything but letters, digits, `_.-~`
 * and the characters of `safe` percent-encoded in UTF-8 (a space as %20).
 */
export function pythonQuote(text, safe = '') {
  let quoted = encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  for (const c of new Set(safe)) quoted = quoted.replaceAll(encodeURIComponent(c).replace(/[!'()*]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`), c);
  return quoted;
}

// A number as Python's int(float(text)) reads a string (Eve's max_results), or NaN (also for inf).
function pythonFloatToInteger(text) {
  const trimmed = text.trim();
  if (!/^[+-]?(?:\d[\d_]*)?(?:\.[\d_]*)?(?:[eE][+-]?\d[\d_]*)?$/.test(trimmed) || !/\d/.test(trimmed) || /__|_(?!\d)|(?<!\d)_/.test(trimmed)) return NaN;
  const value = Number(trimmed.replaceAll('_', ''));
  return Number.isFinite(value) ? Math.trunc(value) : NaN;
}

/** A version 4 UUID drawn from a text, for the nonces and ids that real servers make at random. */
function uuidFrom(text) {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[parseInt(hex[16], 16) % 4]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The paging parameters of a request in one of REAL_STYLES but dynamodb, read as the real server reads
 * them; `limit` is cut to `maxLimit` silently except in x-pagination style, which refuses a larger
 * page_size as flask-smorest refuses one over its max_page_size. Returns, with `limit` and `totals`:
 *   next-page     {startingAfter, tokenOffset, filtered}  (Kinto: _limit, _token; other names filter)
 *   ogc           {offset, format}                        (pygeoapi: offset, limit, f)
 *   x-pagination  {page}                                  (flask-smorest: page, page_size)
 *   page-echo     {page}                                  (Litestar: current_page, page_size)
 *   offset-echo   {offset}                                (Litestar: offset, limit)
 *   eve           {page}                                  (Eve: page, max_results; never refuses)
 * Throws StyleError in the server's own form, or UsageError for the server's own `totals=`.
 */
export function parseRealListQuery(style, query, { pageSize, maxLimit, totals }, { method = 'GET', target = '/notes' } = {}) {
  const totalsValues = query.getAll('totals');
  if (totalsValues.length > 1) throw new UsageError('more than one totals');
  const requestTotals = optionalTotals(totalsValues[0] ?? null, totals);
  const defaultLimit = Math.min(pageSize, maxLimit);
  switch (style) {
    case 'next-page': {
      // Kinto validates _limit (colander's Integer, Range(min=1)) before anything else, reads it as
      // Python's int(), and serves at most its paginate_by.
      const text = query.getAll('_limit').at(-1) ?? '';
      let limit = defaultLimit;
      if (text !== '') {
        const value = pythonInteger(text);
        if (Number.isNaN(value)) throw new StyleError(400, kintoErrorBody('_limit', `"${text}" is not a number`));
        if (value < 1) throw new StyleError(400, kintoErrorBody('_limit', `${value} is less than minimum value 1`));
        limit = Math.min(value, maxLimit);
      }
      const token = query.getAll('_token').at(-1) ?? '';
      const position = token === '' ? { lastId: null, offset: 0 } : parseKintoToken(token);
      return { startingAfter: position.lastId, tokenOffset: position.offset, limit, filtered: kintoFilters(query).length > 0, totals: requestTotals };
    }
    case 'ogc': {
      const invalid = (description) => new StyleError(400, { code: 'InvalidParameterValue', type: 'InvalidParameterValue', description });
      const offsetText = query.get('offset');
      let offset = 0;
      if (offsetText !== null) {
        offset = pythonInteger(offsetText);
        if (Number.isNaN(offset)) throw invalid('offset value should be an integer');
        if (offset < 0) throw invalid('offset value should be positive or zero');
      }
      const limitText = query.get('limit');
      let limit = defaultLimit;
      if (limitText !== null) {
        const value = pygeoapiInteger(limitText);
        if (value === null) throw invalid('limit value should be an integer');
        if (value <= 0) throw invalid('limit value should be strictly positive');
        limit = Math.min(value, maxLimit);
      }
      return { offset, limit, format: (query.get('f') ?? '').trim() || null, totals: requestTotals };
    }
    case 'x-pagination': {
      // webargs and marshmallow: the first value, an Integer with a Range; 422 listing every error.
      const errors = {};
      const field = (name, fallback, max) => {
        const text = query.get(name);
        if (text === null) return fallback;
        const value = pythonInteger(text);
        if (Number.isNaN(value)) errors[name] = ['Not a valid integer.'];
        else if (value < 1 || value > max) {
          errors[name] = [max === Infinity ? 'Must be greater than or equal to 1.' : `Must be greater than or equal to 1 and less than or equal to ${max}.`];
        }
        return value;
      };
      const page = field('page', 1, Infinity);
      const limit = field('page_size', defaultLimit, maxLimit);
      if (Object.keys(errors).length) throw new StyleError(422, { code: 422, errors: { query: errors }, status: 'Unprocessable Entity' });
      return { page, limit, totals: requestTotals };
    }
    case 'page-echo': case 'offset-echo': {
      // Litestar: a handler with (page_size, current_page) or (limit, offset), ints with ge=1 (offset ge=0);
      // msgspec's messages, every error listed.
      const extra = [];
      const field = (name, min, fallback) => {
        const values = query.getAll(name);
        if (values.length === 0) return fallback;
        const message = values.length > 1 ? 'Expected `int`, got `array`'
          : !/^-?\d+$/.test(values[0]) ? 'Expected `int`, got `str`'
            : Number(values[0]) < min ? `Expected \`int\` >= ${min}` : null;
        if (message) extra.push({ message, key: name, source: 'query' });
        return Number(values[0]);
      };
      const result = style === 'page-echo'
        ? { limit: field('page_size', 1, defaultLimit), page: field('current_page', 1, 1) }
        : { limit: field('limit', 1, defaultLimit), offset: field('offset', 0, 0) };
      if (extra.length) throw new StyleError(400, { status_code: 400, detail: `Validation failed for ${method} ${target}`, extra });
      return { ...result, limit: Math.min(result.limit, maxLimit), totals: requestTotals };
    }
    case 'eve': {
      // Eve never refuses: a max_results that is not a positive number is the default, one above
      // PAGINATION_LIMIT is that limit, and a page that is not an integer is 1 (abs(int(page)) or 1).
      const maxResults = pythonFloatToInteger(query.get('max_results') ?? '');
      const page = pythonInteger(query.get('page') ?? '');
      return {
        page: Number.isNaN(page) ? 1 : Math.abs(page) || 1,
        limit: Math.min(maxResults > 0 ? maxResults : pageSize, maxLimit),
        totals: requestTotals,
      };
    }
    default:
      throw new Error(`not a style of query parameters: ${style}`);
  }
}

// A limit as pygeoapi's get_typed_value reads it, as an integer, or null for one that is not an int
// (a float, a string such as '05'); 'true' and 'false' are Python's bools, which are ints.
function pygeoapiInteger(text) {
  if (text.includes('.') || (text.length > 1 && text.startsWith('0'))) return null;
  if (['true', 'false'].includes(text.toLowerCase())) return text.toLowerCase() === 'true' ? 1 : 0;
  const value = pythonInteger(text);
  return Number.isNaN(value) ? null : value;
}

/** The query parameters of Kinto's own that this style reads or ignores; any other name filters. */
export const KINTO_PARAMETERS = ['_limit', '_token', '_sort'];
// Kinto's filters on last_modified, which start with `_` but filter all the same.
const KINTO_TIMESTAMP_FILTERS = ['_since', '_to', '_before'];

/**
 * The query parameters that Kinto takes as filters on a field: every name but its own (`_limit`,
 * `_token`, `_sort`, and any other that starts with `_`, but `_since`, `_to` and `_before`) and the
 * server's (SERVER_PARAMETERS). Records keep unknown fields, so every field is known and no name is
 * refused: `?cursor=abc` asks for the records whose `cursor` is "abc", and no note has one.
 */
export function kintoFilters(query) {
  return [...new Set(query.keys())].filter((name) => {
    if (SERVER_PARAMETERS.includes(name)) return false;
    const field = name.trim();
    return !KINTO_PARAMETERS.includes(field) && (!field.startsWith('_') || KINTO_TIMESTAMP_FILTERS.includes(field));
  });
}

/**
 * Kinto's answer to a bad query parameter (400, errno 107), as its json_error_handler writes it:
 * `{"code":400,"errno":107,"error":"Invalid parameters","message":…,"details":[{location, name, description}]}`.
 */
export function kintoErrorBody(name, description) {
  const message = name === null ? `querystring: ${description}` : description.includes(name) ? description : `${name} in querystring: ${description}`;
  return { code: 400, errno: 107, error: 'Invalid parameters', message, details: [{ location: 'querystring', name, description }] };
}

/**
 * A Kinto pagination token: standard base64 of json.dumps of `{"last_object": {"id": ID}, "offset":
 * OFFSET, "nonce": "pagination-token-UUID"}`, the id of the last note served (Kinto keeps the values of
 * the sort fields; the notes are in id order) and Kinto's running offset, the nonce drawn from both.
 */
export function kintoToken(lastId, offset) {
  const nonce = `pagination-token-${uuidFrom(`notes-server kinto ${JSON.stringify(lastId)} ${offset}`)}`;
  return Buffer.from(pythonJson({ last_object: { id: lastId }, offset, nonce })).toString('base64');
}

/**
 * What a Kinto token says: `{lastId, offset}`, the id written as a string. As Kinto, the token is
 * base64 (characters outside its alphabet dropped, as Python's b64decode does) of a JSON object with
 * `last_object` (an object), `offset` and `nonce`; anything else, and a last_object without an id,
 * is Kinto's 400 `_token has invalid content` (StyleError).
 */
export function parseKintoToken(token) {
  const invalid = () => new StyleError(400, kintoErrorBody(null, '_token has invalid content'));
  const cleaned = token.replace(/[^A-Za-z0-9+/=]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(cleaned) || cleaned.length % 4 !== 0) throw invalid();
  let info;
  try {
    info = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(cleaned, 'base64')));
  } catch {
    throw invalid();
  }
  if (!isPlainObject(info) || !isPlainObject(info.last_object) || !Object.hasOwn(info, 'offset') || !Object.hasOwn(info, 'nonce')) throw invalid();
  const id = info.last_object.id;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) throw invalid();
  return { lastId: String(id), offset: Number.isSafeInteger(info.offset) ? info.offset : 0 };
}

/**
 * Kinto's Next-Page: the absolute URL of /notes with the request's query (`pairs`, decoded; one value a
 * name, the last, where the name first came, as a dict of WebOb's GET), `_limit` and `_token` set, as
 * Pyramid's route_url encodes a query (quote_plus).
 */
export function kintoNextUrl(base, pairs, limit, token) {
  const params = new Map(pairs);
  params.set('_limit', String(limit));
  params.set('_token', token);
  return `${base}/notes?${[...params].map(([name, value]) => `${quotePlus(name)}=${quotePlus(value)}`).join('&')}`;
}

/**
 * The links of an OGC API Features items page as pygeoapi writes them: this document as GeoJSON
 * (rel self, or alternate when the request's `f` names another format), as JSON-LD and as HTML
 * (alternate), `prev` (with `prevOffset`) and `next` (with `nextOffset`), each null for none, and the
 * collection. Every href repeats the request's query but `f` and `offset` (the first value of each
 * name, names and values quoted as Python's quote, `,` kept), after `f=FORMAT&` (next and prev: only
 * when the request had an `f`) and the offset.
 */
export function ogcLinks(base, pairs, { format = null, prevOffset = null, nextOffset = null }) {
  const uri = `${base}/notes`;
  const firsts = new Map();
  for (const [name, value] of pairs) if (name !== 'f' && name !== 'offset' && !firsts.has(name)) firsts.set(name, value);
  const query = [...firsts].map(([name, value]) => `&${pythonQuote(name)}=${pythonQuote(value, ',')}`).join('');
  const rel = (f) => (f === format || (f === 'json' && !format) ? 'self' : 'alternate');
  const at = (offset) => `${uri}?${format === null ? '' : `f=${format}&`}offset=${offset}${query}`;
  const links = [
    { type: 'application/geo+json', rel: rel('json'), title: 'This document as GeoJSON', href: `${uri}?f=json${query}` },
    { rel: rel('jsonld'), type: 'application/ld+json', title: 'This document as RDF (JSON-LD)', href: `${uri}?f=jsonld${query}` },
    { type: 'text/html', rel: rel('html'), title: 'This document as HTML', href: `${uri}?f=html${query}` },
  ];
  if (prevOffset !== null) links.push({ type: 'application/geo+json', rel: 'prev', title: 'Items (prev)', href: at(prevOffset) });
  if (nextOffset !== null) links.push({ rel: 'next', type: 'application/geo+json', title: 'Items (next)', href: at(nextOffset) });
  links.push({ type: 'application/json', title: 'notes', rel: 'collection', href: base });
  return links;
}

/**
 * flask-smorest's pagination metadata (_make_pagination_metadata) of page `page` in pages of `pageSize`
 * among `itemCount` items, its keys in this order: total, total_pages, then (unless there are no items)
 * first_page, last_page and, for a page that exists, page, previous_page (after page 1), next_page
 * (before the last). The X-Pagination header is its pythonJson.
 */
export function flaskSmorestPagination(page, pageSize, itemCount) {
  const meta = { total: itemCount };
  if (itemCount === 0) {
    meta.total_pages = 0;
    return meta;
  }
  const pageCount = Math.floor((itemCount - 1) / pageSize) + 1;
  Object.assign(meta, { total_pages: pageCount, first_page: 1, last_page: pageCount });
  if (page <= pageCount) {
    meta.page = page;
    if (page > 1) meta.previous_page = page - 1;
    if (page < pageCount) meta.next_page = page + 1;
  }
  return meta;
}

// The query parameters of Eve's own; the others are repeated in its links as they are.
const EVE_PARAMETERS = ['where', 'sort', 'page', 'max_results', 'embedded', 'projection', 'version'];

/**
 * The query string of an Eve link (eve.utils.querydef), `?…` or '' for none: `max_results=L` unless it
 * is the default, the request's `where` and `sort`, `page=P` after page 1, then every other parameter
 * of the request (`pairs`, decoded) as `&name=value`, written raw, not encoded, as Eve writes them.
 */
export function eveQuery(pairs, { page, maxResults, defaultMaxResults }) {
  const first = (name) => pairs.find(([n]) => n === name)?.[1] ?? '';
  const others = new Map();
  for (const [name, value] of pairs) if (!EVE_PARAMETERS.includes(name)) others.set(name, [...(others.get(name) ?? []), value]);
  const text = [
    maxResults === defaultMaxResults ? '' : `max_results=${maxResults}`,
    first('where') && `&where=${first('where')}`,
    first('sort') && `&sort=${first('sort')}`,
    page > 1 ? `&page=${page}` : '',
    ...[...others].flatMap(([name, values]) => values.map((value) => `&${name}=${value}`)),
  ].join('').replace(/^&+/, '');
  return `?${text}`.replace(/\?+$/, '');
}

/**
 * Eve's `_links` of a page (_pagination_links): parent `/`, self `notes` (with the query of this page
 * when there are notes), next while `page * maxResults < count` (on every page when `count` is null:
 * OPTIMIZE_PAGINATION_FOR_SPEED, which counts nothing), last with next when counted (and `last`), prev
 * after page 1. Hrefs are relative, without a leading slash, as Eve writes them. `nextPage` makes next
 * name that page instead (the cycle fault), also where there is none.
 */
export function eveLinks(pairs, { page, maxResults, defaultMaxResults, count, last = true, nextPage = null }) {
  const href = (p) => `notes${eveQuery(pairs, { page: p, maxResults, defaultMaxResults })}`;
  const links = { parent: { title: 'home', href: '/' }, self: { title: 'notes', href: count ? href(page) : 'notes' } };
  if (count === null || page * maxResults < count || nextPage !== null) {
    links.next = { title: 'next page', href: href(nextPage ?? page + 1) };
    if (count && last) links.last = { title: 'last page', href: href(Math.ceil(count / maxResults)) };
  }
  if (page > 1) links.prev = { title: 'previous page', href: href(page - 1) };
  return links;
}

/** DynamoDB's media type, of its requests and answers. */
export const DYNAMODB_TYPE = 'application/x-amz-json-1.0';
export const DYNAMODB_VALIDATION = 'com.amazon.coral.validation#ValidationException';
export const DYNAMODB_SERIALIZATION = 'com.amazon.coral.service#SerializationException';
export const DYNAMODB_UNKNOWN_OPERATION = 'com.amazon.coral.service#UnknownOperationException';
export const DYNAMODB_NOT_FOUND = 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException';
/** The X-Amz-Target of a Scan. */
export const DYNAMODB_SCAN_TARGET = 'DynamoDB_20120810.Scan';
/** The table the dynamodb style serves. */
export const DYNAMODB_TABLE = 'notes';

/** A DynamoDB error, as DynamoDB (and moto) answers: 400, its media type, `{"__type":…,"message":…}`. */
export function dynamoError(type, message) {
  return new StyleError(400, { __type: type, message }, { 'Content-Type': DYNAMODB_TYPE });
}

/** The key of a note in DynamoDB's typed JSON: `{"id":{"S":"n41"}}`, or `{"id":{"N":"41"}}` for an integer id. */
export function dynamoKey(id) {
  return { id: typeof id === 'number' ? { N: String(id) } : { S: id } };
}

/**
 * Reads the body of a DynamoDB Scan: a JSON object with `TableName` ("notes"), `Limit` (an integer of
 * at least 1; default `pageSize`, as DynamoDB's 1 MB; cut to `maxLimit` silently) and
 * `ExclusiveStartKey` (a dynamoKey of the id kind, absent on the first page); other members are
 * ignored. Returns `{body, limit, startingAfter}` (the id as written, or null); throws a StyleError in
 * DynamoDB's form: SerializationException for a body that is not a JSON object or a Limit that is not a
 * number, ValidationException for a missing table name, a Limit below 1 or a key of another shape,
 * ResourceNotFoundException for another table.
 */
export function parseDynamoScan(text, { pageSize, maxLimit, idKind = 'string' }) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw dynamoError(DYNAMODB_SERIALIZATION, 'the body is not JSON');
  }
  if (!isPlainObject(body)) throw dynamoError(DYNAMODB_SERIALIZATION, 'the body is not a JSON object');
  const { TableName: table = null, Limit: limit = null, ExclusiveStartKey: startKey = null } = body;
  if (table === null) {
    throw dynamoError(DYNAMODB_VALIDATION, "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null");
  }
  if (typeof table !== 'string') throw dynamoError(DYNAMODB_SERIALIZATION, 'TableName must be a string');
  if (table !== DYNAMODB_TABLE) throw dynamoError(DYNAMODB_NOT_FOUND, 'Requested resource not found');
  if (limit !== null && !Number.isInteger(limit)) throw dynamoError(DYNAMODB_SERIALIZATION, 'Limit must be an integer');
  if (limit !== null && limit < 1) {
    throw dynamoError(DYNAMODB_VALIDATION, `1 validation error detected: Value '${limit}' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1`);
  }
  let startingAfter = null;
  if (startKey !== null) {
    const type = idKind === 'int' ? 'N' : 'S';
    const value = isPlainObject(startKey) && Object.keys(startKey).length === 1 && isPlainObject(startKey.id) && Object.keys(startKey.id).length === 1
      ? startKey.id[type] : undefined;
    if (typeof value !== 'string') throw dynamoError(DYNAMODB_VALIDATION, 'The provided starting key is invalid: The provided key element does not match the schema');
    startingAfter = value;
  }
  return { body, limit: Math.min(limit ?? pageSize, maxLimit), startingAfter };
}

/**
 * Reads a parsed notes-gen `manifest.json` (Fixtures/README.md) into the page list:
 * `{file, cursor, nextCursor, items: [start, end], notes}` per page, `notes` the page's note count or
 * null where the entry has none that is a count (then only the page itself can tell). Throws ManifestError.
 */
export function readManifest(manifest) {
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== 'notes-gen/1') {
    throw new ManifestError("manifest.json: 'format' is not \"notes-gen/1\"");
  }
  if (!Array.isArray(manifest.pages) || manifest.pages.length === 0) {
    throw new ManifestError("manifest.json: 'pages' must be a non-empty array");
  }
  return manifest.pages.map((entry, i) => {
    const where = `manifest.json: pages[${i}]`;
    if (entry === null || typeof entry !== 'object') throw new ManifestError(`${where} is not an object`);
    const { file, cursor, next_cursor: nextCursor, items } = entry;
    if (typeof file !== 'string' || path.isAbsolute(file) || path.normalize(file).split(path.sep).includes('..')) {
      throw new ManifestError(`${where}.file must be a path inside the directory`);
    }
    if (!(cursor === null || typeof cursor === 'string') || !(nextCursor === null || typeof nextCursor === 'string')) {
      throw new ManifestError(`${where}: cursor and next_cursor must be strings or null`);
    }
    if (!Array.isArray(items) || items.length !== 2 || !items.every(Number.isSafeInteger) || !(items[0] >= 0 && items[0] < items[1])) {
      throw new ManifestError(`${where}.items must be a byte range [start, end)`);
    }
    const notes = Number.isSafeInteger(entry.notes) && entry.notes >= 0 ? entry.notes : null;
    return { file, cursor, nextCursor, items: [items[0], items[1]], notes };
  });
}

/**
 * Checks that the pages form one chain (the first has no cursor, each names the next one's cursor, the
 * last names none, no cursor repeats) and returns the map from cursor to page index.
 */
export function indexPages(pages) {
  const byCursor = new Map();
  pages.forEach((page, i) => {
    if (i === 0 ? page.cursor !== null : typeof page.cursor !== 'string') {
      throw new ManifestError(`page ${i + 1}: ${i === 0 ? 'the first page must have cursor null' : 'cursor must be a string'}`);
    }
    const expected = pages[i + 1]?.cursor ?? null;
    if (page.nextCursor !== expected) throw new ManifestError(`page ${i + 1}: next_cursor does not name page ${i + 2}`);
    if (i > 0) {
      if (byCursor.has(page.cursor)) throw new ManifestError(`page ${i + 1}: cursor repeats page ${byCursor.get(page.cursor) + 1}'s`);
      byCursor.set(page.cursor, i);
    }
  });
  return byCursor;
}

/** Checks that `items` spans a JSON array in a loaded page body; throws ManifestError. */
export function checkItems(body, [start, end], what) {
  if (end > body.length || body[start] !== 0x5b || body[end - 1] !== 0x5d) {
    throw new ManifestError(`${what}: items [${start}, ${end}) is not the notes array`);
  }
}

// MARK: - Envelopes

/** The absolute URL of the page that `cursor` requests (null: the first page), with `carried` query pairs. */
export function pageUrl(base, cursor, carried = []) {
  return notesUrl(base, cursor === null ? carried : [['cursor', cursor], ...carried]);
}

/** The absolute URL of /notes with these query pairs, values percent-encoded. */
export function notesUrl(base, pairs) {
  const query = pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
  return `${base}/notes${query ? `?${query}` : ''}`;
}

/** An RFC 8288 Link field value: `<url>; rel="next", ...`. */
export function formatLinkHeader(links) {
  return links.map(({ url, rel }) => `<${url}>; rel="${rel}"`).join(', ');
}

/**
 * Wraps a page's notes array (`items`, a list of parts, see partsLength) in an envelope.
 * `nav` holds `nextCursor` and the absolute `nextUrl` and `prevUrl` (null where there is none):
 *   contract  {"notes":[…],"next_cursor":"…"|null}
 *   drf       {"next":url|null,"previous":url|null,"results":[…]}   (Django REST framework)
 *   link      […] with `Link: <prev>; rel="prev", <next>; rel="next"` (GitHub; no next on the last page)
 *   header    {"notes":[…]} with `X-Next-Cursor: C` (none on the last page)
 * The list styles also use `count`, `totalPages` and `totalHeader` (the announced totals, null for
 * none), `lastUrl` (page: the Link rel="last", null for none) and `hasMore` (keyset):
 *   offset    {"count":N,"next":url|null,"previous":url|null,"results":[…]}   (DRF LimitOffsetPagination)
 *   page      {"count":N,"total_pages":T,"next":…,"previous":…,"results":[…]}
 *             with `Link: <next>; rel="next", <last>; rel="last"`
 *   keyset    {"object":"list","data":[…],"has_more":bool,"url":"/notes"}     (Stripe)
 * offset and page send `X-Total-Count: N` when `totalHeader` is set. `drf` starts with `"count":N`
 * when `count` is set (with --id-kind int: DRF's PageNumberPagination). And, with `links` ({first,
 * last, next, prev}, each a URL or null; a null `last` is left out) and `page`, `pages`, `count` (the
 * last two null for none):
 *   jsonapi   {"links":{"first":…,"last":…,"next":…,"prev":…},"data":[…],"meta":{"pagination":{"page":P,"pages":K,"count":N}}}
 *             with `Content-Type: application/vnd.api+json` (djangorestframework-jsonapi)
 * And, for the Notion-style POST query, with `nextCursor` and `hasMore`:
 *   notion    {"object":"list","results":[…],"next_cursor":"…"|null,"has_more":bool,"type":"page_database"}
 * The styles of real servers (REAL_STYLES), each with the members of `nav` it names (null: left out):
 *   next-page     {"data":[…]} with `Next-Page: nextUrl` and `Total-Records: totalHeader`         (Kinto)
 *   ogc           {"type":"FeatureCollection","features":[…],"numberMatched":numberMatched,
 *                 "numberReturned":returned,"links":links} as application/geo+json           (pygeoapi)
 *   x-pagination  […] with `X-Pagination: pagination`                                  (flask-smorest)
 *   page-echo     {"items":[…],"page_size":limit,"current_page":page,"total_pages":totalPages} (Litestar)
 *   offset-echo   {"items":[…],"limit":limit,"offset":offset,"total":total}                  (Litestar)
 *   eve           {"_items":[…],"_links":links,"_meta":meta} with `X-Total-Count: totalHeader`   (Eve)
 *   dynamodb      {"Count":count,"Items":[…],"ScannedCount":count,"LastEvaluatedKey":lastEvaluatedKey}
 *                 as application/x-amz-json-1.0                                         (DynamoDB, moto)
 * Returns the extra headers and the body parts.
 */
export function wrapPage(style, items, nav) {
  switch (style) {
    case 'contract':
      return {
        headers: {},
        parts: [Buffer.from('{"notes":'), ...items, Buffer.from(`,"next_cursor":${JSON.stringify(nav.nextCursor)}}`)],
      };
    case 'drf': {
      const count = (nav.count ?? null) === null ? '' : `"count":${nav.count},`;
      return {
        headers: {},
        parts: [Buffer.from(`{${count}"next":${JSON.stringify(nav.nextUrl)},"previous":${JSON.stringify(nav.prevUrl)},"results":`), ...items, Buffer.from('}')],
      };
    }
    case 'link': {
      const links = [{ rel: 'prev', url: nav.prevUrl }, { rel: 'next', url: nav.nextUrl }].filter((l) => l.url !== null);
      return { headers: links.length ? { Link: formatLinkHeader(links) } : {}, parts: items };
    }
    case 'header':
      return {
        headers: nav.nextCursor === null ? {} : { 'X-Next-Cursor': nav.nextCursor },
        parts: [Buffer.from('{"notes":'), ...items, Buffer.from('}')],
      };
    case 'offset': case 'page': {
      const counts = [];
      if (nav.count !== null) counts.push(`"count":${nav.count},`);
      if (style === 'page' && nav.totalPages !== null) counts.push(`"total_pages":${nav.totalPages},`);
      const headers = {};
      if (nav.totalHeader !== null) headers['X-Total-Count'] = String(nav.totalHeader);
      if (style === 'page') {
        const links = [{ rel: 'next', url: nav.nextUrl }, { rel: 'last', url: nav.lastUrl }].filter((l) => l.url !== null);
        if (links.length) headers.Link = formatLinkHeader(links);
      }
      return {
        headers,
        parts: [Buffer.from(`{${counts.join('')}"next":${JSON.stringify(nav.nextUrl)},"previous":${JSON.stringify(nav.prevUrl)},"results":`), ...items, Buffer.from('}')],
      };
    }
    case 'keyset':
      return {
        headers: {},
        parts: [Buffer.from('{"object":"list","data":'), ...items, Buffer.from(`,"has_more":${nav.hasMore},"url":"/notes"}`)],
      };
    case 'jsonapi': {
      const { first, last, next, prev } = nav.links;
      const links = last === null ? { first, next, prev } : { first, last, next, prev };
      const pagination = { page: nav.page };
      if (nav.pages !== null) pagination.pages = nav.pages;
      if (nav.count !== null) pagination.count = nav.count;
      return {
        headers: { 'Content-Type': JSONAPI_TYPE },
        parts: [Buffer.from(`{"links":${JSON.stringify(links)},"data":`), ...items, Buffer.from(`,"meta":${JSON.stringify({ pagination })}}`)],
      };
    }
    case 'notion':
      return {
        headers: {},
        parts: [
          Buffer.from('{"object":"list","results":'),
          ...items,
          Buffer.from(`,"next_cursor":${JSON.stringify(nav.nextCursor)},"has_more":${nav.hasMore},"type":"page_database"}`),
        ],
      };
    case 'next-page': {
      const headers = {};
      if (nav.nextUrl !== null) headers['Next-Page'] = nav.nextUrl;
      if (nav.totalHeader !== null) headers['Total-Records'] = String(nav.totalHeader);
      return { headers, parts: [Buffer.from('{"data":'), ...items, Buffer.from('}')] };
    }
    case 'ogc': {
      const matched = nav.numberMatched === null ? '' : `"numberMatched":${nav.numberMatched},`;
      return {
        headers: { 'Content-Type': 'application/geo+json' },
        parts: [
          Buffer.from('{"type":"FeatureCollection","features":'),
          ...items,
          Buffer.from(`,${matched}"numberReturned":${nav.returned},"links":${JSON.stringify(nav.links)}}`),
        ],
      };
    }
    case 'x-pagination':
      return { headers: nav.pagination === null ? {} : { 'X-Pagination': nav.pagination }, parts: items };
    case 'page-echo': {
      const pages = nav.totalPages === null ? '' : `,"total_pages":${nav.totalPages}`;
      return { headers: {}, parts: [Buffer.from('{"items":'), ...items, Buffer.from(`,"page_size":${nav.limit},"current_page":${nav.page}${pages}}`)] };
    }
    case 'offset-echo': {
      const total = nav.total === null ? '' : `,"total":${nav.total}`;
      return { headers: {}, parts: [Buffer.from('{"items":'), ...items, Buffer.from(`,"limit":${nav.limit},"offset":${nav.offset}${total}}`)] };
    }
    case 'eve':
      return {
        headers: nav.totalHeader === null ? {} : { 'X-Total-Count': String(nav.totalHeader) },
        parts: [Buffer.from('{"_items":'), ...items, Buffer.from(`,"_links":${JSON.stringify(nav.links)},"_meta":${JSON.stringify(nav.meta)}}`)],
      };
    case 'dynamodb': {
      const last = nav.lastEvaluatedKey === null ? '' : `,"LastEvaluatedKey":${JSON.stringify(nav.lastEvaluatedKey)}`;
      return {
        headers: { 'Content-Type': DYNAMODB_TYPE },
        parts: [Buffer.from(`{"Count":${nav.count},"Items":`), ...items, Buffer.from(`,"ScannedCount":${nav.count}${last}}`)],
      };
    }
    default:
      throw new Error(`unknown style ${style}`);
  }
}

// MARK: - GraphQL connections and the Notion-style query

/** The notes a GraphQL connection gives without `first`, and the most it gives: GitHub's rules. */
export const GRAPHQL_DEFAULT_FIRST = 10;
export const GRAPHQL_MAX_FIRST = 100;
/** The message of the `graphql-error` fault, GitHub's for a query that failed on its side. */
export const GRAPHQL_ERROR_MESSAGE = 'Something went wrong while executing your query.';

const GRAPHQL_REQUEST_SHAPE = 'a GraphQL request is a JSON object {"query": "...", "variables": {...}, "operationName": "..."}';

/**
 * Reads the body of a GraphQL-over-HTTP POST: a JSON object with a non-empty `query` string, and
 * optionally `variables` (an object or null) and `operationName` (a string or null); other members
 * (`extensions`) are ignored. Returns `{query, variables, operationName}` (null for the absent ones);
 * throws UsageError, whose message the server answers with in a 400.
 */
export function parseGraphQLRequest(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UsageError(`the body is not JSON: ${GRAPHQL_REQUEST_SHAPE}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new UsageError(`the body is not a JSON object: ${GRAPHQL_REQUEST_SHAPE}`);
  const { query, variables = null, operationName = null } = body;
  if (typeof query !== 'string' || query.trim() === '') throw new UsageError(`the body has no query: ${GRAPHQL_REQUEST_SHAPE}`);
  if (variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) throw new UsageError("'variables' must be a JSON object");
  if (operationName !== null && typeof operationName !== 'string') throw new UsageError("'operationName' must be a string");
  return { query, variables, operationName };
}

/**
 * The cursor of the note at `position` (0-based) in a GraphQL connection, as graphql-relay's
 * connectionFromArray writes it: standard base64 of `arrayconnection:<position>`.
 */
export function relayCursor(position) {
  return Buffer.from(`arrayconnection:${position}`).toString('base64');
}

/** The position a relayCursor names, or null for a string that is not one, written exactly so. */
export function relayPosition(cursor) {
  const match = /^arrayconnection:(0|[1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64').toString('latin1'));
  if (!match) return null;
  const position = Number(match[1]);
  return relayCursor(position) === cursor ? position : null;
}

/**
 * The notes that `field(first: F, after: C)` gets out of `length`: `{start, end, size, page}`, positions
 * [start, end), `size` the notes asked for (F, default 10) cut to `maxLimit` (--max-limit, silently),
 * `page` the 1-based page number that faults' @PAGE name: floor(start / size) + 1 (as offset style
 * counts, a size of 0 as 1). `after` must be the cursor of one of the notes, and the page starts after
 * it. Throws an Error with GitHub's message for F over 100 or below 0, or an unknown cursor (a resolver
 * that throws gives `{"data": null, "errors": [{"message": …, "path": […]}]}`).
 */
export function connectionSlice({ first = null, after = null }, length, { field = 'notes', maxLimit = Infinity } = {}) {
  const asked = first ?? GRAPHQL_DEFAULT_FIRST;
  if (asked < 0) throw new Error(`\`first\` on the \`${field}\` connection cannot be less than zero.`);
  if (asked > GRAPHQL_MAX_FIRST) {
    throw new Error(`Requesting ${asked} records on the \`${field}\` connection exceeds the \`first\` limit of ${GRAPHQL_MAX_FIRST} records.`);
  }
  let start = 0;
  if (after !== null) {
    const position = relayPosition(after);
    if (position === null || position >= length) throw new Error(`\`${after}\` does not appear to be a valid cursor.`);
    start = position + 1;
  }
  const size = Math.min(asked, maxLimit);
  return { start, end: Math.min(length, start + size), size, page: Math.floor(start / Math.max(size, 1)) + 1 };
}

/**
 * The cursors of a connection page (a connectionSlice of `length` notes) and its pageInfo, as GitHub
 * writes them: `endCursor` the last edge's cursor (null on an empty page; the last page keeps it, with
 * hasNextPage false), `hasPreviousPage` whether notes come before. With the faults:
 *   cycle    (graphql-cycle, on a page after the first) endCursor is the cursor that asked for this
 *            page, page N-1's endCursor, and hasNextPage true: the walk comes back here for ever;
 *   endless  (graphql-endless) hasNextPage is true; a page past the last note names the cursor that
 *            asked for it as its endCursor, so the walk asks for the same empty page again and again.
 */
export function connectionPage({ start, end }, length, { cycle = false, endless = false } = {}) {
  const cursors = [];
  for (let p = start; p < end; p++) cursors.push(relayCursor(p));
  let endCursor = cursors.at(-1) ?? null;
  let hasNextPage = end < length;
  const asking = start > 0 ? relayCursor(start - 1) : null; // the `after` of this page
  if (cycle && start > 0) {
    endCursor = asking;
    hasNextPage = true;
  } else if (endless) {
    hasNextPage = true;
    if (cursors.length === 0) endCursor = asking;
  }
  return { cursors, pageInfo: { hasNextPage, hasPreviousPage: start > 0, startCursor: cursors[0] ?? null, endCursor } };
}

/** The page size of the Notion-style query without `page_size`, and the largest it takes (Notion's). */
export const NOTION_PAGE_SIZE = 100;

/**
 * A request to the Notion-style query that Notion would refuse: its status, error code and message,
 * and the body as read (undefined when it is no JSON), for the log.
 */
export class NotionError extends Error {
  constructor(status, code, message, body = undefined) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/** Notion's error object: `{"object":"error","status":400,"code":"validation_error","message":…}`. */
export function notionErrorBody(status, code, message) {
  return { object: 'error', status, code, message };
}

// A value as Notion's validation messages quote it: JSON between backquotes.
const quoted = (value) => `\`${value === undefined ? 'undefined' : JSON.stringify(value)}\``;

/**
 * Reads the body of a Notion-style database query: a JSON object (or nothing at all) with
 * `start_cursor` (a string; absent on the first page) and `page_size` (an integer 1-100, default 100);
 * other members (`filter`, `sorts`) are ignored. Returns `{body, startCursor, pageSize}` (`body` the
 * object read, `startCursor` null when absent); throws NotionError: `invalid_json`, or
 * `validation_error` with a message in Notion's words (and the body read).
 */
export function parseNotionQuery(text) {
  let body = {};
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      throw new NotionError(400, 'invalid_json', 'Error parsing JSON body.');
    }
  }
  const invalid = (what) => new NotionError(400, 'validation_error', `body failed validation: ${what}.`, body);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid(`body should be an object, instead was ${quoted(body)}`);
  const { start_cursor: startCursor, page_size: pageSize } = body;
  if (startCursor !== undefined && typeof startCursor !== 'string') {
    throw invalid(`body.start_cursor should be a string or \`undefined\`, instead was ${quoted(startCursor)}`);
  }
  if (pageSize !== undefined) {
    const problem = typeof pageSize !== 'number' ? 'should be a number or `undefined`'
      : !Number.isInteger(pageSize) ? 'should be an integer'
        : pageSize < 1 ? 'should be greater than or equal to `1`'
          : pageSize > NOTION_PAGE_SIZE ? `should be less than or equal to \`${NOTION_PAGE_SIZE}\`` : null;
    if (problem) throw invalid(`body.page_size ${problem}, instead was ${quoted(pageSize)}`);
  }
  return { body, startCursor: startCursor ?? null, pageSize: pageSize ?? NOTION_PAGE_SIZE };
}

/**
 * The cursor of the Notion-style page that starts at note `position` (0-based, under 2^48): shaped as
 * Notion's, a version 4 UUID, its last group the position in hex, the rest drawn from it.
 */
export function notionCursor(position) {
  const hex = createHash('sha256').update(`notes-server notion cursor ${position}`).digest('hex');
  const variant = '89ab'[parseInt(hex[16], 16) % 4];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${position.toString(16).padStart(12, '0')}`;
}

/** The position a notionCursor names, or null for a string that is not one, written exactly so. */
export function notionPosition(cursor) {
  const match = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-([0-9a-f]{12})$/.exec(cursor);
  if (!match) return null;
  const position = parseInt(match[1], 16);
  return notionCursor(position) === cursor ? position : null;
}

/**
 * The notes that a parsed Notion-style query (parseNotionQuery) gets out of `length`: `{start, end,
 * size, page}` as connectionSlice's, `size` the page_size cut to `maxLimit` (--max-limit, silently).
 * A start_cursor must name a page after the first, as a next_cursor did; otherwise NotionError.
 */
export function notionSlice({ startCursor, pageSize }, length, { maxLimit = Infinity } = {}) {
  let start = 0;
  if (startCursor !== null) {
    const position = notionPosition(startCursor);
    if (position === null || position < 1 || position >= length) {
      throw new NotionError(400, 'validation_error', `The start_cursor provided is invalid: ${startCursor}`);
    }
    start = position;
  }
  const size = Math.min(pageSize, maxLimit);
  return { start, end: Math.min(length, start + size), size, page: Math.floor(start / size) + 1 };
}

/**
 * The next_cursor of a Notion-style page (a notionSlice of `length` notes): the cursor of the page that
 * follows, or null after the last; with `cycle` (the `cycle` fault, on a page after the first) page 2's.
 */
export function notionNextCursor({ start, end, size }, length, cycle = false) {
  if (cycle && start > 0) return notionCursor(size);
  return end < length ? notionCursor(end) : null;
}

// MARK: - Body parts

// A body is a list of parts: Buffers, and `{fill, length}` for `length` bytes repeating the Buffer
// `fill`, so that a multi-megabyte title or a deep nesting is streamed, never held in memory.

/** A part of `length` bytes repeating `text`. */
export function fill(text, length) {
  return { fill: Buffer.from(text), length };
}

export function partsLength(parts) {
  return parts.reduce((sum, part) => sum + part.length, 0);
}

/** The bytes of `parts` as Buffers of at most `size` bytes, in order. */
export function* chunks(parts, size) {
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      for (let at = 0; at < part.length; at += size) yield part.subarray(at, at + size);
      continue;
    }
    // One repeated block at least `size` long (and a whole number of patterns) serves every chunk.
    const block = Buffer.from(part.fill.toString('latin1').repeat(Math.ceil(size / part.fill.length) + 1), 'latin1');
    for (let at = 0; at < part.length; at += size) {
      const offset = at % part.fill.length;
      yield block.subarray(offset, offset + Math.min(size, part.length - at));
    }
  }
}

// MARK: - Compression, bombs and rate limits

/**
 * The content coding to answer with: the one of `offered` (server order) that `acceptEncoding` (the
 * request header, or undefined) weighs highest, or null for none. A coding is weighed by its own entry,
 * else by `*`, else not accepted; `q=0` refuses it; ties go to the earlier in `offered`. Names are
 * case-insensitive and `x-gzip` is gzip. Without the header nothing is compressed, as real servers do.
 */
export function chooseEncoding(acceptEncoding, offered) {
  if (typeof acceptEncoding !== 'string' || offered.length === 0) return null;
  const weights = new Map();
  for (const item of acceptEncoding.split(',')) {
    const [name, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!/^(?:[a-z0-9!#$%&'*+.^_`|~-]+)$/.test(name)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const weight = /^q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.exec(param);
      if (weight) q = Number(weight[1]);
      else if (/^q\s*=/.test(param)) valid = false;
    }
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (valid && !weights.has(coding)) weights.set(coding, q);
  }
  let best = null;
  let bestQ = 0;
  for (const coding of offered) {
    const q = weights.get(coding) ?? weights.get('*') ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/** The title of every note of a `bomb`: one long run of one byte, so that it compresses to almost nothing. */
export const BOMB_TITLE_BYTES = 65_000;

/**
 * The body a `bomb` inflates to, as Buffers of at most `chunkBytes`: exactly `bytes` bytes of a notes
 * array that never ends, `{"notes":[{"id":"bomb0","title":"zzz…"},{"id":"bomb1",…` (ids counting up,
 * titles of BOMB_TITLE_BYTES `z`s), cut wherever `bytes` runs out. Made as it is read, never held.
 */
export function* bombChunks(bytes, chunkBytes = 1 << 20) {
  const title = Buffer.alloc(BOMB_TITLE_BYTES, 'z');
  const close = Buffer.from('"}');
  let left = bytes;
  let chunk = Buffer.allocUnsafe(Math.min(chunkBytes, left));
  let at = 0;
  function* put(part) {
    for (let from = 0; from < part.length && left > 0;) {
      const n = Math.min(part.length - from, chunk.length - at);
      part.copy(chunk, at, from, from + n);
      at += n;
      from += n;
      left -= n;
      if (at === chunk.length) {
        yield chunk;
        chunk = Buffer.allocUnsafe(Math.min(chunkBytes, left));
        at = 0;
      }
    }
  }
  yield* put(Buffer.from('{"notes":['));
  for (let i = 0; left > 0; i++) {
    yield* put(Buffer.from(`${i === 0 ? '' : ','}{"id":"bomb${i}","title":"`));
    yield* put(title);
    yield* put(close);
  }
}

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

// MARK: - Content faults

const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, COMMA = 0x2c;
const OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d;
const ID_KEY = Buffer.from('"id"');
const TITLE_KEY = Buffer.from('"title"');
const ATTRIBUTES_KEY = Buffer.from('"attributes"');

/**
 * Finds the notes of a JSON array (the bytes of a page's `items` range) without decoding them:
 * per element, its byte range, whether it is an object with members, and the ranges of the values
 * of its `"id"` and `"title"` members (keys written without escapes), or null; a title may also be a
 * member of an `"attributes"` object member, as in a JSON:API resource object. The id member is
 * `idKey` (`_id` in Eve's notes). Works on bytes, since every JSON delimiter is ASCII and UTF-8 never
 * repeats an ASCII byte inside a multi-byte character. Throws on input that is not a well-formed array.
 */
export function scanNotes(items, idKey = 'id') {
  const idKeyBytes = idKey === 'id' ? ID_KEY : Buffer.from(JSON.stringify(idKey));
  let at = 0;
  const fail = (what) => { throw new Error(`scanNotes: ${what} at byte ${at}`); };
  const space = () => { while (at < items.length && (items[at] === 0x20 || items[at] === 0x0a || items[at] === 0x0d || items[at] === 0x09)) at++; };
  const expect = (byte) => {
    if (items[at] !== byte) fail(`expected '${String.fromCharCode(byte)}'`);
    at++;
  };
  const skipString = () => {
    expect(QUOTE);
    while (items[at] !== QUOTE) {
      if (at >= items.length) fail('unterminated string');
      at += items[at] === BACKSLASH ? 2 : 1;
    }
    at++;
  };
  // Skips any value; containers by counting depth, so that deep nesting needs no recursion.
  const skipValue = () => {
    const open = items[at];
    if (open === QUOTE) return skipString();
    if (open !== OPEN_OBJECT && open !== OPEN_ARRAY) {
      const start = at;
      while (at < items.length && !' \t\r\n,]}:'.includes(String.fromCharCode(items[at]))) at++;
      if (at === start) fail('expected a value');
      return;
    }
    let depth = 0;
    do {
      const byte = items[at];
      if (at >= items.length) fail('unterminated container');
      if (byte === QUOTE) { skipString(); continue; }
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
      else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
      at++;
    } while (depth > 0);
  };

  // Reads the object at `at`, calling `visit(key, valueStart)` at each member's value, which `visit`
  // must read; returns the number of members.
  const members = (visit) => {
    let count = 0;
    expect(OPEN_OBJECT);
    space();
    while (items[at] !== CLOSE_OBJECT) {
      if (count > 0) { expect(COMMA); space(); }
      const keyStart = at;
      skipString();
      const key = items.subarray(keyStart, at);
      space();
      expect(COLON);
      space();
      visit(key, at);
      count++;
      space();
    }
    at++;
    return count;
  };

  const notes = [];
  space();
  expect(OPEN_ARRAY);
  space();
  if (items[at] === CLOSE_ARRAY) return notes;
  for (;;) {
    space();
    const note = { start: at, end: 0, object: items[at] === OPEN_OBJECT, members: 0, id: null, title: null };
    if (note.object) {
      note.members = members((key, valueStart) => {
        if (key.equals(ATTRIBUTES_KEY) && items[at] === OPEN_OBJECT) {
          members((inner, innerStart) => {
            skipValue();
            if (inner.equals(TITLE_KEY)) note.title = [innerStart, at];
          });
          return;
        }
        skipValue();
        if (key.equals(idKeyBytes)) note.id = [valueStart, at];
        else if (key.equals(TITLE_KEY)) note.title = [valueStart, at];
      });
    } else {
      skipValue();
    }
    note.end = at;
    notes.push(note);
    space();
    if (items[at] === CLOSE_ARRAY) return notes;
    expect(COMMA);
  }
}

/** The raw JSON token of the first note's id (member `idKey`) in a notes array (e.g. `"n0"`), or null. */
export function firstNoteId(items, idKey = 'id') {
  const first = scanNotes(items, idKey)[0];
  return first?.id ? items.subarray(...first.id) : null;
}

/**
 * Applies the content faults that alter a page's notes array and returns it as body parts:
 *   duplicate-id  the last note's id becomes `firstId`, the raw id token of page 1's first note;
 *   huge-title    the first note's title becomes `bytes` bytes of ASCII text;
 *   deep          the first note gains a leading member "deep" of `depth` nested arrays.
 * (`cycle` changes the next cursor, not the notes.) A fault with nothing to act on leaves the notes
 * as they are: no notes, a first note without a title or that is not an object, no `firstId`. The id
 * member is `idKey` (`_id` in Eve's notes).
 */
export function applyContentFaults(items, faults, firstId, idKey = 'id') {
  const notes = scanNotes(items, idKey);
  const first = notes[0];
  const last = notes.at(-1);
  const edits = [];
  for (const fault of faults) {
    if (fault.kind === 'duplicate-id' && last?.id && firstId) {
      edits.push({ start: last.id[0], end: last.id[1], parts: [firstId] });
    } else if (fault.kind === 'huge-title' && first?.title) {
      edits.push({ start: first.title[0], end: first.title[1], parts: [Buffer.from('"'), fill('huge title ', fault.bytes), Buffer.from('"')] });
    } else if (fault.kind === 'deep' && first?.object) {
      const at = first.start + 1;
      edits.push({ start: at, end: at, parts: [Buffer.from('"deep":'), fill('[', fault.depth), fill(']', fault.depth), Buffer.from(first.members ? ',' : '')] });
    }
  }
  edits.sort((a, b) => a.start - b.start);
  const parts = [];
  let at = 0;
  for (const edit of edits) {
    parts.push(items.subarray(at, edit.start), ...edit.parts);
    at = edit.end;
  }
  parts.push(items.subarray(at));
  return parts;
}

// MARK: - Page cache

/**
 * Keeps recently used pages, evicting the least recently used once their bytes pass `capacity`
 * (the page just loaded always stays). Concurrent requests for a page share one load.
 */
export class PageCache {
  constructor(capacity) {
    this.capacity = capacity;
    this.size = 0;
    this.pages = new Map(); // index -> page, least recently used first
    this.loading = new Map(); // index -> Promise<page>
  }

  async get(index, load) {
    const cached = this.pages.get(index);
    if (cached) {
      this.pages.delete(index);
      this.pages.set(index, cached);
      return cached;
    }
    if (!this.loading.has(index)) {
      this.loading.set(index, (async () => {
        try {
          const page = await load(index);
          this.pages.set(index, page);
          this.size += page.body.length;
          for (const [old, oldPage] of this.pages) {
            if (this.size <= this.capacity || old === index) break;
            this.pages.delete(old);
            this.size -= oldPage.body.length;
          }
          return page;
        } finally {
          this.loading.delete(index);
        }
      })());
    }
    return this.loading.get(index);
  }
}

// MARK: - Log redaction

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
