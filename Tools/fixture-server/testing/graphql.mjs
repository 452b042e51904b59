// What the end-to-end tests of POST /graphql and the Notion-style query share: graphql-js's presence,
// the requests, and walks of a connection and of the Notion-style query to their last page.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { JSON_TYPE, request } from './harness.mjs';

const GRAPHQL_MODULE = '/usr/share/nodejs/graphql/index.mjs';

export const HAS_GRAPHQL = existsSync(GRAPHQL_MODULE);

export const NO_GRAPHQL = `graphql-js is missing (no ${GRAPHQL_MODULE}): install node-graphql (apt-get install node-graphql, or make deps); `
  + 'CI installs it, and /graphql answers 501 without it';

/** Fails a test that needs graphql-js when it is missing, saying how to install it. */

/** For the describe blocks of /graphql: fail every test at once, with the reason, when graphql-js is missing. */
export const needGraphQL = () => assert.ok(HAS_GRAPHQL, NO_GRAPHQL);

export const ERROR_MESSAGE = 'Something went wrong while executing your query.';

export const NOTION = '/v1/databases/notes/query';

/** A POST of `value` as JSON (or of `raw` bytes as they are). */
export function post(url, value, { headers = {}, raw } = {}) {
  return request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: raw ?? JSON.stringify(value) });
}

/** A GraphQL request to `base`/graphql (with `query` text after it, e.g. ?fault=…). */
export function graphql(base, query, variables, { headers, operationName, target = '/graphql' } = {}) {
  return post(`${base}${target}`, { query, variables, operationName }, { headers });
}

export const NOTE_FIELDS = 'id title created updated excerpt tags rank score pinned archived meta big naive';

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
export async function walkGraphQL(base, { first, viewer = false, nodes = false, headers, maxPages = 60 } = {}) {
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
export const nodesOf = (connection) => connection.nodes ?? connection.edges.map((edge) => edge.node);

/** Follows a Notion-style walk to has_more false: each page's body. */
export async function walkNotion(base, { pageSize, headers, maxPages = 60 } = {}) {
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
export async function restNotes(url) {
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
export function asGraphQL(note) {
  const node = Object.fromEntries(NOTE_FIELDS.split(' ').map((name) => [name, note[name] ?? null]));
  node.id = String(note.id);
  node.naive = note['naïve'] ?? null;
  return node;
}
