// The end-to-end tests' harness: the server as a child process on port 0, its URL read from stdout;
// requests over HTTP and HTTPS; walks that follow each cursor and list style's next page. Run with
// `node --test Tools/`; only lower bounds of time are ever asserted.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export const SERVER = fileURLToPath(new URL('../notes-server.mjs', import.meta.url));
export const JSON_TYPE = 'application/json; charset=utf-8';
export const HTML_TYPE = 'text/html; charset=utf-8';
export const JSONAPI_TYPE = 'application/vnd.api+json';

/**
 * Starts the server with `args`; resolves once it has printed its URL (the first line on stdout):
 * `url`, `base` (its origin) and `stop`. NOTES_SERVER_TOKEN is passed on only when `env` has it.
 */
export async function startServer(args, env = {}) {
  const childEnv = { ...process.env, ...env };
  if (!('NOTES_SERVER_TOKEN' in env)) delete childEnv.NOTES_SERVER_TOKEN;
  const child = spawn(process.execPath, [SERVER, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (data) => { stderr += data; });
  const closed = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (data) => {
      stdout += data;
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    closed.then(({ code }) => reject(new Error(`the server exited (${code}) before printing its URL:\n${stderr}`)));
  });
  return {
    url,
    base: url.replace(/\/notes$/, ''),
    /** Signals the server and resolves with its exit code, signal and everything it logged. */
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return { ...(await closed), stderr };
    },
  };
}

/**
 * Runs `use(server)` against a server started with `args`, then stops it, whatever happened: its exit
 * code and its log lines (the start-up line first).
 */
export async function withServer(args, env, use) {
  const server = await startServer(args, env);
  let failure = null;
  try {
    await use(server);
  } catch (error) {
    failure = error;
  }
  const { code, stderr } = await server.stop();
  if (failure) throw failure;
  return { code, lines: stderr.trimEnd().split('\n') };
}

/** Runs the server to its exit, for command-line errors and --help. */
export function runServer(args) {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (data) => { stdout += data; });
  child.stderr.setEncoding('utf8').on('data', (data) => { stderr += data; });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * One HTTP or HTTPS request; resolves with status, headers, the whole body, its JSON (null when it is
 * none) and whether the socket was reused, and rejects when the connection fails or the body ends short.
 * A new connection each time unless an agent is given. `ca` is the certificate authority an HTTPS
 * request trusts; `family: 4` resolves `localhost` to 127.0.0.1; `body` is sent as the request's body.
 */
export function request(url, { method = 'GET', headers = {}, agent = false, ca, family, body } = {}) {
  const client = String(url).startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method, headers, agent, ca, family }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        let json = null;
        try {
          json = JSON.parse(bytes);
        } catch {
          // not JSON: json stays null
        }
        resolve({ status: res.statusCode, headers: res.headers, body: bytes, json, reused: req.reusedSocket });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A GET over a plain socket: every byte the server sends until it closes, headers and body apart. */
export function rawGet(url) {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks = [];
    const socket = net.connect(Number(port), hostname, () => {
      socket.end(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      resolve({ head: all.subarray(0, split).toString(), body: all.subarray(split + 4) });
    });
  });
}

export const json = (res) => JSON.parse(res.body);

/** The fields of a request's log line: `c=` (the connection) and `t=` (ms since start, on arrival). */
export const connectionOf = (line) => Number(/ c=(\d+) t=\d+$/.exec(line)[1]);

export const arrival = (line) => Number(/ t=(\d+)$/.exec(line)[1]);

export const timed = async (promise) => {
  const start = performance.now();
  const result = await promise;
  return { ...result, ms: performance.now() - start };
};

/** The log lines of requests (all but the start-up line). */
export const requestLines = (stderr) => stderr.trimEnd().split('\n').slice(1);

/** The URL of the page `cursor` requests (null: the first page), with extra query text. */
export function pageUrl(base, cursor, extra = '') {
  const query = [cursor === null ? '' : `cursor=${encodeURIComponent(cursor)}`, extra].filter(Boolean).join('&');
  return query ? `${base}?${query}` : base;
}

/** The `rel="next"` target of a Link header, or null. */
export function nextLink(header) {
  for (const [, url, rel] of (header ?? '').matchAll(/<([^>]*)>\s*;\s*rel="([^"]*)"/g)) if (rel === 'next') return url;
  return null;
}

/**
 * Follows a walk from `url` to its last page the way a client of `style` would, and returns each
 * response with its notes: contract and header send the next cursor (in the body, in X-Next-Cursor),
 * drf and offset a `next` URL, link and page a Link rel="next", keyset `has_more` (the next page
 * starts after the last id), and jsonapi `links.next`.
 */
export async function walk(url, style, headers = {}, maxPages = 50) {
  const pages = [];
  while (url !== null) {
    assert.ok(pages.length < maxPages, 'the walk does not end');
    const res = await request(url, { headers });
    assert.equal(res.status, 200, `${url}: ${res.body}`);
    const body = json(res);
    let notes;
    if (style === 'contract') {
      notes = body.notes;
      const next = new URL(url);
      next.searchParams.set('cursor', body.next_cursor);
      url = body.next_cursor === null ? null : next.href;
    } else if (style === 'drf' || style === 'offset') {
      notes = body.results;
      url = body.next;
    } else if (style === 'page') {
      notes = body.results;
      assert.equal(body.next, nextLink(res.headers.link), 'the body and the Link header agree');
      url = nextLink(res.headers.link);
    } else if (style === 'keyset') {
      notes = body.data;
      const next = new URL(url);
      if (body.has_more) next.searchParams.set('starting_after', String(notes.at(-1).id));
      url = body.has_more ? next.href : null;
    } else if (style === 'jsonapi') {
      notes = body.data;
      url = body.links.next;
    } else if (style === 'header') {
      notes = body.notes;
      const cursor = res.headers['x-next-cursor'];
      const next = new URL(url);
      if (cursor !== undefined) next.searchParams.set('cursor', cursor);
      url = cursor === undefined ? null : next.href;
    } else {
      notes = body;
      url = nextLink(res.headers.link);
    }
    pages.push({ res, notes, ids: notes.map((note) => note.id) });
  }
  return pages;
}

export const withoutId = ({ id, ...rest }) => rest;

/** A JSON:API resource object as the plain note it stands for. */
export const plainNote = ({ id, attributes }) => ({ id, ...attributes });
