// What the unit tests share: faults parsed as from flags, a body's parts as bytes, and the paging
// parameters of the list styles read with fixed settings (a refusal as its status, body and headers).

import assert from 'node:assert/strict';
import { parseFaultList } from '../faults/grammar.mjs';
import { StyleError } from '../shared/errors.mjs';
import { chunks } from '../shared/parts.mjs';
import { parseListQuery } from '../styles/list.mjs';

export const parseFaults = (...specs) => parseFaultList(specs, 'flag');

export const bytes = (parts) => Buffer.concat([...chunks(parts, 1 << 16)]);

/** The settings of a list style's query: --page-size 10, --max-limit 50, every total. */
export const listSettings = { pageSize: 10, maxLimit: 50, totals: { count: true, header: true, link: true, pages: true } };

/** The paging parameters of `query` in `style` (parseListQuery) with listSettings. */
export const parseList = (style, query, request) => parseListQuery(style, new URLSearchParams(query), listSettings, request);

/** The StyleError that parsing throws: its status and body. */
export const refusal = (style, query, request) => {
  try {
    parseList(style, query, request);
  } catch (error) {
    assert.ok(error instanceof StyleError, `${style} ${query}: ${error}`);
    return { status: error.status, body: error.body, headers: error.headers };
  }
  assert.fail(`${style} ${query} was not refused`);
};
