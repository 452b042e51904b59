// Integration tests of notes-server's POST endpoints: GraphQL connections at /graphql, executed by
// graphql-js (Debian's node-graphql, which CI installs: without it these tests fail, saying so), and
// the Notion-style database query at /v1/databases/notes/query. The server runs as a child process on
// port 0, over generated notes and over a notes-gen directory written here; every walk is checked
// against the notes GET /notes serves. Run with `node --test Tools/`.
//
// Faults, each as the usage text describes it:
//   graphql-error@N      page N is 200 {"data":null,"errors":[{"message":"Something went wrong while
//                        executing your query.","locations":[…],"path":["notes"]}]}
//   graphql-ratelimit@N  page N, once: 200 {"data":null,"errors":[{"type":"RATE_LIMITED",…}]} with
//                        x-ratelimit-remaining: 0 and x-ratelimit-reset now+1 s; the retry succeeds
//   graphql-cycle@N      page N's endCursor is page N-1's, hasNextPage true
//   graphql-endless@N    from page N on hasNextPage is true; past the last note the endCursor repeats
// and the faults that do not depend on a style (statuses, delays, resets, auth, redirects, content
// faults) by page, on both endpoints.
//
// Timing: only lower bounds are asserted, never upper ones.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relayCursor } from './styles/graphql.mjs';
import { notionCursor } from './styles/notion.mjs';

const SERVER = fileURLToPath(new URL('./notes-server.mjs', import.meta.url));
const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_MODULE = '/usr/share/nodejs/graphql/index.mjs';
const HAS_GRAPHQL = existsSync(GRAPHQL_MODULE);
const NO_GRAPHQL = `graphql-js is missing (no ${GRAPHQL_MODULE}): install node-graphql (apt-get install node-graphql, or make deps); `
  + 'CI installs it, and /graphql answers 501 without it';
const ERROR_MESSAGE = 'Something went wrong while executing your query.';
const NOTION = '/v1/databases/notes/query';

// MARK: - Harness

/** Starts the server with `args`; resolves once it has printed its URL. `base` is the origin. */
async function startServer(args, env = {}) {
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
    /** Signals the server and resolves with its exit code and its log lines (start-up line first). */
    async stop() {
      child.kill('SIGTERM');
      const { code } = await closed;
      return { code, lines: stderr.trimEnd().split('\n') };
    },
  };
}

/** Runs `use(server)` against a server started with `args`, then stops it, whatever happened: its exit code and log lines. */
async function withServer(args, env, use) {
  const server = await startServer(args, env);
  let failure = null;
  try {
    await use(server);
  } catch (error) {
    failure = error;
  }
  const stopped = await server.stop();
  if (failure) throw failure;
  return stopped;
}

/** Runs the server to its exit, for command-line errors and --help. */
function runServer(args) {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (data) => { stdout += data; });
  child.stderr.setEncoding('utf8').on('data', (data) => { stderr += data; });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** One HTTP request on a new connection; resolves with status, headers, the body and its JSON (or null). */
function request(url, { method = 'GET', headers = {}, body = null } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
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
        resolve({ status: res.statusCode, headers: res.headers, body: bytes, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A POST of `value` as JSON (or of `raw` bytes as they are). */
function post(url, value, { headers = {}, raw } = {}) {
  return request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: raw ?? JSON.stringify(value) });
}

/** A GraphQL request to `base`/graphql (with `query` text after it, e.g. ?fault=…). */
function graphql(base, query, variables, { headers, operationName, target = '/graphql' } = {}) {
  return post(`${base}${target}`, { query, variables, operationName }, { headers });
}

const NOTE_FIELDS = 'id title created updated excerpt tags rank score pinned archived meta big naive';

/** The query of a walk: `notes` or `viewer { notes }`, with edges or nodes. */
function walkQuery({ viewer = false, nodes = false } = {}) {
  const selection = nodes ? `nodes { ${NOTE_FIELDS} }` : `edges { cursor node { ${NOTE_FIELDS} } }`;
  const connection = `notes(first: $first, after: $after) { totalCount ${selection} pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }`;
  return `query Notes($first: Int, $after: String) { ${viewer ? `viewer { login ${connection} }` : connection} }`;
}

/** The connection of a GraphQL answer (data.notes or data.viewer.notes). */
const connectionOf = (json, viewer = false) => (viewer ? json.data.viewer.notes : json.data.notes);

/**
 * Follows a GraphQL walk from the start to hasNextPage false: each page's connection. Every answer
 * must be a 200 without errors.
 */
async function walkGraphQL(base, { first, viewer = false, nodes = false, headers, maxPages = 60 } = {}) {
  const pages = [];
  let after = null;
  for (;;) {
    assert.ok(pages.length < maxPages, 'the walk does not end');
    const res = await graphql(base, walkQuery({ viewer, nodes }), { first, after }, { headers });
    assert.equal(res.status, 200, String(res.body));
    assert.equal(res.headers['content-type'], JSON_TYPE);
    assert.equal(res.json.errors, undefined, String(res.body));
    const connection = connectionOf(res.json, viewer);
    pages.push(connection);
    if (!connection.pageInfo.hasNextPage) return pages;
    after = connection.pageInfo.endCursor;
  }
}

/** The notes of a GraphQL page, with edges or nodes. */
const nodesOf = (connection) => connection.nodes ?? connection.edges.map((edge) => edge.node);

/** Follows a Notion-style walk to has_more false: each page's body. */
async function walkNotion(base, { pageSize, headers, maxPages = 60 } = {}) {
  const pages = [];
  let cursor;
  for (;;) {
    assert.ok(pages.length < maxPages, 'the walk does not end');
    const res = await post(`${base}${NOTION}`, { start_cursor: cursor, page_size: pageSize }, { headers });
    assert.equal(res.status, 200, String(res.body));
    assert.equal(res.headers['content-type'], JSON_TYPE);
    pages.push(res.json);
    if (!res.json.has_more) return pages;
    cursor = res.json.next_cursor;
  }
}

/** Every note GET /notes serves (contract style), in order, as JSON values. */
async function restNotes(url) {
  const notes = [];
  for (let next = url; next !== null;) {
    const res = await request(next);
    assert.equal(res.status, 200);
    notes.push(...res.json.notes);
    next = res.json.next_cursor === null ? null : `${url}?cursor=${encodeURIComponent(res.json.next_cursor)}`;
  }
  return notes;
}

/** A REST note as /graphql serves it: every field of Note, null where the note has none; ids as strings. */
function asGraphQL(note) {
  const node = Object.fromEntries(NOTE_FIELDS.split(' ').map((name) => [name, note[name] ?? null]));
  node.id = String(note.id);
  node.naive = note['naïve'] ?? null;
  return node;
}

/** The request lines of a log: all but the start-up line. */
const requestLines = (lines) => lines.slice(1);

// MARK: - Tests

test('graphql-js (node-graphql) is installed', () => {
  assert.ok(HAS_GRAPHQL, NO_GRAPHQL);
});

/** For the describe blocks of /graphql: fail every test at once, with the reason, when graphql-js is missing. */
const needGraphQL = () => assert.ok(HAS_GRAPHQL, NO_GRAPHQL);

describe('command line', () => {
  test('--help describes both endpoints and every GraphQL fault', async () => {
    const { code, stdout } = await runServer(['--help']);
    assert.equal(code, 0);
    for (const text of ['POST /graphql', NOTION, 'graphql-error', 'graphql-ratelimit', 'graphql-cycle', 'graphql-endless', 'arrayconnection:',
      'node-graphql', 'page_database', 'validation_error', 'graphql=', 'body=']) {
      assert.ok(stdout.includes(text), text);
    }
  });

  for (const args of [['--count', '25', '--fault', 'graphql-cycle@1'], ['--count', '25', '--fault', 'graphql-error:x'],
    ['--count', '25', '--fault', 'graphql-ratelimit:soon'], ['--count', '25', '--fault', 'graphql-endless:3']]) {
    test(`exits 64 on ${JSON.stringify(args)}`, async () => {
      const { code, stdout, stderr } = await runServer(args);
      assert.equal(code, 64);
      assert.equal(stdout, '');
      assert.match(stderr, /^Error: .+\n$/);
    });
  }

  test('a GraphQL fault may name a page past the --page-size pages: GraphQL pages hold `first` notes', async () => {
    const server = await startServer(['--count', '25', '--fault', 'graphql-error@3', '--quiet']);
    assert.equal((await server.stop()).code, 0);
  });
});

describe('POST /graphql over generated notes (--count 25 --page-size 10)', () => {
  let server;
  let base;
  let rest;
  before(async () => {
    needGraphQL();
    server = await startServer(['--count', '25', '--page-size', '10']);
    base = server.base;
    rest = (await restNotes(server.url)).map(asGraphQL);
  });
  after(async () => {
    if (server) assert.equal((await server.stop()).code, 0);
  });

  test('a walk with edges: every note once, in the order of GET /notes; Relay cursors; totalCount; GitHub\'s pageInfo', async () => {
    const pages = await walkGraphQL(base, { first: 7 });
    assert.deepEqual(pages.map((page) => page.edges.length), [7, 7, 7, 4]);
    assert.deepEqual(pages.flatMap(nodesOf), rest);
    assert.deepEqual(pages.flatMap((page) => page.edges.map((edge) => edge.cursor)), rest.map((_, i) => relayCursor(i)));
    for (const [i, page] of pages.entries()) {
      assert.equal(page.totalCount, 25);
      const last = i === pages.length - 1;
      assert.deepEqual(page.pageInfo, {
        hasNextPage: !last,
        hasPreviousPage: i > 0,
        startCursor: page.edges[0].cursor,
        // The last page still names its last cursor, as GitHub does.
        endCursor: page.edges.at(-1).cursor,
      });
    }
  });

  test('a walk with nodes, first by default (10): the same notes', async () => {
    const pages = await walkGraphQL(base, { nodes: true });
    assert.deepEqual(pages.map((page) => page.nodes.length), [10, 10, 5]);
    assert.deepEqual(pages.flatMap(nodesOf), rest);
    assert.ok(pages.every((page) => page.totalCount === 25 && page.edges === undefined));
  });

  test('the nested path data.viewer.notes: the same connection', async () => {
    const pages = await walkGraphQL(base, { first: 10, viewer: true });
    assert.deepEqual(pages.flatMap(nodesOf), rest);
    const res = await graphql(base, '{ viewer { login } }');
    assert.deepEqual(res.json, { data: { viewer: { login: 'notes' } } });
  });

  test('first over 100 or below 0, and an unknown cursor: an error in a 200, as graphql-js writes a resolver\'s; first: 100 is fine', async () => {
    const over = await graphql(base, '{ notes(first: 101) { totalCount } }');
    assert.equal(over.status, 200);
    assert.deepEqual(over.json, {
      data: null,
      errors: [{
        message: 'Requesting 101 records on the `notes` connection exceeds the `first` limit of 100 records.',
        locations: [{ line: 1, column: 3 }],
        path: ['notes'],
      }],
    });
    const nested = await graphql(base, 'query($n: Int) { viewer { notes(first: $n) { totalCount } } }', { n: 500 });
    assert.equal(nested.json.data, null);
    assert.deepEqual(nested.json.errors[0].path, ['viewer', 'notes']);
    const negative = await graphql(base, '{ notes(first: -1) { totalCount } }');
    assert.equal(negative.status, 200);
    assert.match(negative.json.errors[0].message, /cannot be less than zero/);
    for (const cursor of ['nope', relayCursor(25), Buffer.from('arrayconnection:x').toString('base64')]) {
      const unknown = await graphql(base, 'query($c: String) { notes(after: $c) { totalCount } }', { c: cursor });
      assert.equal(unknown.status, 200);
      assert.equal(unknown.json.data, null);
      assert.equal(unknown.json.errors[0].message, `\`${cursor}\` does not appear to be a valid cursor.`);
      assert.deepEqual(unknown.json.errors[0].path, ['notes']);
    }
    const hundred = await graphql(base, '{ notes(first: 100) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } }');
    assert.equal(hundred.json.data.notes.nodes.length, 25);
    assert.deepEqual(hundred.json.data.notes.pageInfo, { hasNextPage: false, endCursor: relayCursor(24) });
  });

  test('after the last cursor: an empty page, endCursor null; first: 0 too', async () => {
    const past = await graphql(base, 'query($c: String) { notes(after: $c) { edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }',
      { c: relayCursor(24) });
    assert.deepEqual(past.json.data.notes, { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null } });
    const none = await graphql(base, '{ notes(first: 0) { nodes { id } pageInfo { hasNextPage endCursor } } }');
    assert.deepEqual(none.json.data.notes, { nodes: [], pageInfo: { hasNextPage: true, endCursor: null } });
  });

  test('a mutation executes: deleteNote does nothing and returns false', async () => {
    const res = await graphql(base, 'mutation Delete($id: ID!) { deleteNote(id: $id) }', { id: 'n3' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { data: { deleteNote: false } });
    const after3 = await graphql(base, '{ node(id: "n3") { id title } }');
    assert.deepEqual(after3.json.data.node, { id: 'n3', title: rest[3].title });
  });

  test('node(id): the note with that id, or null', async () => {
    const res = await graphql(base, `query($id: ID!) { node(id: $id) { ${NOTE_FIELDS} } }`, { id: 'n17' });
    assert.deepEqual(res.json, { data: { node: rest[17] } });
    for (const id of ['n25', 'x', '17']) assert.deepEqual((await graphql(base, '{ node(id: $id) { id } }'.replace('$id', JSON.stringify(id)))).json, { data: { node: null } });
  });

  test('operationName picks the operation; several without it is an error in a 200', async () => {
    const document = 'query A { notes(first: 1) { nodes { id } } } query B { viewer { login } }';
    assert.deepEqual((await graphql(base, document, undefined, { operationName: 'B' })).json, { data: { viewer: { login: 'notes' } } });
    const ambiguous = await graphql(base, document);
    assert.equal(ambiguous.status, 200);
    assert.match(ambiguous.json.errors[0].message, /operation name/);
  });

  test('syntax and validation errors: 200 with errors and no data', async () => {
    const syntax = await graphql(base, '{ notes { ');
    assert.equal(syntax.status, 200);
    assert.equal('data' in syntax.json, false);
    assert.match(syntax.json.errors[0].message, /^Syntax Error/);
    const unknown = await graphql(base, '{ notes { cursor } }');
    assert.equal(unknown.status, 200);
    assert.match(unknown.json.errors[0].message, /Cannot query field "cursor" on type "NoteConnection"/);
    const subscription = await graphql(base, 'subscription { notes { totalCount } }');
    assert.match(subscription.json.errors[0].message, /subscription/i);
    const variables = await graphql(base, 'query($n: Int) { notes(first: $n) { totalCount } }', { n: 'ten' });
    assert.equal(variables.status, 200);
    assert.match(variables.json.errors[0].message, /\$n/);
  });

  test('405 for GET and other methods; 415 without application/json; 400 for a body that is no GraphQL request', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await request(`${base}/graphql?query=%7Bviewer%7Blogin%7D%7D`, { method });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, 'POST');
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(typeof res.json.errors[0].message, 'string');
    }
    for (const type of [undefined, 'text/plain', 'application/graphql']) {
      const res = await request(`${base}/graphql`, { method: 'POST', headers: type ? { 'Content-Type': type } : {}, body: '{"query":"{ viewer { login } }"}' });
      assert.equal(res.status, 415, type);
    }
    assert.equal((await post(`${base}/graphql`, null, { raw: '{"query":"{ viewer { login } }"}', headers: { 'Content-Type': 'application/json; charset=utf-8' } })).status, 200);
    for (const raw of ['', 'not json', '[{"query":"{ viewer { login } }"}]', '{}', '{"query":""}', '{"variables":{}}', '{"query":"{ viewer { login } }","variables":[]}']) {
      const res = await post(`${base}/graphql`, null, { raw });
      assert.equal(res.status, 400, raw);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(Object.keys(res.json), ['errors']);
      assert.equal(typeof res.json.errors[0].message, 'string');
    }
    assert.equal((await post(`${base}/graphql`, null, { raw: `{"query":"${'x'.repeat(1024 * 1024)}"}` })).status, 413);
    assert.equal((await graphql(base, '{ viewer { login } }', undefined, { target: '/graphql?fault=explode' })).status, 400);
  });

  test('introspection works: the schema as the usage text describes it', async () => {
    const res = await graphql(base, '{ __type(name: "Note") { fields { name type { kind name ofType { kind name ofType { kind name } } } } } }');
    const written = (type) => (type.kind === 'NON_NULL' ? `${written(type.ofType)}!` : type.kind === 'LIST' ? `[${written(type.ofType)}]` : type.name);
    const fields = Object.fromEntries(res.json.data.__type.fields.map((field) => [field.name, written(field.type)]));
    assert.deepEqual(fields, {
      id: 'ID!', title: 'String!', created: 'String', updated: 'String', excerpt: 'String', tags: '[String!]', rank: 'Int', score: 'Float',
      pinned: 'Boolean', archived: 'Boolean', meta: 'JSON', big: 'Float', naive: 'Boolean',
    });
    const mutation = await graphql(base, '{ __schema { mutationType { fields { name type { name } } } } }');
    assert.deepEqual(mutation.json.data.__schema.mutationType.fields, [{ name: 'deleteNote', type: { name: 'Boolean' } }]);
  });
});

describe('the GraphQL log, --id-kind int, --max-limit and --total-lie', () => {
  before(needGraphQL);

  test('one line per request: the operation type (and name) and the variables, without spaces; the token REDACTED', async () => {
    const { code, lines } = await withServer(['--count', '25'], { NOTES_SERVER_TOKEN: 's3cret' }, async ({ base }) => {
      await walkGraphQL(base, { first: 10 });
      await graphql(base, 'mutation { deleteNote(id: "n1") }');
      await graphql(base, 'query($t: String) { viewer { login } }', { t: 'a s3cret b', note: 'two words' });
      await graphql(base, '{ notes {');
      await request(`${base}/graphql`);
    });
    assert.equal(code, 0);
    const logged = requestLines(lines);
    assert.match(logged[0], /^POST \/graphql 200 \d+B \d+\.\dms graphql=query:Notes vars=\{"first":10,"after":null\} c=1 t=\d+$/);
    assert.ok(logged[1].includes(` graphql=query:Notes vars={"first":10,"after":"${relayCursor(9)}"} c=2 `), logged[1]);
    assert.ok(logged[2].includes(` vars={"first":10,"after":"${relayCursor(19)}"} `), logged[2]);
    assert.match(logged[3], /^POST \/graphql 200 \d+B \d+\.\dms graphql=mutation vars=\{\} c=4 t=\d+$/);
    assert.ok(logged[4].includes(' graphql=query vars={"t":"REDACTED","note":"two\\u0020words"} '), logged[4]);
    assert.match(logged[5], / graphql=- vars=\{\} c=6 /);
    assert.match(logged[6], /^GET \/graphql 405 \d+B \d+\.\dms c=7 t=\d+$/);
    assert.equal(logged.length, 7);
    assert.equal(logged.filter((line) => line.includes('graphql=query:Notes')).length, 3);
  });

  test('--id-kind int: the integer ids of GET /notes, as ID strings; node() finds them', async () => {
    const server = await startServer(['--count', '30', '--id-kind', 'int', '--quiet']);
    try {
      const rest = await restNotes(server.url);
      const pages = await walkGraphQL(server.base, { first: 8, nodes: true });
      assert.deepEqual(pages.flatMap(nodesOf), rest.map(asGraphQL));
      assert.ok(rest.every((note) => Number.isInteger(note.id)));
      const res = await graphql(server.base, `{ node(id: ${rest[5].id}) { id } }`);
      assert.deepEqual(res.json.data.node, { id: String(rest[5].id) });
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('--no-titles: Note has no title field, a query for it is a validation error; the notes are otherwise those of GET /notes', async () => {
    const server = await startServer(['--count', '12', '--no-titles', '--quiet']);
    try {
      const fields = await graphql(server.base, '{ __type(name: "Note") { fields { name } } }');
      assert.deepEqual(fields.json.data.__type.fields.map((field) => field.name),
        ['id', 'created', 'updated', 'excerpt', 'tags', 'rank', 'score', 'pinned', 'archived', 'meta', 'big', 'naive']);
      const asked = await graphql(server.base, '{ notes(first: 2) { nodes { id title } } }');
      assert.equal(asked.status, 200);
      assert.match(asked.json.errors[0].message, /Cannot query field "title" on type "Note"/);
      const res = await graphql(server.base, '{ notes(first: 20) { nodes { id rank pinned } } }');
      const rest = await restNotes(server.url);
      assert.ok(rest.every((note) => !('title' in note)));
      assert.deepEqual(res.json.data.notes.nodes, rest.map(({ id, rank, pinned }) => ({ id, rank, pinned })));
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('--max-limit cuts first silently; --total-lie changes totalCount only', async () => {
    const server = await startServer(['--count', '25', '--max-limit', '4', '--page-size', '2', '--total-lie', '5', '--quiet']);
    try {
      const pages = await walkGraphQL(server.base, { first: 10, nodes: true });
      assert.deepEqual(pages.map((page) => page.nodes.length), [4, 4, 4, 4, 4, 4, 1]);
      assert.ok(pages.every((page) => page.totalCount === 30));
      assert.deepEqual(pages.flatMap(nodesOf), (await restNotes(server.url)).map(asGraphQL));
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

describe('GraphQL faults', () => {
  let server;
  let base;
  before(async () => {
    needGraphQL();
    server = await startServer(['--count', '25'], { NOTES_SERVER_TOKEN: 'tok' });
    base = server.base;
  });
  after(async () => {
    if (server) assert.equal((await server.stop()).code, 0);
  });
  const pageQuery = 'query($first: Int, $after: String) { notes(first: $first, after: $after) { nodes { id title } pageInfo { hasNextPage endCursor } } }';
  /** Page `page` (1-based) of `first` notes, with the faults of `spec` (X-Notes-Fault). */
  const page = (number, spec, first = 10, extra = {}) => graphql(base, pageQuery, { first, after: number === 1 ? null : relayCursor((number - 1) * first - 1) },
    { headers: { 'X-Notes-Fault': spec, ...extra } });

  test('graphql-error@2: page 2 is 200 with data null and GitHub\'s error at path notes; pages 1 and 3 are fine', async () => {
    assert.equal((await page(1, 'graphql-error@2')).json.errors, undefined);
    const failed = await page(2, 'graphql-error@2');
    assert.equal(failed.status, 200);
    const column = pageQuery.indexOf('notes(') + 1;
    assert.deepEqual(failed.json, { data: null, errors: [{ message: ERROR_MESSAGE, locations: [{ line: 1, column }], path: ['notes'] }] });
    assert.equal((await page(3, 'graphql-error@2')).json.errors, undefined);
    // By page in first's terms: first 5 makes page 2 the notes 5-9.
    assert.equal((await page(2, 'graphql-error@2', 5)).json.errors[0].message, ERROR_MESSAGE);
    // Also on the nested path.
    const nested = await graphql(base, `{ viewer { notes(after: "${relayCursor(9)}") { totalCount } } }`, undefined, { headers: { 'X-Notes-Fault': 'graphql-error@2' } });
    assert.deepEqual(nested.json, { data: null, errors: [{ message: ERROR_MESSAGE, locations: [{ line: 1, column: 12 }], path: ['viewer', 'notes'] }] });
  });

  test('graphql-ratelimit@2: page 2 once, 200 RATE_LIMITED with x-ratelimit-remaining 0 and the reset a second on; the retry succeeds', async () => {
    const spec = 'graphql-ratelimit@2';
    const first = await page(1, spec);
    assert.equal(first.headers['x-ratelimit-remaining'], undefined);
    const now = Date.now() / 1000;
    const limited = await page(2, spec);
    assert.equal(limited.status, 200);
    assert.deepEqual(limited.json, { data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] });
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    const reset = Number(limited.headers['x-ratelimit-reset']);
    assert.ok(reset >= Math.floor(now) + 1 && reset <= Math.ceil(now) + 2, `${reset} at ${now}`);
    const retried = await page(2, spec);
    assert.equal(retried.json.errors, undefined);
    assert.deepEqual(retried.json.data.notes.nodes.map((note) => note.id), ['n10', 'n11', 'n12', 'n13', 'n14', 'n15', 'n16', 'n17', 'n18', 'n19']);
    // A whole walk with the fault (its own counter: another spelling) meets it once and still gets every note once.
    const walked = [];
    let limits = 0;
    for (let after = null, more = true; more;) {
      const res = await graphql(base, pageQuery, { first: 10, after }, { headers: { 'X-Notes-Fault': 'graphql-ratelimit:0@3' } });
      if (res.json.errors) {
        assert.equal(res.json.errors[0].type, 'RATE_LIMITED');
        limits++;
        continue;
      }
      walked.push(...res.json.data.notes.nodes.map((note) => note.id));
      ({ hasNextPage: more, endCursor: after } = res.json.data.notes.pageInfo);
    }
    assert.equal(limits, 1);
    assert.deepEqual(walked, Array.from({ length: 25 }, (_, i) => `n${i}`));
  });

  test('graphql-cycle@3: page 3\'s endCursor is page 2\'s, hasNextPage true, so the walk comes back to page 3', async () => {
    const second = await page(2, 'graphql-cycle@3', 5);
    const third = await page(3, 'graphql-cycle@3', 5);
    assert.deepEqual(third.json.data.notes.nodes.map((note) => note.id), ['n10', 'n11', 'n12', 'n13', 'n14']);
    assert.deepEqual(third.json.data.notes.pageInfo, { hasNextPage: true, endCursor: second.json.data.notes.pageInfo.endCursor });
    const again = await graphql(base, pageQuery, { first: 5, after: third.json.data.notes.pageInfo.endCursor }, { headers: { 'X-Notes-Fault': 'graphql-cycle@3' } });
    assert.deepEqual(again.json, third.json);
  });

  test('graphql-endless@2: from page 2 on hasNextPage stays true; past the last note the endCursor repeats', async () => {
    const headers = { 'X-Notes-Fault': 'graphql-endless@2' };
    const seen = [];
    let after = null;
    for (let i = 0; i < 6; i++) {
      const res = await graphql(base, pageQuery, { first: 10, after }, { headers });
      assert.equal(res.json.errors, undefined);
      seen.push(res.json.data.notes);
      after = res.json.data.notes.pageInfo.endCursor;
    }
    assert.deepEqual(seen.map((connection) => connection.nodes.length), [10, 10, 5, 0, 0, 0]);
    assert.deepEqual(seen.map((connection) => connection.pageInfo.hasNextPage), [true, true, true, true, true, true]);
    assert.deepEqual(seen.slice(2).map((connection) => connection.pageInfo.endCursor), Array(4).fill(relayCursor(24)));
    // Page 1 is not affected: without the fault, page 3 ends the walk.
    assert.equal((await page(3, '')).json.data.notes.pageInfo.hasNextPage, false);
  });

  test('status faults by page, with Retry-After: 503@2, 429:3@2, 500', async () => {
    for (const [spec, status, retryAfter] of [['503@2', 503, '1'], ['429:3@2', 429, '3'], ['500@2', 500, undefined]]) {
      assert.equal((await page(1, spec)).status, 200, spec);
      const res = await page(2, spec);
      assert.equal(res.status, status, spec);
      assert.equal(res.headers['retry-after'], retryAfter);
      assert.deepEqual(res.json, { error: 'injected', status });
    }
    // Chosen in the query as well.
    assert.equal((await graphql(base, pageQuery, { first: 10 }, { target: '/graphql?fault=502' })).status, 502);
  });

  test('delay, reset, truncate, html and content-type act on /graphql as on any page', async () => {
    const started = performance.now();
    assert.equal((await page(1, 'delay:200')).status, 200);
    assert.ok(performance.now() - started >= 200);
    await assert.rejects(page(1, 'reset'), { code: 'ECONNRESET' });
    await assert.rejects(page(1, 'truncate'), { code: 'ECONNRESET' });
    const html = await page(2, 'html@2');
    assert.match(html.headers['content-type'], /^text\/html/);
    assert.equal((await page(1, 'content-type')).headers['content-type'], 'text/plain; charset=utf-8');
    const remaining = await page(1, 'remaining-zero');
    assert.equal(remaining.headers['x-ratelimit-remaining'], '0');
    assert.equal(remaining.json.errors, undefined);
  });

  test('auth: 401 without the bearer token, the page with it', async () => {
    assert.equal((await page(1, 'auth')).status, 401);
    const authorized = await page(1, 'auth', 10, { Authorization: 'Bearer tok' });
    assert.equal(authorized.status, 200);
    assert.equal(authorized.json.data.notes.nodes.length, 10);
  });

  test('duplicate-id and huge-title alter the notes; shift, cycle and deep do not act on /graphql', async () => {
    const duplicated = await page(2, 'duplicate-id@2');
    assert.deepEqual(duplicated.json.data.notes.nodes.map((note) => note.id).slice(-2), ['n18', 'n0']);
    const huge = await page(1, 'huge-title:100');
    assert.equal(huge.json.data.notes.nodes[0].title, 'huge title '.repeat(10).slice(0, 100));
    for (const spec of ['cycle', 'deep', 'shift:2']) {
      const res = await page(2, spec);
      assert.equal(res.status, 200, spec);
      assert.deepEqual(res.json.data.notes.nodes.map((note) => note.id)[0], 'n10', spec);
      assert.equal(res.json.data.notes.pageInfo.endCursor, relayCursor(19), spec);
    }
  });

  test('redirect:307 sends the POST to the redirect target, which executes it too', async () => {
    const res = await page(1, 'redirect:307');
    assert.equal(res.status, 307);
    const target = await post(res.headers.location, { query: pageQuery, variables: { first: 3 } });
    assert.equal(target.status, 200);
    assert.deepEqual(target.json.data.notes.nodes.map((note) => note.id), ['n0', 'n1', 'n2']);
    const forwarded = await post(res.headers.location, { query: pageQuery }, { headers: { Authorization: 'Bearer tok' } });
    assert.equal(forwarded.status, 400);
  });
});

describe('GraphQL faults set by flag, and the log', () => {
  before(needGraphQL);

  test('--fault graphql-error@2 acts on /graphql only; other faults on every endpoint; the log names the faults that fired', async () => {
    const responses = [];
    const { code, lines } = await withServer(['--count', '25', '--page-size', '10', '--fault', 'graphql-error@2,503@3x1'], {}, async ({ url, base }) => {
      // GET /notes: page 2 is fine, page 3 is the 503 (once).
      const page1 = await request(url);
      const page2 = await request(`${url}?cursor=${encodeURIComponent(page1.json.next_cursor)}`);
      const page3 = await request(`${url}?cursor=${encodeURIComponent(page2.json.next_cursor)}`);
      responses.push(page2.status, page3.status);
      for (const after of [null, relayCursor(9), relayCursor(19)]) {
        responses.push((await graphql(base, 'query($a: String) { notes(after: $a) { nodes { id } } }', { a: after })).json);
      }
    });
    assert.equal(code, 0);
    const [rest2, rest3, ok, failed, last] = responses;
    assert.deepEqual([rest2, rest3], [200, 503]);
    assert.equal(ok.errors, undefined);
    assert.equal(failed.errors[0].message, ERROR_MESSAGE);
    assert.equal(last.errors, undefined, 'the 503 fired once, on GET /notes');
    const logged = requestLines(lines);
    assert.match(logged[2], /^GET \/notes\?cursor=\S+ 503 .* fault=503@3x1 c=3 /);
    assert.match(logged[4], /^POST \/graphql 200 \d+B \d+\.\dms graphql=query vars=\{"a":"YXJyYXljb25uZWN0aW9uOjk="\} fault=graphql-error@2 c=5 /);
    assert.ok(!logged.some((line) => line.startsWith('GET') && line.includes('graphql-error')), logged.join('\n'));
    assert.equal(logged.length, 6);
  });
});

describe('POST /graphql and the Notion-style query over a notes-gen directory', () => {
  // Notes with every member notes-gen writes: nested meta, tags, escapes, null, the key "naïve".
  const PAGES = [
    '[{"id":"a1","title":"first","created":"2024-03-14T09:26:53Z","tags":["x","y"],"rank":-5,"score":1.50e3,"pinned":true,'
      + '"meta":{"author":{"id":7,"name":"Zo\\u00eb"},"edits":3,"history":[{"at":"2020-01-01T00:00:00Z","by":null}],"flags":{}}},'
      + '{"title":"second","id":"a\\/2","na\\u00efve":true,"archived":null,"updated":null,"excerpt":"ex \\"q\\""}]',
    '[{"id":"a3","title":"日本語 😀","big":-9223372036854775808,"tags":[]}]',
    '[{"id":"a4","title":"four","score":6e+23},{"id":"a5","title":"five"}]',
  ];
  const CURSORS = [null, 'pA+/Zw==', 'x/y z?&#='];
  let dir;
  let server;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'notes-server-graphql-'));
    mkdirSync(path.join(dir, 'pages'));
    const entries = PAGES.map((items, i) => {
      const head = '{"notes":';
      const file = `pages/0000${i}.json`;
      writeFileSync(path.join(dir, file), `${head}${items},"next_cursor":${JSON.stringify(CURSORS[i + 1] ?? null)}}`);
      const entry = { file, cursor: CURSORS[i], next_cursor: CURSORS[i + 1] ?? null, items: [head.length, head.length + Buffer.byteLength(items)] };
      // Page 2's entry has no count: the server reads the page to count it.
      return i === 1 ? entry : { ...entry, notes: JSON.parse(items).length };
    });
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ format: 'notes-gen/1', count: 5, page_size: 2, seed: 0, faults: [], pages: entries }));
    server = await startServer(['--dir', dir, '--quiet']);
  });
  after(async () => {
    if (server) assert.equal((await server.stop()).code, 0);
    if (dir) rmSync(dir, { recursive: true });
  });

  test('walks across the page files: every note once, in order, each member as GET /notes serves it; meta as JSON, naïve as naive', async () => {
    needGraphQL();
    const rest = await restNotes(server.url);
    assert.equal(rest.length, 5);
    for (const first of [1, 2, 3, 100]) {
      const pages = await walkGraphQL(server.base, { first });
      assert.deepEqual(pages.flatMap(nodesOf), rest.map(asGraphQL), `first ${first}`);
      assert.ok(pages.every((page) => page.totalCount === 5));
    }
    const [node] = nodesOf((await walkGraphQL(server.base, { first: 1 }))[0]);
    assert.deepEqual(node.meta, { author: { id: 7, name: 'Zoë' }, edits: 3, history: [{ at: '2020-01-01T00:00:00Z', by: null }], flags: {} });
    assert.deepEqual(node.tags, ['x', 'y']);
    assert.equal(node.score, 1500);
    const second = await graphql(server.base, '{ node(id: "a/2") { id excerpt naive archived updated } }');
    assert.deepEqual(second.json.data.node, { id: 'a/2', excerpt: 'ex "q"', naive: true, archived: null, updated: null });
    assert.deepEqual((await graphql(server.base, '{ node(id: "a6") { id } }')).json.data.node, null);
  });

  test('the Notion-style query walks the directory too, byte for byte the notes of GET /notes', async () => {
    const pages = await walkNotion(server.base, { pageSize: 2 });
    assert.deepEqual(pages.flatMap((body) => body.results), await restNotes(server.url));
  });
});

describe('POST /v1/databases/notes/query (Notion) over generated notes', () => {
  let server;
  let base;
  let rest;
  before(async () => {
    server = await startServer(['--count', '250', '--page-size', '100', '--seed', '7']);
    base = server.base;
    rest = await restNotes(server.url);
  });
  after(async () => {
    if (server) assert.equal((await server.stop()).code, 0);
  });

  test('a walk by default (page_size 100): every note once, in order, byte for byte as GET /notes; Notion\'s envelope', async () => {
    const pages = await walkNotion(base);
    assert.deepEqual(pages.map((body) => body.results.length), [100, 100, 50]);
    assert.deepEqual(pages.flatMap((body) => body.results), rest);
    for (const [i, body] of pages.entries()) {
      const last = i === pages.length - 1;
      assert.deepEqual(Object.keys(body), ['object', 'results', 'next_cursor', 'has_more', 'type']);
      assert.equal(body.object, 'list');
      assert.equal(body.type, 'page_database');
      assert.equal(body.has_more, !last);
      assert.equal(body.next_cursor, last ? null : notionCursor((i + 1) * 100));
      assert.match(body.next_cursor ?? '00000000-0000-4000-8000-000000000000', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    // The bytes of the notes are those of GET /notes: the page's notes array, re-wrapped.
    const first = await post(`${base}${NOTION}`, {});
    const restPage = (await request(server.url)).body.toString();
    assert.ok(first.body.toString().startsWith(`{"object":"list","results":${restPage.slice('{"notes":'.length, restPage.lastIndexOf(',"next_cursor"'))},"next_cursor":`));
  });

  test('page_size 7, and an empty body: the same notes', async () => {
    const pages = await walkNotion(base, { pageSize: 7 });
    assert.equal(pages.length, 36);
    assert.deepEqual(pages.flatMap((body) => body.results), rest);
    const empty = await request(`${base}${NOTION}`, { method: 'POST' });
    assert.equal(empty.status, 200);
    assert.equal(empty.json.results.length, 100);
  });

  test('Notion\'s errors: a bad cursor, page_size over 100, a body that is no JSON; 405 for GET', async () => {
    for (const [body, message] of [[{ start_cursor: 'nope' }, 'The start_cursor provided is invalid: nope'],
      [{ start_cursor: notionCursor(250) }, `The start_cursor provided is invalid: ${notionCursor(250)}`],
      [{ page_size: 101 }, 'body failed validation: body.page_size should be less than or equal to `100`, instead was `101`.'],
      [{ start_cursor: null }, 'body failed validation: body.start_cursor should be a string or `undefined`, instead was `null`.']]) {
      const res = await post(`${base}${NOTION}`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.json, { object: 'error', status: 400, code: 'validation_error', message });
    }
    const invalid = await post(`${base}${NOTION}`, null, { raw: '{"page_size":' });
    assert.deepEqual(invalid.json, { object: 'error', status: 400, code: 'invalid_json', message: 'Error parsing JSON body.' });
    const get = await request(`${base}${NOTION}`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    assert.equal(get.json.object, 'error');
  });

  test('faults by page (floor(position / page_size) + 1): 503 with Retry-After, 429, 500; cycle; duplicate-id', async () => {
    const at = (number, spec, pageSize = 100) => post(`${base}${NOTION}`, number === 1 ? { page_size: pageSize } : { page_size: pageSize, start_cursor: notionCursor((number - 1) * pageSize) },
      { headers: { 'X-Notes-Fault': spec } });
    for (const [spec, status, retryAfter] of [['503:2@2', 503, '2'], ['429@2', 429, '1'], ['500@2', 500, undefined]]) {
      assert.equal((await at(1, spec)).status, 200, spec);
      const res = await at(2, spec);
      assert.equal(res.status, status, spec);
      assert.equal(res.headers['retry-after'], retryAfter, spec);
    }
    assert.equal((await at(3, '500@3', 10)).status, 500);
    const cycled = await at(3, 'cycle@3');
    assert.equal(cycled.json.next_cursor, notionCursor(100));
    assert.equal(cycled.json.has_more, true);
    const duplicated = await at(2, 'duplicate-id@2');
    assert.equal(duplicated.json.results.at(-1).id, rest[0].id);
    assert.equal(duplicated.json.results[0].id, rest[100].id);
    // The GraphQL faults do not act here.
    assert.equal((await at(2, 'graphql-error@2')).status, 200);
  });

  test('a walk through a 503 once (retried) still gets every note once; delay', async () => {
    const notes = [];
    let retries = 0;
    for (let cursor, more = true; more;) {
      const res = await post(`${base}${NOTION}`, { start_cursor: cursor, page_size: 50 }, { headers: { 'X-Notes-Fault': '503:0@3x1' } });
      if (res.status === 503) {
        retries++;
        continue;
      }
      notes.push(...res.json.results);
      ({ next_cursor: cursor, has_more: more } = res.json);
    }
    assert.equal(retries, 1);
    assert.deepEqual(notes, rest);
    const started = performance.now();
    assert.equal((await post(`${base}${NOTION}`, {}, { headers: { 'X-Notes-Fault': 'delay:150' } })).status, 200);
    assert.ok(performance.now() - started >= 150);
  });
});

describe('the Notion-style query in the log', () => {
  test('each request\'s body, compact, without spaces', async () => {
    const { code, lines } = await withServer(['--count', '5'], {}, async ({ base }) => {
      await walkNotion(base, { pageSize: 2 });
      await post(`${base}${NOTION}`, { page_size: 500, filter: { property: 'a b' } });
    });
    assert.equal(code, 0);
    const logged = requestLines(lines);
    assert.match(logged[0], /^POST \/v1\/databases\/notes\/query 200 \d+B \d+\.\dms body=\{"page_size":2\} c=1 t=\d+$/);
    assert.ok(logged[1].includes(` body={"start_cursor":"${notionCursor(2)}","page_size":2} `), logged[1]);
    assert.ok(logged[2].includes(` body={"start_cursor":"${notionCursor(4)}","page_size":2} `), logged[2]);
    assert.match(logged[3], /^POST \/v1\/databases\/notes\/query 400 \d+B \d+\.\dms body=\{"page_size":500,"filter":\{"property":"a\\u0020b"\}\} c=4 /);
    assert.equal(logged.length, 4);
  });
});
