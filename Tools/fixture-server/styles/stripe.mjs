// --repos: Stripe-shaped lists over the nested API's data (notes/nested.mjs): GET /v1/customers (repo i
// is customer cus_<i>) and GET /v1/invoices (each issue of repo i an invoice of cus_<i>), paged as
// Stripe pages (limit, starting_after, has_more). Errors in Stripe's form. Served by the nested API's
// routing (styles/nested.mjs), so its token rule and --latency hold here too.

import { jsonBody } from '../shared/http.mjs';
import { bearerMatches, unauthorized } from '../faults/auth.mjs';
import { ISSUE_ID_BASE } from '../notes/nested.mjs';

export const CUSTOMERS_PATH = '/v1/customers';

export const INVOICES_PATH = '/v1/invoices';

/** A list's page size when a request names none, and the bounds of limit, as Stripe's. */
export const DEFAULT_LIMIT = 10;

export const MAX_LIMIT = 100;

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
 * Answers GET /v1/customers or /v1/invoices on the main listener of a --repos server (`state.nested`):
 * the bearer token first when the server has one (the auth fault's 401), then 405 for another method,
 * then 400 for a bad limit, an unknown customer or an unknown starting_after, else the list.
 */
export function stripeResponse(req, pathname, query, state) {
  req.resume(); // a body, if any, is not read
  if (state.token !== null && !bearerMatches(req.headers.authorization, state.token)) return unauthorized();
  if (req.method !== 'GET') return stripeError(405, `Unrecognized request URL (${req.method}: ${pathname}).`, null, { Allow: 'GET' });
  const data = state.nested;
  try {
    const limit = parseLimit(query);
    const startingAfter = single(query, 'starting_after');
    if (pathname === CUSTOMERS_PATH) {
      let after = 0;
      if (startingAfter !== null) {
        after = idNumber(startingAfter, 'cus_');
        if (!data.hasRepo(after)) throw new StripeRequestError(`No such customer: '${startingAfter.slice(0, 100)}'`, 'starting_after');
      }
      return jsonBody(200, listEnvelope(CUSTOMERS_PATH, 0, data.repos, after, limit, (r) => data.customer(r)));
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
    return jsonBody(200, listEnvelope(INVOICES_PATH, lo, hi, after, limit, (g) => data.invoice(g)));
  } catch (error) {
    if (!(error instanceof StripeRequestError)) throw error;
    return stripeError(400, error.message, error.param);
  }
}
