#!/usr/bin/env node
// Contract test of countersignd's REST API: validates resources/openapi.yaml with
// @apidevtools/swagger-parser, starts paysim and countersignd (real binaries, loopback, ephemeral
// ports), calls every endpoint — successes and errors — and validates every response against the
// dereferenced OpenAPI schema with Ajv (status declared, content type declared, body schema,
// declared headers such as ETag).
//
//   node tests/node/api_contract.mjs <countersignd> <paysim> <openapi.yaml>
//
// Exit codes: 0 all responses conform, 1 a mismatch or failure (printed), 77 when the npm
// packages are not installed (run `npm ci --prefix tests/node`).

import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const [countersignd, paysim, specFile] = process.argv.slice(2);
if (!countersignd || !paysim || !specFile) {
    console.error('usage: node api_contract.mjs <countersignd> <paysim> <openapi.yaml>');
    process.exit(1);
}

let SwaggerParser, Ajv, addFormats;
try {
    SwaggerParser = (await import('@apidevtools/swagger-parser')).default;
    Ajv = (await import('ajv')).default;
    addFormats = (await import('ajv-formats')).default;
} catch (error) {
    console.error(`SKIP: cannot import the npm packages (${error.message}); run npm ci --prefix tests/node`);
    process.exit(77);
}

const children = [];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-api-contract-'));
function cleanup() {
    for (const child of children) {
        if (child.exitCode === null) child.kill('SIGTERM');
    }
    fs.rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', cleanup);

// --- the contract ------------------------------------------------------------------------------

await SwaggerParser.validate(path.resolve(specFile)); // throws on an invalid document
console.log('openapi.yaml valid (swagger-parser)');
const spec = await SwaggerParser.dereference(path.resolve(specFile));

// OpenAPI 3.0 schema -> JSON Schema: `nullable: true` becomes anyOf [schema, null] (the 3.0.3
// meaning, also where nullable sits beside allOf), OpenAPI-only keywords are dropped.
function toJsonSchema(schema, seen = new Map()) {
    if (Array.isArray(schema)) return schema.map((s) => toJsonSchema(s, seen));
    if (!schema || typeof schema !== 'object') return schema;
    if (seen.has(schema)) return seen.get(schema);
    const out = {};
    seen.set(schema, out);
    for (const [key, value] of Object.entries(schema)) {
        if (['nullable', 'example', 'xml', 'externalDocs', 'deprecated', 'discriminator', 'readOnly', 'writeOnly'].includes(key)) continue;
        if (key.startsWith('x-')) continue;
        out[key] = ['properties', 'patternProperties'].includes(key)
            ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v, seen)]))
            : toJsonSchema(value, seen);
    }
    if (schema.nullable === true) {
        const inner = { ...out };
        for (const k of Object.keys(out)) delete out[k];
        out.anyOf = [inner, { type: 'null' }];
        if (schema.description) out.description = schema.description;
    }
    return out;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addFormat('int64', { type: 'number', validate: (n) => Number.isInteger(n) });

const operations = [];
for (const [template, item] of Object.entries(spec.paths)) {
    const regex = new RegExp('^' + template.replace(/\{[^}]+\}/g, '[^/]+') + '$');
    for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
        if (item[method]) operations.push({ template, regex, method: method.toUpperCase(), op: item[method] });
    }
}

let checked = 0;
const failures = [];
const statusSeen = new Map();

function validateResponse(method, pathOnly, status, headers, bodyText, what) {
    const found = operations.find((o) => o.method === method && o.regex.test(pathOnly));
    const label = `${what}: ${method} ${pathOnly} -> ${status}`;
    if (!found) {
        if (status === 404 || status === 405) return; // unknown route: not in the contract by design
        failures.push(`${label}: no such operation in the contract`);
        return;
    }
    const response = found.op.responses[String(status)] ?? found.op.responses.default;
    if (!response) {
        failures.push(`${label}: status not declared (declared: ${Object.keys(found.op.responses).join(', ')})`);
        return;
    }
    const key = `${found.method} ${found.template} ${status}`;
    statusSeen.set(key, (statusSeen.get(key) ?? 0) + 1);
    const contentType = (headers.get('content-type') ?? '').split(';')[0].trim();
    if (response.content) {
        const media = response.content[contentType];
        if (!media) {
            failures.push(`${label}: content type "${contentType}" not declared (${Object.keys(response.content).join(', ')})`);
            return;
        }
        if (media.schema && contentType !== 'text/event-stream') {
            let body;
            try {
                body = JSON.parse(bodyText);
            } catch (error) {
                failures.push(`${label}: body is not JSON: ${error.message}`);
                return;
            }
            const validate = ajv.compile(toJsonSchema(media.schema));
            if (!validate(body)) {
                failures.push(`${label}: body does not match the schema: ${ajv.errorsText(validate.errors)}\n    ${bodyText.slice(0, 400)}`);
                return;
            }
        }
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
        const value = headers.get(name.toLowerCase());
        if (value === null || !header.schema) continue;
        const schema = toJsonSchema(header.schema);
        const typed = schema.type === 'integer' ? Number(value) : value;
        const validate = ajv.compile(schema);
        if (!validate(typed)) failures.push(`${label}: header ${name}: "${value}" ${ajv.errorsText(validate.errors)}`);
    }
    checked += 1;
}

// --- services ----------------------------------------------------------------------------------

function startService(program, args) {
    return new Promise((resolve, reject) => {
        const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        let stderr = '';
        child.stderr.on('data', (d) => { stderr += d; });
        const lines = readline.createInterface({ input: child.stdout });
        lines.once('line', (line) => resolve({ child, url: line.trim() }));
        child.once('exit', (code) => reject(new Error(`${path.basename(program)} exited (${code}): ${stderr}`)));
        setTimeout(() => reject(new Error(`${path.basename(program)} printed no URL`)), 10000);
    });
}

const sim = await startService(paysim, ['--listen', '127.0.0.1:0']);
const db = path.join(tmp, 'ledger.db');
const tokens = {};
for (const [name, role] of [['agent-7', 'agent'], ['ana', 'approver'], ['sam', 'supervisor'], ['aud', 'auditor'], ['root', 'admin']]) {
    const result = spawnSync(countersignd, ['user', 'add', name, '--role', role, '--db', db], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`user add ${name}: ${result.stderr}`);
    tokens[name] = result.stdout.trim().split(/\s+/).pop();
}
fs.writeFileSync(path.join(tmp, 'key'), 'sk_test_contract\n');
const secret = 'whsec_contract';
fs.writeFileSync(path.join(tmp, 'whsec'), secret);
fs.writeFileSync(path.join(tmp, 'exec.json'), JSON.stringify({ idle_poll_ms: 50, backoff_base_ms: 100, backoff_max_ms: 500, request_timeout_ms: 3000, lease_duration_ms: 15000 }));
const service = await startService(countersignd, ['serve', '--db', db, '--listen', '127.0.0.1:0', '--provider', 'paysim',
    '--provider-url', sim.url, '--provider-key-file', path.join(tmp, 'key'), '--webhook-secret-file', path.join(tmp, 'whsec'),
    '--execution-config', path.join(tmp, 'exec.json')]);
const api = `${service.url}/api/v1`;

async function call(what, method, pathAndQuery, { token, body, headers = {}, raw } = {}) {
    const all = { ...headers };
    if (token) all.authorization = `Bearer ${token}`;
    let payload;
    if (raw !== undefined) payload = raw;
    else if (body !== undefined) {
        payload = JSON.stringify(body);
        all['content-type'] ??= 'application/json';
    }
    const response = await fetch(api + pathAndQuery, { method, headers: all, body: payload });
    const text = await response.text();
    validateResponse(method, pathAndQuery.split('?')[0], response.status, response.headers, text, what);
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    return { status: response.status, headers: response.headers, json, text };
}
async function sim_(method, p, body) {
    const response = await fetch(sim.url + p, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return response.json();
}
function expect(condition, message) {
    if (!condition) failures.push(message);
}
async function until(what, predicate, timeoutMs = 15000) {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
        if (await predicate()) return true;
        await new Promise((r) => setTimeout(r, 100));
    }
    failures.push(`timed out waiting for ${what}`);
    return false;
}
async function seedCharge(amount) {
    const answer = await sim_('POST', '/_sim/charges', { count: 1, amount });
    const list = answer.data ?? answer.charges ?? answer.created ?? [];
    return list[0].id;
}
const proposal = (ref, amount, charge) => ({ kind: 'refund', target: { charge }, amount, currency: 'usd',
    reason: 'requested_by_customer', client_reference: ref, business_reference: 'order-contract' });
const stateOf = async (id) => (await call('state', 'GET', `/actions/${id}`, { token: tokens.aud })).json?.state;

try {
    // Service endpoints.
    await call('health', 'GET', '/health');
    await call('me', 'GET', '/me', { token: tokens.ana });
    await call('me without token', 'GET', '/me');
    await call('me with an unknown token', 'GET', '/me', { token: 'cst_nope' });

    // Propose: 201, 200 (identical), 409 (changed), 422, 400, 415, 413, 403.
    // Large enough for the $40, the admin's $1 and the $5 follow-up below: countersignd reads the
    // charge at every proposal and refuses one that does not fit (exceeds_refundable).
    const charge = await seedCharge(10000);
    const created = await call('propose', 'POST', '/actions', { token: tokens['agent-7'], body: proposal('c-1', 4000, charge), headers: { 'idempotency-key': 'contract-1' } });
    expect(created.status === 201, `propose: ${created.status} ${created.text}`);
    const id = created.json.id;
    await call('propose replayed', 'POST', '/actions', { token: tokens['agent-7'], body: proposal('c-1', 4000, charge), headers: { 'idempotency-key': 'contract-1' } });
    await call('propose identical', 'POST', '/actions', { token: tokens['agent-7'], body: proposal('c-1', 4000, charge) });
    await call('propose invalid', 'POST', '/actions', { token: tokens['agent-7'], body: { kind: 'refund', amount: '40', provider: 'x' } });
    await call('propose malformed', 'POST', '/actions', { token: tokens['agent-7'], raw: '{nope', headers: { 'content-type': 'application/json' } });
    await call('propose duplicate member', 'POST', '/actions', { token: tokens['agent-7'], raw: '{"amount":100,"amount":999999}', headers: { 'content-type': 'application/json' } });
    await call('propose exponent amount', 'POST', '/actions', { token: tokens['agent-7'], raw: '{"kind":"refund","target":{"charge":"ch_x1"},"amount":1e2,"currency":"usd","client_reference":"c-e"}', headers: { 'content-type': 'application/json' } });
    await call('propose lone surrogate', 'POST', '/actions', { token: tokens['agent-7'], raw: '{"kind":"refund","target":{"charge":"ch_x1"},"amount":100,"currency":"usd","client_reference":"c-\\ud800"}', headers: { 'content-type': 'application/json' } });
    await call('propose form', 'POST', '/actions', { token: tokens['agent-7'], raw: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await call('propose oversized', 'POST', '/actions', { token: tokens['agent-7'], raw: ' '.repeat(70000) + '{}', headers: { 'content-type': 'application/json' } });
    await call('propose by an auditor', 'POST', '/actions', { token: tokens.aud, body: proposal('c-x', 4000, charge) });
    await call('propose key reuse', 'POST', '/actions', { token: tokens['agent-7'], body: proposal('c-2', 4000, charge), headers: { 'idempotency-key': 'contract-1' } });

    // List and detail.
    const page = await call('list', 'GET', '/actions?state=queue,COMPLETED&limit=1', { token: tokens.ana });
    if (page.json?.next_cursor) await call('list page 2', 'GET', `/actions?state=queue,COMPLETED&limit=1&cursor=${page.json.next_cursor}`, { token: tokens.ana });
    const sorted = await call('list sorted', 'GET', '/actions?state=queue,COMPLETED&sort=-amount&limit=1', { token: tokens.ana });
    if (sorted.json?.next_cursor) await call('list sorted page 2', 'GET', `/actions?state=queue,COMPLETED&sort=-amount&limit=1&cursor=${sorted.json.next_cursor}`, { token: tokens.ana });
    await call('list bad sort', 'GET', '/actions?sort=state', { token: tokens.ana });
    await call('list bad limit', 'GET', '/actions?limit=0', { token: tokens.ana });
    await call('list as agent for another', 'GET', '/actions?requested_by=ana', { token: tokens['agent-7'] });
    await call('detail', 'GET', `/actions/${id}`, { token: tokens.aud });
    await call('detail unknown', 'GET', '/actions/act_aaaaaaaaaaaaaaaaaaaaaaaa', { token: tokens.aud });
    const read = await call('charge lookup', 'POST', `/actions/${id}/charge-lookups`, { token: tokens.ana, body: {} });
    expect(read.status === 201 && read.json.snapshot.result === 'FOUND', `charge lookup: ${read.status} ${read.text}`);
    await call('charge lookup by an agent', 'POST', `/actions/${id}/charge-lookups`, { token: tokens['agent-7'] });
    await call('charge lookup unknown', 'POST', '/actions/act_aaaaaaaaaaaaaaaaaaaaaaaa/charge-lookups', { token: tokens.ana });

    // The charge view: 200, 403 for an agent, 404 unknown, 400 malformed; its look-up 201, 403.
    const view = await call('charge view', 'GET', `/charges/${charge}`, { token: tokens.aud });
    expect(view.status === 200 && view.json.actions.some((a) => a.id === id), `charge view: ${view.status} ${view.text}`);
    await call('charge view by an agent', 'GET', `/charges/${charge}`, { token: tokens['agent-7'] });
    await call('charge view unknown', 'GET', '/charges/ch_neverseen', { token: tokens.aud });
    await call('charge view malformed', 'GET', '/charges/act_x', { token: tokens.aud });
    const fresh = await call('charge view look-up', 'POST', `/charges/${charge}/lookups`, { token: tokens.sam, body: {} });
    expect(fresh.status === 201 && fresh.json.snapshot.asked_by === 'sam', `charge view look-up: ${fresh.status} ${fresh.text}`);
    await call('charge view look-up by an auditor', 'POST', `/charges/${charge}/lookups`, { token: tokens.aud });

    // Approve: 428, 400, 412, 403 four_eyes, 200 and replay; then the executor completes it.
    await call('approve without If-Match', 'POST', `/actions/${id}/approvals`, { token: tokens.ana, body: {} });
    await call('approve bad If-Match', 'POST', `/actions/${id}/approvals`, { token: tokens.ana, body: {}, headers: { 'if-match': 'seven' } });
    await call('approve stale', 'POST', `/actions/${id}/approvals`, { token: tokens.ana, body: {}, headers: { 'if-match': '"9"' } });
    const own = await call('admin proposes', 'POST', '/actions', { token: tokens.root, body: proposal('c-root', 100, charge) });
    await call('four-eyes', 'POST', `/actions/${own.json.id}/approvals`, { token: tokens.root, body: {}, headers: { 'if-match': '"1"' } });
    await call('reject by approver', 'POST', `/actions/${own.json.id}/rejections`, { token: tokens.ana, body: { reason: 'duplicate' }, headers: { 'if-match': '"1"' } });
    await call('reject again', 'POST', `/actions/${own.json.id}/rejections`, { token: tokens.ana, body: { reason: 'duplicate' }, headers: { 'if-match': '"2"' } });
    const approved = await call('approve', 'POST', `/actions/${id}/approvals`, { token: tokens.ana, body: { note: 'ok' }, headers: { 'if-match': '"1"', 'idempotency-key': 'contract-approve' } });
    expect(approved.status === 200, `approve: ${approved.status} ${approved.text}`);
    await call('approve replayed', 'POST', `/actions/${id}/approvals`, { token: tokens.ana, body: { note: 'ok' }, headers: { 'if-match': '"1"', 'idempotency-key': 'contract-approve' } });
    await until('COMPLETED', async () => (await stateOf(id)) === 'COMPLETED');

    // Look up, follow up.
    const completed = await call('detail completed', 'GET', `/actions/${id}`, { token: tokens.sam });
    const version = `"${completed.json.state_version}"`;
    await call('lookup', 'POST', `/actions/${id}/lookups`, { token: tokens.sam, headers: { 'if-match': version } });
    await call('lookup by approver', 'POST', `/actions/${id}/lookups`, { token: tokens.ana, headers: { 'if-match': version } });
    const followUp = await call('follow-up', 'POST', `/actions/${id}/follow-ups`, { token: tokens.sam, body: { desired_total_amount: 4500, note: 'owed 45' }, headers: { 'if-match': version } });
    expect(followUp.status === 201 && followUp.json.amount === 500, `follow-up: ${followUp.status} ${followUp.text}`);
    await call('follow-up while unknown', 'POST', `/actions/${id}/follow-ups`, { token: tokens.sam, body: { desired_total_amount: 4500, note: 'again' }, headers: { 'if-match': version } });
    await call('follow-up of a follow-up', 'POST', `/actions/${followUp.json.id}/follow-ups`, { token: tokens.sam, body: { desired_total_amount: 4500, note: 'x' }, headers: { 'if-match': '"1"' } });
    await call('changed resubmission', 'POST', '/actions', { token: tokens['agent-7'], body: proposal('c-1', 4500, charge) });

    // REQUIRES_REVIEW through a provider idempotency_error, then reconcile with evidence.
    await sim_('POST', '/_sim/faults', { method: 'POST', path: '/v1/refunds', times: 1, fault: 'idempotency_error' });
    const charge2 = await seedCharge(3000);
    const review = await call('propose 2', 'POST', '/actions', { token: tokens['agent-7'], body: proposal('c-review', 3000, charge2) });
    await call('approve 2', 'POST', `/actions/${review.json.id}/approvals`, { token: tokens.ana, body: { note: 'ok' }, headers: { 'if-match': '"1"' } });
    await until('REQUIRES_REVIEW', async () => (await stateOf(review.json.id)) === 'REQUIRES_REVIEW');
    let detail = await call('detail review', 'GET', `/actions/${review.json.id}`, { token: tokens.sam });
    let v = `"${detail.json.state_version}"`;
    await call('reconcile without evidence', 'POST', `/actions/${review.json.id}/reconciliations`, { token: tokens.sam, body: { outcome: 'not_committed', evidence_lookup_seq: null, note: 'n' }, headers: { 'if-match': v } });
    const looked = await call('lookup review', 'POST', `/actions/${review.json.id}/lookups`, { token: tokens.sam, body: {}, headers: { 'if-match': v } });
    detail = await call('detail review 2', 'GET', `/actions/${review.json.id}`, { token: tokens.sam });
    v = `"${detail.json.state_version}"`;
    await call('reconcile wrong outcome', 'POST', `/actions/${review.json.id}/reconciliations`, { token: tokens.sam, body: { outcome: 'committed', evidence_lookup_seq: looked.json.lookup.seq, note: 'n' }, headers: { 'if-match': v } });
    const reconciled = await call('reconcile', 'POST', `/actions/${review.json.id}/reconciliations`, { token: tokens.sam, body: { outcome: 'not_committed', evidence_lookup_seq: looked.json.lookup.seq, note: 'not at the provider' }, headers: { 'if-match': v } });
    expect(reconciled.status === 200, `reconcile: ${reconciled.status} ${reconciled.text}`);
    await call('reconcile by auditor', 'POST', `/actions/${review.json.id}/reconciliations`, { token: tokens.aud, body: {}, headers: { 'if-match': v } });

    // Webhook: bad signature, recorded, duplicate, ignored.
    const event = JSON.stringify({ id: 'evt_contract_1', object: 'event', type: 'refund.updated', created: Math.floor(Date.now() / 1000),
        data: { object: { id: 're_contract', object: 'refund', amount: 4000, currency: 'usd', status: 'succeeded', charge, metadata: { countersign_action_id: id } } } });
    const t = Math.floor(Date.now() / 1000);
    const sign = (body) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
    await call('webhook forged', 'POST', '/webhooks/provider', { raw: event, headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${'0'.repeat(64)}` } });
    await call('webhook', 'POST', '/webhooks/provider', { raw: event, headers: { 'content-type': 'application/json', 'stripe-signature': sign(event) } });
    await call('webhook duplicate', 'POST', '/webhooks/provider', { raw: event, headers: { 'content-type': 'application/json', 'stripe-signature': sign(event) } });
    const other = JSON.stringify({ id: 'evt_contract_2', object: 'event', type: 'charge.succeeded', created: t, data: { object: { id: 'ch_x', object: 'charge' } } });
    await call('webhook ignored', 'POST', '/webhooks/provider', { raw: other, headers: { 'content-type': 'application/json', 'stripe-signature': sign(other) } });

    // Events: the stream's head, and every data line against its schema.
    const controller = new AbortController();
    const stream = await fetch(`${api}/events`, { headers: { authorization: `Bearer ${tokens.ana}`, 'last-event-id': '0' }, signal: controller.signal });
    validateResponse('GET', '/events', stream.status, stream.headers, '', 'events');
    let text = '';
    const reader = stream.body.getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + 5000;
    while (!text.includes('"event":"reconciled"') && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
    }
    controller.abort();
    const changed = ajv.compile(toJsonSchema(spec.components.schemas.ActionChangedEvent));
    let events = 0;
    for (const block of text.split('\n\n')) {
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        events += 1;
        if (!changed(JSON.parse(data.slice(6)))) failures.push(`event ${block}: ${ajv.errorsText(changed.errors)}`);
    }
    expect(events >= 10, `expected at least 10 events, got ${events}`);
    const resync = await fetch(`${api}/events`, { headers: { authorization: `Bearer ${tokens.ana}`, 'last-event-id': '999999' } });
    const first = await resync.body.getReader().read();
    const resyncText = new TextDecoder().decode(first.value);
    const resyncData = resyncText.split('\n').find((l) => l.startsWith('data: '));
    if (resyncData && !ajv.validate(toJsonSchema(spec.components.schemas.ResyncEvent), JSON.parse(resyncData.slice(6))))
        failures.push(`resync event: ${ajv.errorsText(ajv.errors)}`);
    await call('events bad Last-Event-ID', 'GET', '/events', { token: tokens.ana, headers: { 'last-event-id': 'x' } });
    await call('events without token', 'GET', '/events');
} catch (error) {
    failures.push(`aborted: ${error.stack ?? error}`);
}

for (const [key, count] of [...statusSeen.entries()].sort()) console.log(`  ${key} ×${count}`);
if (failures.length) {
    for (const failure of failures) console.error(`FAIL ${failure}`);
    console.log(`${checked} passed, ${failures.length} failed`);
    process.exit(1);
}
console.log(`${checked} passed, 0 failed`);
process.exit(0);
