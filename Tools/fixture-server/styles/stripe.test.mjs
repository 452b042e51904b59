// Unit tests of the Stripe-shaped lists (stripe.mjs) over the nested API's data: limit, ids, the
// envelope, and the answers to requests, errors included. Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NestedData } from '../notes/nested.mjs';
import { idNumber, isStripePath, listEnvelope, parseLimit, stripeResponse } from './stripe.mjs';

/** A request as stripeResponse reads it. */
const fakeRequest = (method = 'GET', authorization) => ({ method, headers: authorization ? { authorization } : {}, resume() {} });

/** stripeResponse's answer to `method path?query`: `{status, headers, body}` with the body parsed. */
function answer(state, target, method = 'GET', authorization) {
  const url = new URL(target, 'http://h:1');
  const response = stripeResponse(fakeRequest(method, authorization), url.pathname, url.searchParams, state);
  return { status: response.status, headers: response.headers, body: JSON.parse(Buffer.concat(response.parts).toString()) };
}

const stateOf = (data, token = null) => ({ nested: data, token });

describe('the Stripe-shaped lists', () => {
  test('paths, limit and ids', () => {
    assert.ok(isStripePath('/v1/customers') && isStripePath('/v1/invoices'));
    assert.ok(!isStripePath('/v1/customers/cus_1') && !isStripePath('/v1/databases/notes/query'));
    assert.equal(parseLimit(new URLSearchParams('')), 10);
    assert.equal(parseLimit(new URLSearchParams('limit=1')), 1);
    assert.equal(parseLimit(new URLSearchParams('limit=100')), 100);
    for (const bad of ['limit=0', 'limit=101', 'limit=x', 'limit=', 'limit=1.5', 'limit=-1', 'limit=1&limit=2']) {
      assert.throws(() => parseLimit(new URLSearchParams(bad)), /limit/, bad);
    }
    assert.equal(idNumber('cus_12', 'cus_'), 12);
    for (const bad of ['cus_0', 'cus_01', 'cus_', 'cus_1x', 'in_1', 'xcus_1']) assert.equal(idNumber(bad, 'cus_'), null, bad);
    assert.deepEqual(listEnvelope('/u', 0, 3, 1, 10, (i) => i), { object: 'list', url: '/u', has_more: false, data: [2, 3] });
    assert.deepEqual(listEnvelope('/u', 0, 3, 0, 2, (i) => i), { object: 'list', url: '/u', has_more: true, data: [1, 2] });
  });

  test('customers: the records, pages by starting_after, has_more only before the end', () => {
    const data = new NestedData(25, 3, 1, 42);
    const state = stateOf(data);
    const first = answer(state, '/v1/customers');
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body), ['object', 'url', 'has_more', 'data']);
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.data.length, 10);
    assert.deepEqual(first.body.data[0], { id: 'cus_1', object: 'customer', name: 'Customer 1', email: 'c1@example.com', created: first.body.data[0].created });
    assert.ok(Number.isInteger(first.body.data[0].created) && first.body.data[0].created >= Date.UTC(2026, 0, 1) / 1000);
    const ids = [];
    let after = null;
    for (let pages = 0; ; pages++) {
      assert.ok(pages < 10);
      const page = answer(state, `/v1/customers?limit=7${after ? `&starting_after=${after}` : ''}`).body;
      ids.push(...page.data.map((c) => c.id));
      if (!page.has_more) break;
      after = page.data.at(-1).id;
    }
    assert.deepEqual(ids, Array.from({ length: 25 }, (_, k) => `cus_${k + 1}`));
    assert.deepEqual(answer(state, '/v1/customers?starting_after=cus_25').body, { object: 'list', url: '/v1/customers', has_more: false, data: [] });
    assert.deepEqual(answer(state, '/v1/customers?limit=5&starting_after=cus_20').body.has_more, false);
  });

  test('invoices: one per issue of the customer\'s repo, by id; all of them without customer', () => {
    const data = new NestedData(6, 4, 0, 42);
    const state = stateOf(data);
    const all = [];
    for (let r = 1; r <= 6; r++) {
      const page = answer(state, `/v1/invoices?customer=cus_${r}&limit=100`).body;
      assert.equal(page.url, '/v1/invoices');
      assert.equal(page.has_more, false);
      const issues = data.issues(r, 'http://h:1');
      assert.deepEqual(page.data.map((invoice) => invoice.id), issues.map((issue) => `in_${issue.id}`));
      for (const invoice of page.data) {
        assert.deepEqual(Object.keys(invoice), ['id', 'object', 'customer', 'amount_due', 'status', 'created']);
        assert.equal(invoice.customer, `cus_${r}`);
        assert.equal(invoice.object, 'invoice');
        assert.equal(invoice.status, 'open');
        assert.ok(Number.isInteger(invoice.amount_due) && invoice.amount_due >= 100 && invoice.amount_due <= 100_000);
        assert.ok(Number.isInteger(invoice.created));
      }
      all.push(...page.data);
    }
    assert.ok(all.length > 0);
    assert.deepEqual(answer(state, '/v1/invoices?limit=100').body.data, all);
    // starting_after within a customer's invoices; another customer's invoice is not in the list.
    const r = [1, 2, 3, 4, 5, 6].find((k) => data.issueCount(k) >= 2);
    const mine = all.filter((invoice) => invoice.customer === `cus_${r}`);
    const rest = answer(state, `/v1/invoices?customer=cus_${r}&limit=1&starting_after=${mine[0].id}`).body;
    assert.deepEqual(rest.data, [mine[1]]);
    assert.equal(rest.has_more, mine.length > 2);
    const other = all.find((invoice) => invoice.customer !== `cus_${r}`);
    assert.equal(answer(state, `/v1/invoices?customer=cus_${r}&starting_after=${other.id}`).status, 400);
    // The same seed, the same invoices; a touch does not move created.
    assert.deepEqual(answer(stateOf(new NestedData(6, 4, 0, 42)), '/v1/invoices?limit=100').body.data, all);
    const issue = data.issues(r, 'http://h:1')[0];
    data.touch(r, issue.number);
    assert.deepEqual(answer(state, '/v1/invoices?limit=100').body.data, all);
  });

  test('errors: 400 in Stripe\'s form, 405, the token', () => {
    const state = stateOf(new NestedData(3, 2, 0, 1, true));
    for (const [target, param, message] of [
      ['/v1/customers?limit=0', 'limit', /^Invalid limit/],
      ['/v1/customers?limit=101', 'limit', /^Invalid limit/],
      ['/v1/invoices?limit=abc', 'limit', /^Invalid limit/],
      ['/v1/customers?starting_after=cus_4', 'starting_after', /^No such customer: 'cus_4'$/],
      ['/v1/customers?starting_after=nope', 'starting_after', /^No such customer/],
      ['/v1/invoices?customer=cus_9', 'customer', /^No such customer: 'cus_9'$/],
      ['/v1/invoices?customer=', 'customer', /^No such customer/],
      ['/v1/invoices?starting_after=in_1', 'starting_after', /^No such invoice/],
      ['/v1/invoices?starting_after=in_1000007', 'starting_after', /^No such invoice/],
      ['/v1/invoices?customer=cus_1&customer=cus_2', 'customer', /more than one/],
    ]) {
      const { status, body } = answer(state, target);
      assert.equal(status, 400, target);
      assert.deepEqual(Object.keys(body), ['error'], target);
      assert.equal(body.error.type, 'invalid_request_error', target);
      assert.equal(body.error.param, param, target);
      assert.match(body.error.message, message, target);
    }
    assert.equal(answer(state, '/v1/invoices?starting_after=in_1000006').body.data.length, 0);
    const post = answer(state, '/v1/customers', 'POST');
    assert.equal(post.status, 405);
    assert.equal(post.headers.Allow, 'GET');
    assert.equal(post.body.error.type, 'invalid_request_error');
    const guarded = stateOf(new NestedData(3, 2, 0, 1), 'tok');
    assert.equal(answer(guarded, '/v1/customers').status, 401);
    assert.equal(answer(guarded, '/v1/invoices', 'GET', 'Bearer wrong').status, 401);
    assert.equal(answer(guarded, '/v1/invoices', 'GET', 'Bearer tok').status, 200);
  });
});
