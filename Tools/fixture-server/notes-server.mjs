#!/usr/bin/env node
// notes-server: serves paginated notes over HTTP for client tests, from a notes-gen directory or
// generated in memory, in the common pagination styles (cursor, offset, page number, keyset, cursor
// header, JSON:API) and as real servers page (Kinto, pygeoapi, flask-smorest, Litestar, Eve, DynamoDB),
// as GraphQL connections (POST /graphql) and as a Notion-style database query (POST
// /v1/databases/notes/query), with faults injected by flag or per request; and with --repos, a
// GitHub-shaped nested API of repos, issues and comments at /repos. See Tools/README.md, or run with
// --help. Built-in modules only, and for /graphql graphql-js from Debian's node-graphql, loaded when
// the first GraphQL request comes (without it /graphql answers 501 and the rest works as ever).
//
// This file reads the command line and starts the listeners; server/routing.mjs answers the requests.

import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { UsageError } from './shared/errors.mjs';
import { readToken } from './faults/auth.mjs';
import { faultProblem, styleProblem } from './faults/grammar.mjs';
import { ManifestError } from './notes/directory.mjs';
import { NestedData } from './notes/nested.mjs';
import { PageCache } from './notes/page-cache.mjs';
import { UpdatingNotes } from './notes/updates.mjs';
import { log } from './server/log.mjs';
import { parseArgs } from './server/options.mjs';
import { connectionKey, handle, requests } from './server/routing.mjs';
import {
  EXIT_DATA, EXIT_NO_INPUT, EXIT_USAGE, Fatal, generatedSource, listen, loadFixtures, openDirectory, readCredentials,
} from './server/startup.mjs';
import { USAGE } from './server/usage.mjs';

const SHUTDOWN_GRACE_MS = 1000;

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
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
    const inStyle = styleProblem(fault, options.style, options.idKind ?? 'string');
    const problem = faultProblem(fault, { fixtures, hasToken: token !== null, pageCount: source.pages.length })
      ?? (inStyle && `with --style ${options.style}: ${inStyle}`);
    if (problem) throw new Fatal(EXIT_USAGE, problem);
  }

  const cache = new PageCache(options.cacheMiB * 1024 * 1024);
  // Page 1 is loaded now so that a broken directory fails at start-up, not on the first request.
  try {
    await cache.get(0, source.load);
  } catch (error) {
    throw new Fatal(error instanceof ManifestError ? EXIT_DATA : EXIT_NO_INPUT, `cannot serve page 1: ${error.message}`);
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
    updates: options.updates ? new UpdatingNotes(options.count, options.seed, options.idKind, !options.noTitles) : null,
    updateCursors: new Map(),
    // --repos: the repos, issues and comments of the nested API at /repos, or null (then /repos is a 404).
    nested: options.repos > 0
      ? new NestedData(options.repos, options.issues, options.comments, options.seed, options.fixed, options.createdRound) : null,
    nestedLatencyMs: options.latency, // --latency: no response under /repos leaves sooner after its request arrived
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
  const nested = state.nested ? `; ${options.repos} repos at /repos (issues ${options.issues}, comments ${options.comments} `
    + `${options.fixed ? 'each' : 'on average'}${options.latency > 0 ? `, latency ${options.latency} ms` : ''}`
    + `${options.createdRound > 1 ? `, created rounded to ${options.createdRound} s` : ''})` : '';
  log(state, `notes-server: ${source.description}, ${source.pages.length} pages, style ${options.style}${nested}; `
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

main().catch((error) => {
  if (!(error instanceof Fatal)) throw error;
  process.stderr.write(`Error: ${error.message}\n`);
  process.exit(error.status);
});
