// POST /graphql: GraphQL connections over the notes, executed by graphql-js (Debian's node-graphql,
// loaded at the first request) and paged as GitHub pages its connections: the request, the schema,
// Relay's cursors, the slice of notes a request asks for, pageInfo, and the faults that act there.

import { pathToFileURL } from 'node:url';
import { UsageError } from '../shared/errors.mjs';
import { isPlainObject, jsonBody, MAX_BODY_BYTES, mediaType, readBody } from '../shared/http.mjs';
import { credentialsForwarded } from '../faults/auth.mjs';
import { applyPlan, endpointFaults, planRequest } from '../faults/plan.mjs';
import { noteAccess } from '../notes/access.mjs';
import { logValue, secretsOf } from '../server/log.mjs';

export const GRAPHQL_PATH = '/graphql';

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
  if (!isPlainObject(body)) throw new UsageError(`the body is not a JSON object: ${GRAPHQL_REQUEST_SHAPE}`);
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

/**
 * graphql-js as Debian's node-graphql installs it, imported by path: its ES module build (index.mjs),
 * since Node's ES module resolution never looks in /usr/share/nodejs and a Node that is not Debian's
 * does not look there for require() either.
 */
const GRAPHQL_MODULE = '/usr/share/nodejs/graphql/index.mjs';

const GRAPHQL_MISSING = `this server has no GraphQL engine: install node-graphql (apt-get install node-graphql), which provides ${GRAPHQL_MODULE}`;

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
export async function graphqlResponse(req, query, state, isTarget, record, signal) {
  if (req.method !== 'POST') return graphqlError(405, 'a GraphQL request is a POST with a JSON body', { Allow: 'POST' });
  let active;
  try {
    active = endpointFaults('graphql', query, req, state, isTarget);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
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
    request = parseGraphQLRequest(body.toString('utf8'));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return graphqlError(400, error.message);
  }

  const { graphql, schema } = engine;
  const variables = logValue(request.variables ?? {}, secretsOf(state));
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
 * throw, graphql-cycle and graphql-endless change its pageInfo (connectionPage), duplicate-id and
 * huge-title its notes. --max-limit cuts `first`; --total-lie shifts totalCount. `node` finds a note by id.
 */
function graphqlContext(state, planPage) {
  const notes = noteAccess(state);
  return {
    async connection(args) {
      const length = await notes.length();
      const slice = connectionSlice(args, length, { maxLimit: state.generated?.maxLimit });
      const { content } = planPage(slice.page);
      const acting = new Set(content.map((fault) => fault.kind));
      if (acting.has('graphql-error')) throw new Error(GRAPHQL_ERROR_MESSAGE);
      const nodes = await graphqlNotes(notes, slice.start, slice.end, content);
      const { cursors, pageInfo } = connectionPage(slice, length, { cycle: acting.has('graphql-cycle'), endless: acting.has('graphql-endless') });
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

/**
 * The notes at positions [start, end) as /graphql serves them: parsed, "naïve" also as `naive`, with
 * the content faults that act there as they act on the other endpoints: duplicate-id (the last note
 * takes the id of the first note of all) and huge-title (the first title becomes BYTES long).
 */
async function graphqlNotes(notes, start, end, contentFaults) {
  const list = JSON.parse(await notes.array(start, end)).map((note) => (isPlainObject(note) ? { ...note, naive: note['naïve'] } : note));
  for (const fault of contentFaults) {
    const [first, last] = [list[0], list.at(-1)];
    if (fault.kind === 'duplicate-id' && isPlainObject(last) && 'id' in last) {
      const [origin] = JSON.parse(await notes.array(0, 1));
      if (isPlainObject(origin) && 'id' in origin) last.id = origin.id;
    } else if (fault.kind === 'huge-title' && isPlainObject(first) && 'title' in first) {
      first.title = 'huge title '.repeat(Math.ceil(fault.bytes / 11)).slice(0, fault.bytes);
    }
  }
  return list;
}

/** An error of /graphql outside execution, as GraphQL servers write them: `{"errors":[{"message":…}]}`. */
function graphqlError(status, message, headers) {
  return jsonBody(status, { errors: [{ message }] }, headers);
}
