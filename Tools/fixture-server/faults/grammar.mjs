// The fault grammar, KIND[:ARG][@PAGE][xN] (see the usage text), and what keeps a fault from working:
// against this server, in a style, on an endpoint.

import { parseInteger, UsageError } from '../shared/errors.mjs';
import { isListStyle, LIST_STYLES } from '../styles/catalog.mjs';
import { NEXT_REF_CURSOR_KINDS, NEXT_REF_CURSOR_STYLES, NEXT_REF_KINDS, NEXT_REF_STYLES } from './next-ref.mjs';

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
