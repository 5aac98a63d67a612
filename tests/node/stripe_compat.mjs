// Stripe SDK compatibility check for paysim: the official `stripe` Node package, pointed at a
// real paysim process, must create a charge and a refund, get the same refund back when it
// replays an idempotency key, raise StripeIdempotencyError when the amount changes under that key,
// and verify a paysim webhook with stripe.webhooks.constructEvent.
//
// Usage: node tests/node/stripe_compat.mjs /path/to/paysim   (or PAYSIM_BIN=/path/to/paysim)
// Exit codes: 0 all checks passed, 1 a check failed, 77 skipped (node_modules absent: run
// `npm ci --prefix tests/node` first).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, 'node_modules'))) {
  console.log('SKIP: tests/node/node_modules is absent; run `npm ci --prefix tests/node` to install the Stripe SDK.');
  process.exit(77);
}
const { default: Stripe } = await import('stripe');

const bin = process.argv[2] || process.env.PAYSIM_BIN;
if (!bin || !existsSync(bin)) {
  console.error(`FAIL: paysim binary not found (argv[2] or PAYSIM_BIN): ${bin}`);
  process.exit(1);
}

let passed = 0;
let failed = 0;
function check(name, condition, detail = '') {
  if (condition) {
    passed += 1;
    console.log(`PASS: ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL: ${name} ${detail}`);
  }
}

const webhookSecret = 'whsec_compat_secret';
const received = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => {
    received.push({ body, signature: req.headers['stripe-signature'] });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;

const sim = spawn(bin, ['--listen', '127.0.0.1:0', '--seed', '21', '--webhook-url', hookUrl,
  '--webhook-secret', webhookSecret], { stdio: ['ignore', 'pipe', 'inherit'] });
const simExit = new Promise((resolve) => sim.on('exit', (code, signal) => resolve({ code, signal })));
const baseUrl = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('paysim printed no URL within 10 s')), 10000);
  readline.createInterface({ input: sim.stdout }).once('line', (line) => {
    clearTimeout(timer);
    resolve(new URL(line.trim()));
  });
  sim.once('exit', (code) => reject(new Error(`paysim exited early with ${code}`)));
});
console.log(`paysim at ${baseUrl.href}`);

const stripe = new Stripe('sk_test_stripe_compat', {
  host: baseUrl.hostname,
  port: Number(baseUrl.port),
  protocol: 'http',
  maxNetworkRetries: 0,
  telemetry: false,
});

async function main() {
  const charge = await stripe.charges.create({
    amount: 4000, currency: 'usd', source: 'tok_visa', metadata: { order: '4821' },
  });
  check('charge created', charge.id.startsWith('ch_') && charge.amount === 4000 && charge.object === 'charge',
    JSON.stringify(charge));
  check('charge metadata round-trips', charge.metadata.order === '4821');

  const refund = await stripe.refunds.create({ charge: charge.id, amount: 4000 }, { idempotencyKey: 'compat-key-1' });
  check('refund created', refund.id.startsWith('re_') && refund.amount === 4000 && refund.status === 'succeeded',
    JSON.stringify(refund));
  check('request id exposed', typeof refund.lastResponse.requestId === 'string'
    && refund.lastResponse.requestId.startsWith('req_'));

  const replay = await stripe.refunds.create({ charge: charge.id, amount: 4000 }, { idempotencyKey: 'compat-key-1' });
  check('replay returns the same refund', replay.id === refund.id, `${replay.id} vs ${refund.id}`);
  check('replay marked Idempotent-Replayed', replay.lastResponse.headers['idempotent-replayed'] === 'true');

  try {
    await stripe.refunds.create({ charge: charge.id, amount: 4500 }, { idempotencyKey: 'compat-key-1' });
    check('changed amount under the same key raises', false, 'no error thrown');
  } catch (e) {
    check('changed amount raises StripeIdempotencyError', e instanceof Stripe.errors.StripeIdempotencyError,
      `${e.type} ${e.statusCode} ${e.message}`);
    check('StripeIdempotencyError has status 400', e.statusCode === 400);
  }

  try {
    await stripe.refunds.create({ charge: charge.id }, { idempotencyKey: 'compat-key-2' });
    check('refunding a fully refunded charge raises', false, 'no error thrown');
  } catch (e) {
    check('charge_already_refunded is StripeInvalidRequestError',
      e instanceof Stripe.errors.StripeInvalidRequestError && e.code === 'charge_already_refunded', `${e.type} ${e.code}`);
  }

  try {
    await stripe.charges.create({ amount: 500, currency: 'usd', source: 'tok_chargeDeclined' });
    check('declined card raises', false, 'no error thrown');
  } catch (e) {
    check('declined card is StripeCardError', e instanceof Stripe.errors.StripeCardError && e.code === 'card_declined',
      `${e.type} ${e.code}`);
  }

  const fetched = await stripe.refunds.retrieve(refund.id);
  check('refund retrieved', fetched.id === refund.id && fetched.amount === 4000);

  const listed = [];
  for await (const r of stripe.refunds.list({ charge: charge.id, limit: 1 })) listed.push(r.id);
  check('auto-pagination lists exactly one refund', listed.length === 1 && listed[0] === refund.id, JSON.stringify(listed));

  const truth = await (await fetch(new URL('/_sim/refunds', baseUrl))).json();
  check('ground truth: one refund committed', truth.data.length === 1, JSON.stringify(truth.data));

  const deadline = Date.now() + 5000;
  while (!received.some((r) => JSON.parse(r.body).type === 'refund.created') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const hook = received.find((r) => JSON.parse(r.body).type === 'refund.created');
  check('refund.created webhook delivered', hook !== undefined);
  if (hook) {
    try {
      const event = stripe.webhooks.constructEvent(hook.body, hook.signature, webhookSecret);
      check('webhook signature verified by stripe.webhooks.constructEvent', event.data.object.id === refund.id);
    } catch (e) {
      check('webhook signature verified by stripe.webhooks.constructEvent', false, e.message);
    }
    let rejected = false;
    try {
      stripe.webhooks.constructEvent(hook.body, hook.signature, 'whsec_wrong');
    } catch (e) {
      rejected = e instanceof Stripe.errors.StripeSignatureVerificationError;
    }
    check('webhook with the wrong secret is rejected', rejected);
  }
}

let crashed = null;
try {
  await main();
} catch (e) {
  crashed = e;
  console.log(`FAIL: unexpected error: ${e.stack || e}`);
}
sim.kill('SIGTERM');
const exit = await simExit;
check('paysim exits 0 on SIGTERM', exit.code === 0, JSON.stringify(exit));
receiver.close();
console.log(`${passed} passed, ${failed + (crashed ? 1 : 0)} failed`);
process.exit(failed === 0 && !crashed ? 0 : 1);
