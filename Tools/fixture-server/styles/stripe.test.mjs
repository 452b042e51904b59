// Unit tests of the Stripe-shaped lists (stripe.mjs) over the nested API's data: limit, ids, the
// envelope, the created filters and walks in time windows, and the answers to requests, errors
// included. Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NestedData } from '../notes/nested.mjs';
import { filteredEnvelope, idNumber, isStripePath, listEnvelope, parseCreated, parseLimit, stripeResponse } from './stripe.mjs';

/** A request as stripeResponse reads it. */
const fakeRequest = (method = 'GET', authorization) => ({ method, headers: authorization ? { authorization } : {}, resume() {} });

/** stripeResponse's answer to `method path?query`: `{status, headers, body}` with the body parsed. */
function answer(state, target, method = 'GET', authorization) {
  const url = new URL(target, 'http://h:1');
  const response = stripeResponse(fakeRequest(method, authorization), url.pathname, url.searchParams, state);
  return { status: response.status, headers: response.headers, body: JSON.parse(Buffer.concat(response.parts).toString()) };
}

const stateOf = (data, token = null) => ({ nested: data, token });

/** Follows a list from `target` by starting_after until has_more is false: its items and its pages. */
function walkList(state, target) {
  const items = [];
  const pages = [];
  for (let after = null; ;) {
    const url = new URL(target, 'http://h:1');
    if (after !== null) url.searchParams.set('starting_after', after);
    const { status, body } = answer(state, `${url.pathname}${url.search}`);
    assert.equal(status, 200, `${url.search}: ${JSON.stringify(body)}`);
    items.push(...body.data);
    pages.push(body);
    assert.ok(pages.length < 10_000, 'a list without end');
    if (!body.has_more) break;
    assert.ok(body.data.length > 0, `has_more on an empty page: ${url.search}`);
    after = body.data.at(-1).id;
  }
  return { items, pages };
}

/**
 * The windows of created that tile every value: below edges[0], [edges[0], edges[1]), ..., from
 * edges.at(-1) on, with gte and lt; with `closedAbove`, (edges[0], edges[1]] and so on, with gt and
 * lte instead. Each is `{query, a, b, keeps(created)}`, a and b its edges (null where unbounded).
 */
function windows(edges, closedAbove = false) {
  const [low, high] = closedAbove ? ['gt', 'lte'] : ['gte', 'lt'];
  const above = (created, a) => a === null || (closedAbove ? created > a : created >= a);
  const below = (created, b) => b === null || (closedAbove ? created <= b : created < b);
  const bounds = [null, ...edges, null];
  return bounds.slice(0, -1).map((a, k) => {
    const b = bounds[k + 1];
    const query = [a === null ? '' : `created[${low}]=${a}`, b === null ? '' : `created[${high}]=${b}`].filter(Boolean).join('&');
    return { query, a, b, keeps: (created) => above(created, a) && below(created, b) };
  });
}

/** Edges every `step` seconds from `from` until past `to`. */
const edgesOf = (from, to, step) => Array.from({ length: Math.floor((to - from) / step) + 2 }, (_, k) => from + k * step);

/** `path` with more query text. */
const withQuery = (path, query) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

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

  test('created: parseCreated and filteredEnvelope', () => {
    assert.equal(parseCreated(new URLSearchParams('')), null);
    assert.equal(parseCreated(new URLSearchParams('created=5&created[eq]=5')), null);
    assert.deepEqual(parseCreated(new URLSearchParams('created[gte]=5')), { min: 5, max: Infinity });
    assert.deepEqual(parseCreated(new URLSearchParams('created[gt]=5')), { min: 6, max: Infinity });
    assert.deepEqual(parseCreated(new URLSearchParams('created[lt]=5')), { min: -Infinity, max: 4 });
    assert.deepEqual(parseCreated(new URLSearchParams('created[lte]=5')), { min: -Infinity, max: 5 });
    assert.deepEqual(parseCreated(new URLSearchParams('created%5Bgte%5D=-3&created%5Blt%5D=999999999999999')), { min: -3, max: 999_999_999_999_998 });
    // Every bound holds: the tighter of gte and gt, of lt and lte.
    assert.deepEqual(parseCreated(new URLSearchParams('created[gte]=5&created[gt]=5&created[lt]=9&created[lte]=9')), { min: 6, max: 8 });
    assert.deepEqual(parseCreated(new URLSearchParams('created[gte]=7&created[gt]=2&created[lt]=20&created[lte]=10')), { min: 7, max: 10 });
    for (const [query, name] of [['created[gte]=abc', 'created[gte]'], ['created[lt]=', 'created[lt]'], ['created[gt]=1.5', 'created[gt]'],
      ['created[lte]=1e3', 'created[lte]'], ['created[gte]=+5', 'created[gte]'], ['created[gte]=1234567890123456', 'created[gte]'],
      ['created[gte]=--1', 'created[gte]'], ['created[lt]=%201', 'created[lt]'], ['created%5Bgt%5D=0x10', 'created[gt]'],
      ['created[gte]=1&created[gte]=2', 'created[gte]'], ['created[lte]=1&created%5Blte%5D=1', 'created[lte]']]) {
      assert.throws(() => parseCreated(new URLSearchParams(query)), (error) => error.param === name, query);
    }
    // The first `limit` kept after `after`, has_more while one more follows; only the page is made.
    const made = [];
    const make = (n) => {
      made.push(n);
      return n;
    };
    const odd = (n) => n % 2;
    const even = { min: 0, max: 0 };
    assert.deepEqual(filteredEnvelope('/u', 10, 0, 3, even, odd, make), { object: 'list', url: '/u', has_more: true, data: [2, 4, 6] });
    assert.deepEqual(filteredEnvelope('/u', 10, 6, 3, even, odd, make), { object: 'list', url: '/u', has_more: false, data: [8, 10] });
    assert.deepEqual(filteredEnvelope('/u', 10, 3, 4, even, odd, make), { object: 'list', url: '/u', has_more: false, data: [4, 6, 8, 10] });
    assert.deepEqual(filteredEnvelope('/u', 10, 10, 4, even, odd, make), { object: 'list', url: '/u', has_more: false, data: [] });
    assert.deepEqual(made, [2, 4, 6, 8, 10, 4, 6, 8, 10]);
    // It reads no further than the kept item after the page.
    const read = [];
    filteredEnvelope('/u', 1000, 0, 2, even, (n) => {
      read.push(n);
      return odd(n);
    }, make);
    assert.deepEqual(read, [1, 2, 3, 4, 5, 6]);
  });

  test('created: the four bounds on customers and invoices, customer= still scoping, the same order', () => {
    const data = new NestedData(40, 3, 0, 42);
    const state = stateOf(data);
    const customers = answer(state, '/v1/customers?limit=100').body.data;
    const invoices = walkList(state, '/v1/invoices?limit=100').items;
    assert.equal(customers.length, 40);
    for (const [path, all] of [['/v1/customers', customers], ['/v1/invoices', invoices]]) {
      const sorted = all.map((item) => item.created).sort((a, b) => a - b);
      const pivot = sorted[Math.floor(sorted.length / 2)];
      for (const [bound, keeps] of [['gte', (c) => c >= pivot], ['gt', (c) => c > pivot], ['lt', (c) => c < pivot], ['lte', (c) => c <= pivot]]) {
        for (const name of [`created[${bound}]`, `created%5B${bound}%5D`]) {
          const kept = walkList(state, `${path}?limit=100&${name}=${pivot}`).items;
          assert.deepEqual(kept, all.filter((item) => keeps(item.created)), `${path} ${name}`);
          assert.ok(kept.length > 0 && kept.length < all.length, `${path} ${name}`);
        }
      }
      // gte and lte of one value: exactly the items created then; an empty range: none.
      const exact = answer(state, `${path}?limit=100&created[gte]=${pivot}&created[lte]=${pivot}`).body;
      assert.deepEqual(exact.data, all.filter((item) => item.created === pivot));
      assert.deepEqual(answer(state, `${path}?created[gt]=${pivot}&created[lt]=${pivot + 1}`).body, { object: 'list', url: path, has_more: false, data: [] });
      assert.deepEqual(answer(state, `${path}?limit=100&created[gt]=-1`).body.data, all.slice(0, 100));
      assert.deepEqual(answer(state, `${path}?created[lt]=-5`).body, { object: 'list', url: path, has_more: false, data: [] });
      // has_more exactly when more kept items follow.
      const early = all.filter((item) => item.created < pivot);
      const page = answer(state, `${path}?limit=${early.length}&created[lt]=${pivot}`).body;
      assert.deepEqual([page.data, page.has_more], [early, false]);
      const short = answer(state, `${path}?limit=${early.length - 1}&created[lt]=${pivot}`).body;
      assert.deepEqual([short.data, short.has_more], [early.slice(0, -1), true]);
      // starting_after: any id of the unfiltered list, kept or not; the page holds the kept items after it.
      for (const from of [all[0], all.find((item) => item.created >= pivot), all.at(-2)]) {
        const rest = all.slice(all.indexOf(from) + 1).filter((item) => item.created < pivot);
        const after = answer(state, `${path}?limit=100&created[lt]=${pivot}&starting_after=${from.id}`).body;
        assert.deepEqual([after.data, after.has_more], [rest.slice(0, 100), rest.length > 100], from.id);
      }
    }
    // customer= still scopes the invoices, and starting_after is still one of that customer's.
    const r = Array.from({ length: 40 }, (_, k) => k + 1).find((k) => data.issueCount(k) >= 3);
    const mine = invoices.filter((invoice) => invoice.customer === `cus_${r}`);
    const cut = mine[1].created;
    assert.deepEqual(answer(state, `/v1/invoices?customer=cus_${r}&created[gte]=${cut}`).body.data, mine.filter((invoice) => invoice.created >= cut));
    assert.deepEqual(answer(state, `/v1/invoices?customer=cus_${r}&created[lte]=${cut}&starting_after=${mine[0].id}`).body.data,
      mine.slice(1).filter((invoice) => invoice.created <= cut));
    const other = invoices.find((invoice) => invoice.customer !== `cus_${r}`);
    assert.equal(answer(state, `/v1/invoices?customer=cus_${r}&created[gte]=0&starting_after=${other.id}`).body.error.param, 'starting_after');
  });

  test('--created-round: created rounded down to a multiple of S, many items on each day\'s edge', () => {
    const plain = new NestedData(50, 4, 0, 7);
    const daily = new NestedData(50, 4, 0, 7, false, 86_400);
    const yearly = new NestedData(50, 4, 0, 7, false, 31_536_000);
    const plainAll = walkList(stateOf(plain), '/v1/invoices?limit=100').items;
    const dailyAll = walkList(stateOf(daily), '/v1/invoices?limit=100').items;
    const withoutCreated = ({ created, ...rest }) => rest;
    assert.deepEqual(dailyAll.map(withoutCreated), plainAll.map(withoutCreated));
    assert.deepEqual(dailyAll.map((invoice) => invoice.created), plainAll.map((invoice) => invoice.created - (invoice.created % 86_400)));
    assert.ok(plainAll.some((invoice) => invoice.created % 86_400 !== 0));
    assert.ok(dailyAll.length > 100 && new Set(dailyAll.map((invoice) => invoice.created)).size <= 31);
    for (let r = 1; r <= 50; r++) {
      assert.equal(daily.customer(r).created, plain.customer(r).created - (plain.customer(r).created % 86_400));
      assert.equal(yearly.customer(r).created % 31_536_000, 0);
    }
  });

  for (const [label, round, repos, issues, steps] of [
    ['whole seconds', 1, 30, 4, [100_000, 7 * 86_400 + 13]],
    ['--created-round 86400', 86_400, 60, 8, [86_400, 3 * 86_400, 100_000]],
  ]) {
    test(`created: windows that tile the range, each walked by starting_after, serve every item once (${label})`, () => {
      const data = new NestedData(repos, issues, 0, 42, false, round);
      const state = stateOf(data);
      const busiest = Array.from({ length: repos }, (_, k) => k + 1).reduce((a, b) => (data.issueCount(b) > data.issueCount(a) ? b : a));
      // Each list with its page size and, with a round, how many items at least share a timestamp.
      for (const [path, limit, sharing] of [['/v1/customers', 3, 3], ['/v1/invoices', 4, 10], [`/v1/invoices?customer=cus_${busiest}`, 2, 2]]) {
        const all = walkList(state, withQuery(path, 'limit=100')).items;
        assert.ok(all.length > 5, path);
        const created = all.map((item) => item.created);
        const [first, last] = [Math.min(...created), Math.max(...created)];
        if (round > 1) {
          // Many items share exactly the timestamp at a day's edge, where windows meet.
          assert.ok(created.every((c) => c % round === 0));
          const shared = Math.max(...[...new Set(created)].map((c) => created.filter((d) => d === c).length));
          assert.ok(shared >= sharing, `${path}: at most ${shared} share a timestamp`);
        }
        for (const step of steps) {
          for (const closedAbove of [false, true]) {
            const union = [];
            for (const window of windows(edgesOf(first - (first % round), last, step), closedAbove)) {
              const { items, pages } = walkList(state, withQuery(path, `limit=${limit}&${window.query}`));
              assert.deepEqual(items, all.filter((item) => window.keeps(item.created)), `${path} ${window.query}`);
              assert.ok(pages.slice(0, -1).every((page) => page.data.length === limit && page.has_more));
              if (round === step && !closedAbove && window.a !== null && window.b !== null) {
                assert.ok(items.every((item) => item.created === window.a), `${path} ${window.query}`);
              }
              union.push(...items);
            }
            const ids = union.map((item) => item.id);
            assert.equal(new Set(ids).size, ids.length, `${path} step ${step}: an item twice`);
            assert.deepEqual(ids.sort(), all.map((item) => item.id).sort(), `${path} step ${step}`);
          }
        }
      }
    });
  }

  test('created: a walk of a window reads each item at most about twice and makes only its pages', () => {
    const data = new NestedData(200, 10, 0, 3, false, 86_400);
    const state = stateOf(data);
    let read = 0;
    let made = 0;
    const created = data.invoiceCreated.bind(data);
    const invoice = data.invoice.bind(data);
    data.invoiceCreated = (g) => {
      read++;
      return created(g);
    };
    data.invoice = (g) => {
      made++;
      return invoice(g);
    };
    const total = data.issueTotal();
    const [from, to] = [Date.UTC(2026, 0, 10) / 1000, Date.UTC(2026, 0, 12) / 1000];
    for (const query of ['created[lt]=0', 'created[gte]=0', `created[gte]=${from}&created[lt]=${to}`]) {
      read = 0;
      made = 0;
      const { items, pages } = walkList(state, `/v1/invoices?limit=5&${query}`);
      assert.equal(made, items.length, query);
      assert.ok(read <= 2 * total + pages.length, `${query}: ${read} reads of ${total} invoices over ${pages.length} pages`);
    }
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
      ['/v1/customers?created[gte]=abc', 'created[gte]', /^Invalid integer: "abc"$/],
      ['/v1/customers?created%5Bgt%5D=1.5', 'created[gt]', /^Invalid integer: "1.5"$/],
      ['/v1/invoices?created[lt]=', 'created[lt]', /^Invalid integer: ""$/],
      ['/v1/invoices?customer=cus_1&created[lte]=1e9', 'created[lte]', /^Invalid integer: "1e9"$/],
      ['/v1/invoices?created[lte]=1234567890123456', 'created[lte]', /^Invalid integer/],
      ['/v1/customers?created[gte]=1&created[gte]=2', 'created[gte]', /^Received more than one value for created\[gte\]$/],
      ['/v1/invoices?created[lt]=1&created%5Blt%5D=1', 'created[lt]', /more than one/],
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
