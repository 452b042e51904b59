// The command line: each flag and its value, and the rules between flags (see usage.mjs).

import { parseInteger, parseSignedInteger, UsageError } from '../shared/errors.mjs';
import { parseFaultList } from '../faults/grammar.mjs';
import { ID_KINDS } from '../notes/generated.mjs';
import { updatesStyleProblem } from '../notes/updates.mjs';
import { LIST_STYLES, listStyleNeedsCount, parseStyle, parseTotals, TOTALS } from '../styles/catalog.mjs';
import { parseCompress } from './compression.mjs';

const VALUE_FLAGS = new Set([
  '--dir', '--count', '--page-size', '--seed', '--host', '--port', '--style', '--fault',
  '--token-file', '--fixtures', '--cache-mb', '--max-limit', '--totals', '--total-lie',
  '--tls-cert', '--tls-key', '--url-host', '--compress', '--id-kind', '--repos', '--issues', '--comments', '--latency',
  '--created-round',
]);

// The flags of generated notes only; a --dir run refuses them.
const COUNT_FLAGS = [
  ['--page-size', 'pageSize'], ['--seed', 'seed'], ['--max-limit', 'maxLimit'], ['--totals', 'totals'], ['--total-lie', 'totalLie'],
  ['--id-kind', 'idKind'],
];

// --repos' largest N, and the largest average of --issues and --comments.
const MAX_REPOS = 100_000;

const MAX_AVERAGE = 1000;

// --latency's largest wait, in ms (a minute).
const MAX_LATENCY_MS = 60_000;

// --created-round's largest step, in seconds (a year of 365 days).
const MAX_CREATED_ROUND_S = 31_536_000;

const BOOLEAN_FLAGS = { '--quiet': 'quiet', '--help': 'help', '--http2': 'http2', '--updates': 'updates', '--no-titles': 'noTitles', '--fixed': 'fixed' };

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
    repos: null, issues: null, comments: null, fixed: false, latency: null, createdRound: null,
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
      case '--repos': options.repos = parseInteger(value, flag, 0, MAX_REPOS); break;
      case '--issues': options.issues = parseInteger(value, flag, 0, MAX_AVERAGE); break;
      case '--comments': options.comments = parseInteger(value, flag, 0, MAX_AVERAGE); break;
      case '--latency': options.latency = parseInteger(value, flag, 0, MAX_LATENCY_MS); break;
      case '--created-round': options.createdRound = parseInteger(value, flag, 1, MAX_CREATED_ROUND_S); break;
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
  if (options.repos === null && (options.issues !== null || options.comments !== null)) {
    throw new UsageError('--issues and --comments go with --repos N');
  }
  if (options.repos === null && (options.fixed || options.latency !== null)) {
    throw new UsageError('--fixed and --latency go with --repos N');
  }
  if (options.repos === null && options.createdRound !== null) throw new UsageError('--created-round goes with --repos N');
  options.repos ??= 0;
  options.latency ??= 0;
  options.createdRound ??= 1;
  options.issues ??= 4;
  options.comments ??= 3;
  if (options.dir !== null) {
    // --seed seeds the nested API's data too, so --dir takes it with --repos.
    const given = COUNT_FLAGS.filter(([flag, name]) => options[name] !== null && !(flag === '--seed' && options.repos > 0)).map(([flag]) => flag);
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
  if (options.repos > 0) options.seed ??= 42;
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
