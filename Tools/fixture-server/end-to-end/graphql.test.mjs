// End-to-end tests: POST /graphql, executed by graphql-js (Debian's node-graphql, which CI installs:
// without it these tests fail, saying so); the server runs as a child process on port 0 and is asked over
// HTTP (testing/harness.mjs). Run with `node --test Tools/`; only lower bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { relayCursor } from '../styles/graphql.mjs';
import { asGraphQL, graphql, HAS_GRAPHQL, needGraphQL, NO_GRAPHQL, nodesOf, NOTE_FIELDS, NOTION, post, restNotes, walkGraphQL } from '../testing/graphql.mjs';
import { JSON_TYPE, request, runServer, startServer, withServer } from '../testing/harness.mjs';

test('graphql-js (node-graphql) is installed', () => {
  assert.ok(HAS_GRAPHQL, NO_GRAPHQL);
});

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
    const logged = lines.slice(1);
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
