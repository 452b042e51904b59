// The jsonapi style, as djangorestframework-jsonapi serves JSON:API (jsonapi.org): its media type and
// content negotiation, its query parameter filter, its errors and its envelope.

import { jsonBody, jsonPage } from '../shared/http.mjs';
import { SERVER_PARAMETERS } from './catalog.mjs';
import { djangoPages } from './drf.mjs';

/** The media type of JSON:API (jsonapi.org), which takes no parameters. */
export const JSONAPI_TYPE = 'application/vnd.api+json';

// The names that djangorestframework-jsonapi's QueryParameterValidationFilter lets through.
const JSONAPI_PARAMETER = /^(?:sort|include)$|^(?<family>filter|fields|page)(?:\[[\w.-]+\])?$/;

/**
 * What djangorestframework-jsonapi's QueryParameterValidationFilter says of a query (URLSearchParams),
 * as its message, or null: a name other than `sort`, `include`, `filter`, `fields` and `page` (each
 * alone or with one bracketed member, as `page[number]`) or the server's own is invalid, and only
 * `filter[…]` (and the server's `fault`) may repeat.
 */
export function jsonApiQueryProblem(query) {
  for (const name of new Set(query.keys())) {
    if (SERVER_PARAMETERS.includes(name)) continue;
    const match = JSONAPI_PARAMETER.exec(name);
    if (!match) return `invalid query parameter: ${name}`;
    if (match.groups.family !== 'filter' && query.getAll(name).length !== 1) return `repeated query parameter not allowed: ${name}`;
  }
  return null;
}

/**
 * Whether an Accept header admits JSON:API, as Django REST framework's content negotiation decides it
 * for a view that renders only `application/vnd.api+json`: no header, or a media range (parameters
 * aside) of `application/vnd.api+json`, `application/*` or the full wildcard. An empty header admits
 * nothing.
 */
export function acceptsJsonApi(accept) {
  if (accept === undefined) return true;
  return accept.split(',').some((range) => ['application/vnd.api+json', 'application/*', '*/*'].includes(range.split(';')[0].trim().toLowerCase()));
}

/**
 * A JSON:API error document as djangorestframework-jsonapi's exception handler writes one for Django
 * REST framework's own exceptions: `{"errors":[{"detail":…,"status":"406","source":{"pointer":"/data"},"code":…}]}`.
 */
export function jsonApiErrorBody(status, code, detail) {
  return { errors: [{ detail, status: String(status), source: { pointer: '/data' }, code }] };
}

/** An error of the jsonapi style, as djangorestframework-jsonapi answers: a JSON:API error document. */
export function jsonApiError(status, code, detail) {
  return jsonBody(status, jsonApiErrorBody(status, code, detail), { 'Content-Type': JSONAPI_TYPE });
}

/**
 * jsonapi: `{"links":{"first":…,"last":…,"next":…,"prev":…},"data":[…],"meta":{"pagination":{"page":P,
 * "pages":K,"count":N}}}` with `Content-Type: application/vnd.api+json`, of `nav.links` ({first, last,
 * next, prev}, each a URL or null; a null `last` is left out), `nav.page`, `nav.pages` and `nav.count`
 * (the last two null for none).
 */
export function wrapJsonApi(items, nav) {
  const { first, last, next, prev } = nav.links;
  const links = last === null ? { first, next, prev } : { first, last, next, prev };
  const pagination = { page: nav.page };
  if (nav.pages !== null) pagination.pages = nav.pages;
  if (nav.count !== null) pagination.count = nav.count;
  return {
    headers: { 'Content-Type': JSONAPI_TYPE },
    parts: [Buffer.from(`{"links":${JSON.stringify(links)},"data":`), ...items, Buffer.from(`,"meta":${JSON.stringify({ pagination })}}`)],
  };
}

/** A jsonapi page: `page` as list.mjs's listResponse makes it; links, pages and count as the totals say. */
export function jsonApiResponse(list, listQuery, page, query, base) {
  const { previous, next, url } = djangoPages(list, listQuery, page, query, base, 'page[number]');
  const { totals } = listQuery;
  return jsonPage(wrapJsonApi(page.itemParts, {
    links: { first: url(1), last: totals.link ? url(page.lastPage) : null, next: url(next), prev: url(previous) },
    page: listQuery.page,
    pages: totals.pages ? page.lastPage : null,
    count: totals.count ? page.total : null,
  }));
}
