// End-to-end tests: the Stripe-shaped lists of --repos (/v1/customers, /v1/invoices) over the nested
// API's data; the server runs as a child process on port 0 and is asked over HTTP
// (testing/harness.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { json, request, startServer, timed, withServer } from '../testing/harness.mjs';

/** Follows a Stripe list from `url` by starting_after until has_more is false; returns the items and the pages. */
async function walkStripe(url, options) {
  const items = [];
  const pages = [];
  for (let after = null; ;) {
    const target = new URL(url);
    if (after !== null) target.searchParams.set('starting_after', after);
    const response = await request(target.href, options);
    assert.equal(response.status, 200, target.href);
    const page = json(response);
    assert.deepEqual(Object.keys(page), ['object', 'url', 'has_more', 'data'], target.href);
    assert.equal(page.object, 'list');
    assert.equal(page.url, new URL(url).pathname);
    items.push(...page.data);
    pages.push(page);
    assert.ok(pages.length < 1000, 'a list without end');
    if (!page.has_more) break;
    assert.ok(page.data.length > 0, `has_more on an empty page: ${target.href}`);
    after = page.data.at(-1).id;
  }
  return { items, pages };
}

const stripeError = (answer) => {
  assert.equal(answer.status, 400);
  const body = json(answer);
  assert.equal(body.error.type, 'invalid_request_error');
  assert.equal(typeof body.error.message, 'string');
  return body.error;
};

describe('the Stripe-shaped lists (--repos)', () => {
  test('without --repos, /v1/customers is a 404 like any other path', async () => {
    const server = await startServer(['--count', '3', '--quiet']);
    try {
      assert.equal((await request(`${server.base}/v1/customers`)).status, 404);
      assert.equal((await request(`${server.base}/v1/invoices`)).status, 404);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('a walk of the customers by starting_after, then each one\'s invoices: counts as --fixed --issues, has_more false on the last page, 400s', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { code, lines } = await withServer(['--count', '1', '--repos', '23', '--issues', '5', '--comments', '0', '--fixed'], {}, async (server) => {
      const { items: customers, pages } = await walkStripe(`${server.base}/v1/customers?limit=4`, { agent });
      assert.equal(pages.length, 6);
      assert.deepEqual(pages.map((page) => page.has_more), [true, true, true, true, true, false]);
      assert.deepEqual(customers.map((c) => c.id), Array.from({ length: 23 }, (_, k) => `cus_${k + 1}`));
      for (const c of customers) {
        const i = c.id.slice(4);
        assert.deepEqual(c, { id: c.id, object: 'customer', name: `Customer ${i}`, email: `c${i}@example.com`, created: c.created });
        assert.ok(Number.isInteger(c.created));
      }
      const invoices = [];
      for (const c of customers) {
        const walked = await walkStripe(`${server.base}/v1/invoices?customer=${c.id}&limit=2`, { agent });
        assert.equal(walked.items.length, 5, c.id);
        assert.equal(walked.pages.length, 3, c.id);
        assert.equal(walked.pages.at(-1).has_more, false);
        for (const invoice of walked.items) {
          assert.equal(invoice.customer, c.id);
          assert.match(invoice.id, /^in_\d+$/);
          assert.equal(invoice.status, 'open');
          assert.ok(Number.isInteger(invoice.amount_due) && Number.isInteger(invoice.created));
        }
        invoices.push(...walked.items);
      }
      assert.equal(new Set(invoices.map((invoice) => invoice.id)).size, 23 * 5);
      // The issues are the invoices: the ids of repo 2's issues name its customer's invoices.
      const issues = json(await request(`${server.base}/repos/octo/repo-2/issues`, { agent }));
      assert.deepEqual(invoices.filter((invoice) => invoice.customer === 'cus_2').map((invoice) => invoice.id), issues.map((issue) => `in_${issue.id}`));
      // Without customer: every invoice, in the same order; limit defaults to 10.
      const all = await walkStripe(`${server.base}/v1/invoices`, { agent });
      assert.deepEqual(all.items, invoices);
      assert.ok(all.pages.slice(0, -1).every((page) => page.data.length === 10));
      const exact = json(await request(`${server.base}/v1/customers?limit=3&starting_after=cus_20`, { agent }));
      assert.equal(exact.has_more, false);
      assert.equal(exact.data.length, 3);
      // 400s in Stripe's form.
      assert.match(stripeError(await request(`${server.base}/v1/customers?limit=0`, { agent })).message, /limit/);
      assert.match(stripeError(await request(`${server.base}/v1/customers?limit=101`, { agent })).message, /limit/);
      assert.match(stripeError(await request(`${server.base}/v1/customers?starting_after=cus_24`, { agent })).message, /^No such customer: 'cus_24'$/);
      assert.match(stripeError(await request(`${server.base}/v1/invoices?customer=cus_0`, { agent })).message, /^No such customer/);
      assert.match(stripeError(await request(`${server.base}/v1/invoices?customer=cus_1&starting_after=${invoices.at(-1).id}`, { agent })).message, /^No such invoice/);
      const post = await request(`${server.base}/v1/customers`, { method: 'POST', agent });
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, 'GET');
    });
    agent.destroy();
    assert.equal(code, 0);
    assert.ok(lines.some((line) => /^GET \/v1\/invoices\?customer=cus_23&limit=2&starting_after=in_\d+ 200 /.test(line)));
  });

  test('--created-round 86400: day windows [gte, lt) walked by starting_after serve every item once, many on each edge; 400s for bad bounds', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const DAY = 86_400;
    const args = ['--count', '1', '--repos', '40', '--issues', '6', '--comments', '0', '--created-round', String(DAY)];
    const { code, lines } = await withServer(args, {}, async (server) => {
      for (const [path, limit] of [['/v1/customers', 2], ['/v1/invoices', 3]]) {
        const all = (await walkStripe(`${server.base}${path}?limit=100`, { agent })).items;
        const created = all.map((item) => item.created);
        assert.ok(created.every((c) => Number.isInteger(c) && c % DAY === 0), path);
        const edges = [...new Set(created)].sort((a, b) => a - b);
        const most = Math.max(...edges.map((edge) => created.filter((c) => c === edge).length));
        assert.ok(most > limit, `${path}: at most ${most} items on one day's edge`);
        // A window a day wide, [edge, edge + DAY), from the day before the first to the day after the last;
        // the first bound percent-encoded, the second raw.
        const union = [];
        for (let day = edges[0] - DAY; day <= edges.at(-1) + DAY; day += DAY) {
          const { items, pages } = await walkStripe(`${server.base}${path}?limit=${limit}&created%5Bgte%5D=${day}&created[lt]=${day + DAY}`, { agent });
          assert.deepEqual(items, all.filter((item) => item.created === day), `${path} day ${day}`);
          assert.ok(pages.slice(0, -1).every((page) => page.data.length === limit), `${path} day ${day}`);
          union.push(...items);
        }
        assert.equal(new Set(union.map((item) => item.id)).size, union.length, `${path}: an item twice`);
        assert.deepEqual(union.map((item) => item.id).sort(), all.map((item) => item.id).sort(), path);
      }
      // customer= still scopes the invoices (those of the customer with the most); created[gt] and created[lte] on it.
      const invoices = (await walkStripe(`${server.base}/v1/invoices?limit=100`, { agent })).items;
      const counts = new Map();
      for (const invoice of invoices) counts.set(invoice.customer, (counts.get(invoice.customer) ?? 0) + 1);
      const customer = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      const mine = invoices.filter((invoice) => invoice.customer === customer);
      const cut = mine[0].created;
      const later = await walkStripe(`${server.base}/v1/invoices?customer=${customer}&limit=1&created[gt]=${cut}`, { agent });
      assert.ok(later.items.length > 0);
      assert.deepEqual(later.items, mine.filter((invoice) => invoice.created > cut));
      const upTo = await walkStripe(`${server.base}/v1/invoices?customer=${customer}&created[lte]=${cut}`, { agent });
      assert.deepEqual(upTo.items, mine.filter((invoice) => invoice.created <= cut));
      // 400s in Stripe's form, param the bound's name.
      for (const [query, param, message] of [
        ['created[gte]=abc', 'created[gte]', /^Invalid integer: "abc"$/],
        ['created%5Blt%5D=1.5', 'created[lt]', /^Invalid integer: "1.5"$/],
        ['created[lte]=1234567890123456', 'created[lte]', /^Invalid integer/],
        ['created[gt]=1&created%5Bgt%5D=2', 'created[gt]', /more than one value/],
      ]) {
        for (const path of ['/v1/customers', '/v1/invoices']) {
          const error = stripeError(await request(`${server.base}${path}?${query}`, { agent }));
          assert.equal(error.param, param, `${path}?${query}`);
          assert.match(error.message, message, `${path}?${query}`);
        }
      }
    });
    agent.destroy();
    assert.equal(code, 0);
    assert.match(lines[0], /created rounded to 86400 s/);
    assert.ok(lines.some((line) => /^GET \/v1\/invoices\?limit=3&created%5Bgte%5D=\d+&created%5Blt%5D=\d+&starting_after=in_\d+ 200 /.test(line)));
  });

  test('the token rule and --latency of /repos hold here', async () => {
    const TOKEN = 'stripe-Token_1';
    const { code } = await withServer(['--count', '1', '--repos', '2', '--latency', '50'], { NOTES_SERVER_TOKEN: TOKEN }, async (server) => {
      const bearer = { authorization: `Bearer ${TOKEN}` };
      for (const target of ['/v1/customers', '/v1/invoices?customer=cus_1']) {
        const refused = await timed(request(`${server.base}${target}`));
        assert.equal(refused.status, 401, target);
        assert.ok(refused.ms >= 50 && refused.ms < 1000, `${target}: ${refused.ms} ms`);
        const served = await timed(request(`${server.base}${target}`, { headers: bearer }));
        assert.equal(served.status, 200, target);
        assert.ok(served.ms >= 50 && served.ms < 1000, `${target}: ${served.ms} ms`);
      }
      const bad = await timed(request(`${server.base}/v1/customers?limit=x`, { headers: bearer }));
      assert.equal(bad.status, 400);
      assert.ok(bad.ms >= 50);
    });
    assert.equal(code, 0);
  });
});
