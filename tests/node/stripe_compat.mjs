// Stripe SDK compatibility check for paysim: the official `stripe` Node package, pointed at a
// real paysim process, must create a charge and a refund, get the same refund back when it
// replays an idempotency key, raise StripeIdempotencyError when the amount changes under that key,
// and verify a paysim webhook with stripe.webhooks.constructEvent; and read a charge's story
// (amount_captured, created, disputed, card brand and last 4, expand: ['refunds'] with a refund
// made as in the dashboard) and its PaymentIntent, as Countersign's adapter reads them; the
// PaymentIntent field by field against Stripe's fixture and spec types (tests/data/stripe-fixtures),
// a refund by payment_intent landing on its latest charge, and a refund that settles later
// (refund_settles rule, /_sim/clock): retrieved failed with its failure_reason, listed by
// events.list({type: 'refund.failed'}), its webhook verified by stripe.webhooks.constructEvent.
//
// Usage: node tests/node/stripe_compat.mjs /path/to/paysim   (or PAYSIM_BIN=/path/to/paysim)
// Exit codes: 0 all checks passed, 1 a check failed, 77 skipped (node_modules absent: run
// `npm ci --prefix tests/node` first).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

  await chargeStory();
  await paymentIntentAsStripe();
  await settlingRefund();
}

async function admin(path, body) {
  const res = await fetch(new URL(path, baseUrl), {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

// The charge as the approver's view needs it (issue 19), through the official SDK.
async function chargeStory() {
  const ageSeconds = 200 * 86400;
  const seeded = await admin('/_sim/charges', {
    amounts: [9900], age_seconds: ageSeconds, source: 'tok_mastercard', card: { last4: '5100' },
  });
  const id = seeded.json.data[0].id;
  const made = [];
  for (let i = 0; i < 11; i += 1) {
    made.unshift((await stripe.refunds.create({
      charge: id, amount: 100, metadata: { countersign_action_id: `act_${i}` },
    })).id);
  }
  // "In the dashboard": no Countersign metadata.
  const dashboard = await stripe.refunds.create({ charge: id, amount: 500 });
  made.unshift(dashboard.id);
  const disputed = await admin(`/_sim/charges/${id}/dispute`, { reason: 'fraudulent' });
  check('admin dispute answers 200', disputed.status === 200 && disputed.json.disputed === true, JSON.stringify(disputed));

  const charge = await stripe.charges.retrieve(id, { expand: ['refunds'] });
  check('charge amount_captured', charge.amount_captured === 9900, JSON.stringify(charge));
  check('charge amount_refunded', charge.amount_refunded === 1600, `${charge.amount_refunded}`);
  check('charge disputed', charge.disputed === true);
  check('charge created in the past', Math.abs(charge.created - (Date.now() / 1000 - ageSeconds)) < 60, `${charge.created}`);
  check('payment_method_details.type card', charge.payment_method_details.type === 'card');
  check('card brand and last4', charge.payment_method_details.card.brand === 'mastercard'
    && charge.payment_method_details.card.last4 === '5100', JSON.stringify(charge.payment_method_details));
  const refunds = charge.refunds;
  check('expanded refunds is a list object', refunds && refunds.object === 'list' && Array.isArray(refunds.data)
    && refunds.url === `/v1/charges/${id}/refunds`, JSON.stringify(refunds));
  check('expanded refunds: the 10 newest, has_more', refunds.data.length === 10 && refunds.has_more === true
    && refunds.data.map((r) => r.id).join() === made.slice(0, 10).join());
  check('the dashboard refund leads, without metadata', refunds.data[0].id === dashboard.id
    && Object.keys(refunds.data[0].metadata).length === 0);
  const all = [];
  for await (const r of stripe.refunds.list({ charge: id, limit: 5 })) all.push(r.id);
  check('every refund of the charge through auto-pagination', all.join() === made.join(), JSON.stringify(all));
  const plain = await stripe.charges.retrieve(id);
  check('refunds null unless expanded (a nullable list in Stripe\'s spec)', plain.refunds === null,
    JSON.stringify(plain.refunds));

  const pi = await stripe.paymentIntents.retrieve(charge.payment_intent);
  check('payment intent retrieved', pi.object === 'payment_intent' && pi.id === charge.payment_intent
    && pi.status === 'succeeded' && pi.amount === 9900 && pi.amount_received === 9900 && pi.currency === 'usd'
    && pi.latest_charge === id && pi.created === charge.created && typeof pi.metadata === 'object', JSON.stringify(pi));
  const expanded = await stripe.paymentIntents.retrieve(charge.payment_intent, { expand: ['latest_charge'] });
  check('payment intent expands latest_charge', expanded.latest_charge.id === id
    && expanded.latest_charge.object === 'charge');
  try {
    await stripe.paymentIntents.retrieve('pi_missing');
    check('unknown payment intent raises', false, 'no error thrown');
  } catch (e) {
    check('unknown payment intent is resource_missing', e instanceof Stripe.errors.StripeInvalidRequestError
      && e.statusCode === 404 && e.code === 'resource_missing', `${e.type} ${e.code}`);
  }
}

// The JSON type a value has, in the spec's words.
function jsonType(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (Number.isInteger(v)) return 'integer';
  return typeof v === 'number' ? 'number' : typeof v;
}

async function paymentIntentAsStripe() {
  const fixtures = join(here, '..', 'data', 'stripe-fixtures');
  const fixture = JSON.parse(readFileSync(join(fixtures, 'payment_intent.json'), 'utf8'));
  const spec = JSON.parse(readFileSync(join(fixtures, 'spec-properties.json'), 'utf8')).payment_intent;
  const seeded = await admin('/_sim/charges', { amounts: [6400] });
  const charge = seeded.json.data[0];
  const pi = await stripe.paymentIntents.retrieve(charge.payment_intent);
  for (const key of Object.keys(fixture).sort()) {
    const property = spec[key];
    const type = jsonType(pi[key]);
    let ok;
    if (!(key in pi)) ok = false;
    else if (type === 'null') ok = property ? property.nullable : fixture[key] === null;
    else ok = property ? property.types.includes(type) : type === jsonType(fixture[key]);
    check(`payment_intent.${key} present as Stripe's spec types it`, ok, `${type} ${JSON.stringify(pi[key])}`);
  }
  check('payment intent coherent with its charge', pi.latest_charge === charge.id && pi.amount_received === 6400
    && pi.payment_method === charge.payment_method && pi.status === 'succeeded', JSON.stringify(pi));

  const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 400 });
  check('refund by payment_intent lands on its latest charge', refund.charge === pi.latest_charge
    && refund.payment_intent === pi.id && refund.payment_method === charge.payment_method, JSON.stringify(refund));
  const byIntent = await stripe.refunds.list({ payment_intent: pi.id });
  check('refunds listed by payment_intent', byIntent.data.length === 1 && byIntent.data[0].id === refund.id);
}

// A refund that is pending when created and fails later (docs/PAYSIM.md, refund_settles).
async function settlingRefund() {
  const rule = await admin('/_sim/faults', {
    fault: 'refund_settles', method: 'POST', path: '/v1/refunds', after_seconds: 3 * 86400,
    to: 'failed', failure_reason: 'expired_or_canceled_card',
  });
  check('refund_settles rule installed', rule.status === 200, JSON.stringify(rule.json));
  const seeded = await admin('/_sim/charges', { amounts: [2500] });
  const created = await stripe.refunds.create({ charge: seeded.json.data[0].id }, { idempotencyKey: 'settle-key-1' });
  check('settling refund answered pending', created.status === 'pending' && created.pending_reason === 'processing',
    JSON.stringify(created));
  // Replayed within the key's 24 h: the saved answer, pending (the clock jump below expires the key).
  const replay = await stripe.refunds.create({ charge: seeded.json.data[0].id }, { idempotencyKey: 'settle-key-1' });
  check('a replay answers the pending body', replay.id === created.id && replay.status === 'pending');
  await fetch(new URL('/_sim/faults', baseUrl), { method: 'DELETE' });
  const clock = await admin('/_sim/clock', { advance_ms: 3 * 86400 * 1000 });
  check('clock advanced three days', clock.status === 200);
  const settled = await stripe.refunds.retrieve(created.id);
  check('refund failed later, with its failure_reason', settled.status === 'failed'
    && settled.failure_reason === 'expired_or_canceled_card', JSON.stringify(settled));
  const failedEvents = await stripe.events.list({ type: 'refund.failed' });
  const event = failedEvents.data.find((e) => e.data.object.id === created.id);
  check('events.list finds refund.failed', event !== undefined && event.data.object.status === 'failed',
    JSON.stringify(failedEvents.data.map((e) => e.id)));
  const deadline = Date.now() + 5000;
  const isFailedHook = (r) => {
    const body = JSON.parse(r.body);
    return body.type === 'refund.failed' && body.data.object.id === created.id;
  };
  while (!received.some(isFailedHook) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const hook = received.find(isFailedHook);
  check('refund.failed webhook delivered', hook !== undefined);
  if (hook) {
    try {
      const verified = stripe.webhooks.constructEvent(hook.body, hook.signature, webhookSecret);
      check('refund.failed webhook verified by stripe.webhooks.constructEvent',
        verified.id === event?.id && verified.data.object.failure_reason === 'expired_or_canceled_card');
    } catch (e) {
      check('refund.failed webhook verified by stripe.webhooks.constructEvent', false, e.message);
    }
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
