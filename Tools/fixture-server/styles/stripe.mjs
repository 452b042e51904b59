// --repos: Stripe-shaped lists over the nested API's data (notes/nested.mjs): GET /v1/customers (repo i
// is customer cus_<i>) and GET /v1/invoices (each issue of repo i an invoice of cus_<i>), paged as
// Stripe pages (limit, starting_after, has_more), and filtered by Stripe's created[gte|gt|lt|lte], so
// that a client can walk them in time windows. Errors in Stripe's form. Served by the nested API's
// routing (styles/nested.mjs), so its token rule and --latency hold here too.

import { jsonBody } from '../shared/http.mjs';
import { bearerMatches, unauthorized } from '../faults/auth.mjs';
import { ISSUE_ID_BASE } from '../notes/nested.mjs';

export const CUSTOMERS_PATH = '/v1/customers';

export const INVOICES_PATH = '/v1/invoices';

/** A list's page size when a request names none, and the bounds of limit, as Stripe's. */
export const DEFAULT_LIMIT = 10;

export const MAX_LIMIT = 100;

/** The bounds of created a list request may give, as `created[<bound>]` (raw or percent-encoded). */
export const CREATED_BOUNDS = ['gte', 'gt', 'lt', 'lte'];

/** Whether a path is one of the Stripe-shaped lists. */
export function isStripePath(pathname) {
  return pathname === CUSTOMERS_PATH || pathname === INVOICES_PATH;
}

/** A refusal in Stripe's form: `{"error":{"type":"invalid_request_error","message":...,"param":...}}`. */
export function stripeError(status, message, param, headers) {
  return jsonBody(status, { error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) } }, headers);
}

class StripeRequestError extends Error {
  constructor(message, param) {
    super(message);
    this.param = param;
  }
}

/** The one value of query parameter `name`, or null when absent; two values are refused. */
function single(query, name) {
  const values = query.getAll(name);
  if (values.length > 1) throw new StripeRequestError(`Received more than one value for ${name}`, name);
  return values.length ? values[0] : null;
}

/** A request's limit: 10 when absent, else a plain integer from 1 to 100. */
export function parseLimit(query) {
  const value = single(query, 'limit');
  if (value === null) return DEFAULT_LIMIT;
  const limit = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    throw new StripeRequestError(`Invalid limit: must be an integer between 1 and ${MAX_LIMIT}, not ${JSON.stringify(value.slice(0, 100))}`, 'limit');
  }
  return limit;
}

/**
 * A request's created[gte], created[gt], created[lt] and created[lte], each at most once and an integer
 * of Unix seconds (an optional '-', at most 15 digits): `{min, max}`, the created values kept (both
 * inclusive, infinite where unbounded; every bound given holds), or null when none is given.
 */
export function parseCreated(query) {
  let min = -Infinity;
  let max = Infinity;
  let given = false;
  for (const bound of CREATED_BOUNDS) {
    const name = `created[${bound}]`;
    const value = single(query, name);
    if (value === null) continue;
    if (!/^-?\d{1,15}$/.test(value)) throw new StripeRequestError(`Invalid integer: ${JSON.stringify(value.slice(0, 100))}`, name);
    const s = Number(value);
    given = true;
    if (bound === 'gte') min = Math.max(min, s);
    else if (bound === 'gt') min = Math.max(min, s + 1);
    else if (bound === 'lt') max = Math.min(max, s - 1);
    else max = Math.min(max, s);
  }
  return given ? { min, max } : null;
}

/** The number `i` of an id `<prefix><i>` (i a plain decimal from 1, no leading zeros), or null. */
export function idNumber(id, prefix) {
  const match = new RegExp(`^${prefix}([1-9]\\d{0,15})$`).exec(id);
  return match ? Number(match[1]) : null;
}

/**
 * The page of a list of the items at positions lo+1..hi (item numbers: a customer's r, an invoice's
 * issue running number), `limit` of them after `after` (an item number in the list, or lo for none),
 * made by `make(number)`.
 */
export function listEnvelope(url, lo, hi, after, limit, make) {
  const end = Math.min(hi, after + limit);
  return {
    object: 'list',
    url,
    has_more: end < hi,
    data: Array.from({ length: end - after }, (_, k) => make(after + k + 1)),
  };
}

/**
 * The page of a list filtered by created: of its items at positions after+1..hi (as listEnvelope's),
 * the first `limit` whose `created(number)` is in `range` ({min, max}, as parseCreated), made by
 * `make(number)`; has_more when another such item follows. The scan stops at that one, so a walk by
 * starting_after reads each item at most twice, and nothing is made but the page.
 */
export function filteredEnvelope(url, hi, after, limit, range, created, make) {
  const kept = [];
  for (let n = after + 1; n <= hi && kept.length <= limit; n++) {
    const c = created(n);
    if (c >= range.min && c <= range.max) kept.push(n);
  }
  return { object: 'list', url, has_more: kept.length > limit, data: kept.slice(0, limit).map((n) => make(n)) };
}

/** The page of a list (listEnvelope), or with a range of created, of its items in the range (filteredEnvelope). */
function envelope(url, lo, hi, after, limit, range, created, make) {
  return range === null ? listEnvelope(url, lo, hi, after, limit, make) : filteredEnvelope(url, hi, after, limit, range, created, make);
}

/**
 * Answers GET /v1/customers or /v1/invoices on the main listener of a --repos server (`state.nested`):
 * the bearer token first when the server has one (the auth fault's 401), then 405 for another method,
 * then 400 for a bad limit or created bound, an unknown customer or an unknown starting_after, else the
 * list (its items in the range of created, when one is given).
 */
export function stripeResponse(req, pathname, query, state) {
  req.resume(); // a body, if any, is not read
  if (state.token !== null && !bearerMatches(req.headers.authorization, state.token)) return unauthorized();
  if (req.method !== 'GET') return stripeError(405, `Unrecognized request URL (${req.method}: ${pathname}).`, null, { Allow: 'GET' });
  const data = state.nested;
  try {
    const limit = parseLimit(query);
    const range = parseCreated(query);
    const startingAfter = single(query, 'starting_after');
    if (pathname === CUSTOMERS_PATH) {
      let after = 0;
      if (startingAfter !== null) {
        after = idNumber(startingAfter, 'cus_');
        if (!data.hasRepo(after)) throw new StripeRequestError(`No such customer: '${startingAfter.slice(0, 100)}'`, 'starting_after');
      }
      return jsonBody(200, envelope(CUSTOMERS_PATH, 0, data.repos, after, limit, range, (r) => data.customerCreated(r), (r) => data.customer(r)));
    }
    const customer = single(query, 'customer');
    let lo = 0;
    let hi = data.issueTotal();
    if (customer !== null) {
      const r = idNumber(customer, 'cus_');
      if (!data.hasRepo(r)) throw new StripeRequestError(`No such customer: '${customer.slice(0, 100)}'`, 'customer');
      lo = data.issueStart[r - 1];
      hi = data.issueStart[r];
    }
    let after = lo;
    if (startingAfter !== null) {
      const id = idNumber(startingAfter, 'in_');
      after = id === null ? NaN : id - ISSUE_ID_BASE;
      if (!(after > lo && after <= hi)) throw new StripeRequestError(`No such invoice: '${startingAfter.slice(0, 100)}'`, 'starting_after');
    }
    return jsonBody(200, envelope(INVOICES_PATH, lo, hi, after, limit, range, (g) => data.invoiceCreated(g), (g) => data.invoice(g)));
  } catch (error) {
    if (!(error instanceof StripeRequestError)) throw error;
    return stripeError(400, error.message, error.param);
  }
}
