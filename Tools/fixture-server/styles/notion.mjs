// POST /v1/databases/notes/query: the notes as Notion answers a database query, its cursors UUIDs,
// its errors in Notion's words.

import { UsageError } from '../shared/errors.mjs';
import { isPlainObject, jsonBody, jsonPage, MAX_BODY_BYTES, readBody } from '../shared/http.mjs';
import { uuidFrom } from '../shared/seeded.mjs';
import { credentialsForwarded } from '../faults/auth.mjs';
import { applyContentFaults } from '../faults/hostile-bodies.mjs';
import { applyPlan, endpointFaults, planRequest } from '../faults/plan.mjs';
import { noteAccess } from '../notes/access.mjs';
import { firstNoteId } from '../notes/scan.mjs';
import { logValue, secretsOf } from '../server/log.mjs';

export const NOTION_PATH = '/v1/databases/notes/query';

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
  if (!isPlainObject(body)) throw invalid(`body should be an object, instead was ${quoted(body)}`);
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
  // uuidFrom's first four groups, then the position.
  return `${uuidFrom(`notes-server notion cursor ${position}`).slice(0, 24)}${position.toString(16).padStart(12, '0')}`;
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

/** notion: `{"object":"list","results":[…],"next_cursor":nav.nextCursor,"has_more":nav.hasMore,"type":"page_database"}`. */
export function wrapNotion(items, nav) {
  return {
    headers: {},
    parts: [
        Buffer.from('{"object":"list","results":'),
        ...items,
        Buffer.from(`,"next_cursor":${JSON.stringify(nav.nextCursor)},"has_more":${nav.hasMore},"type":"page_database"}`),
      ],
  };
}

/**
 * Answers POST /v1/databases/notes/query as Notion answers a database query: request errors first
 * (405, 400 for a bad fault or compress=, 413, then Notion's invalid_json and validation_error), then
 * the faults of the page the body asks for, which act as on any page; `cycle` points next_cursor at
 * page 2, duplicate-id, huge-title and deep alter the notes as in the other styles.
 */
export async function notionResponse(req, query, state, isTarget, record, signal) {
  if (req.method !== 'POST') return notionError(405, 'invalid_request', 'a database query is a POST with a JSON body', { Allow: 'POST' });
  let active;
  try {
    active = endpointFaults('notion', query, req, state, isTarget);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return notionError(400, 'validation_error', error.message);
  }
  const body = await readBody(req);
  if (body === null) return notionError(413, 'validation_error', `the body is over ${MAX_BODY_BYTES} bytes`);
  const notes = noteAccess(state);
  const length = await notes.length();
  let slice;
  try {
    const request = parseNotionQuery(body.toString('utf8'));
    record.detail = `body=${logValue(request.body, secretsOf(state))}`;
    slice = notionSlice(request, length, { maxLimit: state.generated?.maxLimit });
  } catch (error) {
    if (!(error instanceof NotionError)) throw error;
    if (error.body !== undefined) record.detail ||= `body=${logValue(error.body, secretsOf(state))}`;
    return notionError(error.status, error.code, error.message);
  }
  if (isTarget && req.headers.authorization !== undefined) return credentialsForwarded();

  const planned = planRequest(active, slice.page, req, state, record);
  return applyPlan(planned, req, state, signal, record, async () => {
    const items = await notes.array(slice.start, slice.end);
    const itemParts = planned.content.some((fault) => fault.kind !== 'cycle')
      ? applyContentFaults(items, planned.content, firstNoteId(await notes.array(0, 1)))
      : [items];
    const nextCursor = notionNextCursor(slice, length, planned.content.some((fault) => fault.kind === 'cycle'));
    return jsonPage(wrapNotion(itemParts, { nextCursor, hasMore: nextCursor !== null }));
  });
}

/** An error of the Notion-style query, as Notion writes them. */
function notionError(status, code, message, headers) {
  return jsonBody(status, notionErrorBody(status, code, message), headers);
}
