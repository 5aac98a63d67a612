// /mcp on a real countersignd (Streamable HTTP), through the official @modelcontextprotocol/sdk
// client (StreamableHTTPClientTransport with the agent's bearer token): the agent's story of
// mcp_scenario.mjs (propose twice → one action, a changed payload → isError, approval over REST →
// wait_for_decision COMPLETED, one refund at paysim), then the transport itself over raw HTTP:
// the session id and its binding to the token's user, MCP-Protocol-Version, Origin and Host
// (DNS rebinding), Accept and Content-Type, GET 405, DELETE, a wait answered as an event stream
// with progress, a request whose connection closes, and malformed JSON-RPC.
//
//   node tests/node/mcp_http.mjs <countersign-mcp> <countersignd> <paysim>
// Exit codes: 0 pass, 1 a check failed, 77 the npm packages are not installed.
import http from 'node:http';
import { agentScenario } from './mcp_scenario.mjs';
import { check, finish, importSdk, initializeMessage, sleep, startStack } from './mcp_support.mjs';

const [, countersignd, paysim] = process.argv.slice(2);
if (!countersignd || !paysim) {
  console.error('usage: node mcp_http.mjs <countersign-mcp> <countersignd> <paysim>');
  process.exit(1);
}
const sdk = await importSdk();
const stack = await startStack(countersignd, paysim, ['--mcp-allow-origin', 'https://agents.example.com', '--mcp-poll-ms', '200']);
const mcpUrl = `${stack.service.url}/mcp`;
const bearer = (who) => `Bearer ${who === 'wrong' ? 'cst_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' : stack.tokens[who]}`;

async function connect(who) {
  const client = new sdk.Client({ name: 'countersign-mcp-http-test', version: '1.0.0' });
  const transport = new sdk.StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: bearer(who) } } });
  await client.connect(transport);
  return client;
}

// One raw HTTP request to /mcp (node:http, so that Host can be set); the body as text and JSON.
function raw(method, { headers = {}, body, who = 'agent-7' } = {}) {
  const url = new URL(mcpUrl);
  const all = { accept: 'application/json, text/event-stream', ...headers };
  if (who) all.authorization = bearer(who);
  if (body !== undefined && all['content-type'] === undefined) all['content-type'] = 'application/json';
  const payload = body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body));
  all['content-length'] = payload === undefined ? 0 : Buffer.byteLength(payload); // countersignd takes no chunked bodies
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, headers: all, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (d) => { text += d; });
      response.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { /* SSE or empty */ }
        resolve({ status: response.statusCode, headers: response.headers, text, json });
      });
    });
    request.on('error', reject);
    if (payload !== undefined) request.write(payload);
    request.end();
  });
}

// A session opened by hand: its id, after initialize and notifications/initialized.
async function rawSession(who = 'agent-7', version = '2025-11-25') {
  const init = await raw('POST', { who, body: initializeMessage(1, version) });
  const id = init.headers['mcp-session-id'];
  await raw('POST', { who, headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  return { id, init };
}

const sseEvents = (text) => text.split('\n\n').map((block) => block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n'))
  .filter((d) => d.length > 0).map((d) => JSON.parse(d));

try {
  await agentScenario('http', stack, connect, sdk);

  // A wrong token: the SDK's connect fails on 401; nothing is opened or proposed.
  let refusedConnect = null;
  try { await connect('wrong'); } catch (e) { refusedConnect = e; }
  check('http: a wrong token → connect refused', refusedConnect !== null && /401|nauthori/i.test(String(refusedConnect)), String(refusedConnect));
  const noToken = await raw('POST', { who: null, body: initializeMessage(1) });
  check('http: no token → 401 with WWW-Authenticate Bearer', noToken.status === 401 && /^Bearer/.test(noToken.headers['www-authenticate'] ?? ''), noToken);

  // Sessions.
  const { id, init } = await rawSession();
  check('http: initialize → 200 application/json with an Mcp-Session-Id of visible ASCII',
    init.status === 200 && /application\/json/.test(init.headers['content-type']) && /^[\x21-\x7e]{32,}$/.test(id ?? ''), init);
  check('http: initialize negotiates 2025-11-25', init.json?.result?.protocolVersion === '2025-11-25', init.json);
  const list = await raw('POST', { headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  check('http: tools/list in the session → 200 with four tools', list.status === 200 && list.json?.result?.tools?.length === 4, list.text);
  const notification = await raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  check('http: a notification → 202 with no body', notification.status === 202 && notification.text === '', notification);
  const noSession = await raw('POST', { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } });
  check('http: no Mcp-Session-Id → 400', noSession.status === 400 && noSession.json?.error !== undefined, noSession.text);
  const unknown = await raw('POST', { headers: { 'mcp-session-id': 'not-a-session' }, body: { jsonrpc: '2.0', id: 4, method: 'tools/list' } });
  check('http: an unknown session → 404', unknown.status === 404, unknown.text);
  const stolen = await raw('POST', { who: 'agent-8', headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 5, method: 'tools/list' } });
  check('http: another user\'s session id → 404, as if it did not exist', stolen.status === 404, stolen.text);
  const wrongVersion = await raw('POST', { headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, body: { jsonrpc: '2.0', id: 6, method: 'ping' } });
  check('http: MCP-Protocol-Version other than the negotiated one → 400', wrongVersion.status === 400, wrongVersion.text);
  const ancient = await raw('POST', { headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2024-11-05' }, body: { jsonrpc: '2.0', id: 7, method: 'ping' } });
  check('http: an unsupported MCP-Protocol-Version → 400', ancient.status === 400, ancient.text);
  const pinged = await raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 8, method: 'ping' } });
  check('http: no MCP-Protocol-Version → the negotiated revision', pinged.status === 200 && pinged.json?.result !== undefined, pinged.text);
  const old = await rawSession('agent-7', '2025-06-18');
  check('http: initialize 2025-06-18 → 2025-06-18', old.init.json?.result?.protocolVersion === '2025-06-18', old.init.json);
  const oldBad = await raw('POST', { headers: { 'mcp-session-id': old.id, 'mcp-protocol-version': '2025-06-18' },
    body: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'propose_refund', arguments: { amount: 1.5, currency: 'usd', client_reference: 'http-raw-1' } } } });
  check('http: under 2025-06-18 bad arguments → -32602 naming the field (HTTP 200)', oldBad.status === 200 && oldBad.json?.error?.code === -32602
    && oldBad.json.error.data.errors.some((e) => e.field === 'amount'), oldBad.text);

  // Malformed JSON-RPC.
  const garbage = await raw('POST', { headers: { 'mcp-session-id': id }, body: '{"jsonrpc":"2.0","id":10,' });
  check('http: malformed JSON → 400 with -32700', garbage.status === 400 && garbage.json?.error?.code === -32700 && garbage.json.id === null, garbage.text);
  const batch = await raw('POST', { headers: { 'mcp-session-id': id }, body: '[{"jsonrpc":"2.0","id":11,"method":"ping"}]' });
  check('http: a batch → 400 with -32600', batch.status === 400 && batch.json?.error?.code === -32600, batch.text);
  const garbageNoSession = await raw('POST', { body: 'not json' });
  check('http: malformed JSON without a session → 400 with -32700', garbageNoSession.status === 400 && garbageNoSession.json?.error?.code === -32700, garbageNoSession.text);
  const unknownMethod = await raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 12, method: 'resources/list' } });
  check('http: unknown method → -32601', unknownMethod.json?.error?.code === -32601, unknownMethod.text);
  const unknownTool = await raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'create_refund', arguments: {} } } });
  check('http: unknown tool → -32602', unknownTool.json?.error?.code === -32602, unknownTool.text);

  // HTTP-level refusals.
  const notAcceptable = await raw('POST', { headers: { 'mcp-session-id': id, accept: 'application/json' }, body: { jsonrpc: '2.0', id: 14, method: 'ping' } });
  check('http: Accept without text/event-stream → 406', notAcceptable.status === 406, notAcceptable.text);
  const wrongType = await raw('POST', { headers: { 'mcp-session-id': id, 'content-type': 'text/plain' }, body: '{"jsonrpc":"2.0","id":15,"method":"ping"}' });
  check('http: Content-Type text/plain → 415', wrongType.status === 415, wrongType.text);
  const get = await raw('GET', { headers: { 'mcp-session-id': id, accept: 'text/event-stream' } });
  check('http: GET → 405 with Allow', get.status === 405 && /POST/.test(get.headers.allow ?? ''), get);
  const evilOrigin = await raw('POST', { headers: { origin: 'http://evil.example.com' }, body: initializeMessage(1) });
  check('http: a foreign Origin → 403, no session', evilOrigin.status === 403 && evilOrigin.headers['mcp-session-id'] === undefined, evilOrigin);
  const evilHost = await raw('POST', { headers: { host: 'evil.example.com', origin: 'http://evil.example.com' }, body: initializeMessage(1) });
  check('http: a rebound Host → 403 (DNS rebinding)', evilHost.status === 403, evilHost);
  const evilHostOnly = await raw('POST', { headers: { host: 'evil.example.com:8470' }, body: initializeMessage(1) });
  check('http: a rebound Host without Origin → 403', evilHostOnly.status === 403, evilHostOnly);
  const localOrigin = await raw('POST', { headers: { origin: 'http://localhost:5173' }, body: initializeMessage(1) });
  check('http: a loopback Origin → 200 with CORS headers', localOrigin.status === 200
    && localOrigin.headers['access-control-allow-origin'] === 'http://localhost:5173'
    && /Mcp-Session-Id/.test(localOrigin.headers['access-control-expose-headers'] ?? ''), localOrigin.headers);
  const configured = await raw('POST', { headers: { origin: 'https://agents.example.com' }, body: initializeMessage(1) });
  check('http: an --mcp-allow-origin origin → 200', configured.status === 200, configured.text);
  const preflight = await raw('OPTIONS', { who: null, headers: { origin: 'https://agents.example.com', 'access-control-request-method': 'POST' } });
  check('http: the CORS preflight of an allowed origin → 204 allowing Authorization and Mcp-Session-Id', preflight.status === 204
    && /Authorization/.test(preflight.headers['access-control-allow-headers'] ?? '') && /Mcp-Session-Id/.test(preflight.headers['access-control-allow-headers'] ?? ''), preflight.headers);
  const evilPreflight = await raw('OPTIONS', { who: null, headers: { origin: 'https://evil.example.com' } });
  check('http: the preflight of a foreign origin → 403', evilPreflight.status === 403, evilPreflight);

  // wait_for_decision with a progress token: an event stream of progress, then the answer.
  const chargeW = await stack.seedCharge(5000);
  const proposed = await raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 20, method: 'tools/call',
    params: { name: 'propose_refund', arguments: { charge: chargeW, amount: 1200, currency: 'usd', client_reference: 'http-wait-1' } } } });
  const actionId = proposed.json?.result?.structuredContent?.action_id;
  check('http: propose_refund over raw HTTP → PENDING', proposed.json?.result?.structuredContent?.state === 'PENDING', proposed.text);
  const started = Date.now();
  const waiting = raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 21, method: 'tools/call',
    params: { name: 'wait_for_decision', arguments: { action_id: actionId, timeout_seconds: 20 }, _meta: { progressToken: 'w-1' } } } });
  await sleep(900);
  const detail = await stack.rest('GET', `/actions/${actionId}`, { token: stack.tokens.ana });
  const approved = await stack.rest('POST', `/actions/${actionId}/approvals`, { token: stack.tokens.ana, body: { note: 'fine' }, headers: { 'if-match': detail.headers.get('etag') } });
  check('http: the approver approves over REST', approved.status === 200, approved.text);
  const streamed = await waiting;
  const events = sseEvents(streamed.text);
  const progress = events.filter((e) => e.method === 'notifications/progress');
  const final = events.find((e) => e.id === 21);
  check('http: a wait with a progress token → text/event-stream', /text\/event-stream/.test(streamed.headers['content-type'] ?? ''), streamed.headers);
  check('http: progress notifications carry the token', progress.length >= 2 && progress.every((p) => p.params.progressToken === 'w-1'), events);
  check('http: the stream ends with the answer: COMPLETED with the refund id', final?.result?.structuredContent?.state === 'COMPLETED'
    && /^re_/.test(final.result.structuredContent.refund_id), final);
  check('http: it answered once decided, long before its timeout', Date.now() - started < 15000, `${Date.now() - started} ms`);
  const truth = await stack.simCall('GET', '/_sim/refunds');
  check('http: paysim holds one refund for the charge', truth.data.filter((r) => r.charge === chargeW).length === 1, truth.data);

  // A request whose connection closes is cancelled; the session goes on.
  const chargeC = await stack.seedCharge(3000);
  const pending = await raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 30, method: 'tools/call',
    params: { name: 'propose_refund', arguments: { charge: chargeC, amount: 300, currency: 'usd', client_reference: 'http-cancel-1' } } } });
  const pendingId = pending.json?.result?.structuredContent?.action_id;
  await new Promise((resolve) => {
    const url = new URL(mcpUrl);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 31, method: 'tools/call', params: { name: 'wait_for_decision', arguments: { action_id: pendingId, timeout_seconds: 30 } } });
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false,
      headers: { authorization: bearer('agent-7'), 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-session-id': id, 'content-length': Buffer.byteLength(body) } });
    request.on('response', () => resolve()); // answered: the wait ended before the close (a failure below)
    request.on('error', () => resolve());
    request.end(body);
    setTimeout(() => { request.destroy(); resolve(); }, 500);
  });
  await sleep(300);
  const after = await raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 31, method: 'ping' } });
  check('http: a closed connection cancels its request (its id is free again at once)', after.status === 200 && after.json?.result !== undefined, after.text);

  // Another agent's action through its own session: not found, as over REST.
  const other = await rawSession('agent-8');
  const foreign = await raw('POST', { who: 'agent-8', headers: { 'mcp-session-id': other.id }, body: { jsonrpc: '2.0', id: 40, method: 'tools/call',
    params: { name: 'get_action', arguments: { action_id: actionId } } } });
  check('http: another agent\'s action → isError, not found', foreign.json?.result?.isError === true && /No action/.test(foreign.json.result.content[0].text), foreign.text);

  // DELETE ends the session.
  const ended = await raw('DELETE', { headers: { 'mcp-session-id': id } });
  check('http: DELETE → 204', ended.status === 204, ended);
  const gone = await raw('POST', { headers: { 'mcp-session-id': id }, body: { jsonrpc: '2.0', id: 50, method: 'ping' } });
  check('http: the ended session → 404', gone.status === 404, gone.text);
  const deleteOther = await raw('DELETE', { who: 'agent-7', headers: { 'mcp-session-id': other.id } });
  check('http: DELETE of another user\'s session → 404, and it lives on', deleteOther.status === 404
    && (await raw('POST', { who: 'agent-8', headers: { 'mcp-session-id': other.id }, body: { jsonrpc: '2.0', id: 51, method: 'ping' } })).status === 200);

  // Sessions per user are bounded: the 17th session of agent-8 ends its least recently used one.
  const many = [other.id];
  for (let i = 0; i < 16; i += 1) many.push((await rawSession('agent-8')).id);
  const evicted = await raw('POST', { who: 'agent-8', headers: { 'mcp-session-id': many[0] }, body: { jsonrpc: '2.0', id: 60, method: 'ping' } });
  const newest = await raw('POST', { who: 'agent-8', headers: { 'mcp-session-id': many[16] }, body: { jsonrpc: '2.0', id: 61, method: 'ping' } });
  check('http: a user\'s 17th session ends the least recently used one (16 per user)', evicted.status === 404 && newest.status === 200,
    `${evicted.status} ${newest.status}`);
  const agent7 = await raw('POST', { headers: { 'mcp-session-id': old.id }, body: { jsonrpc: '2.0', id: 62, method: 'ping' } });
  check('http: another user\'s sessions are untouched by that', agent7.status === 200, agent7.text);

  // The REST API is unchanged by the mount.
  const me = await stack.rest('GET', '/me', { token: stack.tokens['agent-7'] });
  check('http: /api/v1 still answers beside /mcp', me.status === 200 && me.json?.user === 'agent-7', me.text);

  // SIGTERM while a wait streams: the stream ends, countersignd drains and exits 0.
  const chargeT = await stack.seedCharge(2000);
  const last = await rawSession('agent-7');
  const forTerm = await raw('POST', { headers: { 'mcp-session-id': last.id }, body: { jsonrpc: '2.0', id: 70, method: 'tools/call',
    params: { name: 'propose_refund', arguments: { charge: chargeT, amount: 200, currency: 'usd', client_reference: 'http-term-1' } } } });
  const streaming = raw('POST', { headers: { 'mcp-session-id': last.id }, body: { jsonrpc: '2.0', id: 71, method: 'tools/call',
    params: { name: 'wait_for_decision', arguments: { action_id: forTerm.json?.result?.structuredContent?.action_id, timeout_seconds: 60 }, _meta: { progressToken: 7 } } } })
    .catch((e) => ({ error: e }));
  await sleep(700);
  const termAt = Date.now();
  const exited = new Promise((resolve) => stack.countersigndProcess.once('exit', (code, signal) => resolve({ code, signal })));
  stack.countersigndProcess.kill('SIGTERM');
  const cut = await streaming;
  const exit = await exited;
  check('http: SIGTERM ends an open wait\'s stream (progress sent, no answer)', cut.error !== undefined
    || (sseEvents(cut.text).some((e) => e.method === 'notifications/progress') && !sseEvents(cut.text).some((e) => e.id === 71)), cut);
  check('http: countersignd drains and exits 0 within 5 s of SIGTERM', exit.code === 0 && Date.now() - termAt < 5000, { ...exit, ms: Date.now() - termAt });
} catch (e) {
  check('no exception', false, e.stack);
}
finish();
process.exit();
