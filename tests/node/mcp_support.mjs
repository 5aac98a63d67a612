// Shared by the MCP tests (mcp_stdio.mjs, mcp_kill.mjs, mcp_http.mjs): starts the real paysim and
// countersignd binaries on loopback with ephemeral ports, users and their tokens, and gives small
// helpers (REST calls, checks, the raw JSON-RPC line client of countersign-mcp).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));

// Exit 77 (skipped) only when the npm packages are absent.
export async function importSdk() {
  if (!existsSync(path.join(here, 'node_modules', '@modelcontextprotocol', 'sdk'))) {
    console.log('SKIP: tests/node/node_modules lacks @modelcontextprotocol/sdk; run `npm ci --prefix tests/node`.');
    process.exit(77);
  }
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const types = await import('@modelcontextprotocol/sdk/types.js');
  return { Client, StdioClientTransport, StreamableHTTPClientTransport, types };
}

let passed = 0;
const failures = [];
export function check(name, condition, detail = '') {
  if (condition) {
    passed += 1;
    console.log(`PASS: ${name}`);
  } else {
    failures.push(name);
    console.log(`FAIL: ${name} ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
  }
}
export function finish() {
  console.log(`${passed} passed, ${failures.length} failed`);
  process.exitCode = failures.length === 0 && passed > 0 ? 0 : 1;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const children = [];
let tmp = null;
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function startService(program, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    readline.createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, url: line.trim() }));
    child.once('exit', (code) => reject(new Error(`${path.basename(program)} exited (${code}): ${stderr}`)));
    setTimeout(() => reject(new Error(`${path.basename(program)} printed no URL`)), 10000);
  });
}

// paysim + countersignd with agents agent-7 and agent-8 and approver ana; token files in tmp.
export async function startStack(countersignd, paysim, extraServeArgs = []) {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'cs-mcp-'));
  const sim = await startService(paysim, ['--listen', '127.0.0.1:0']);
  const db = path.join(tmp, 'ledger.db');
  const tokens = {};
  const tokenFiles = {};
  for (const [name, role] of [['agent-7', 'agent'], ['agent-8', 'agent'], ['ana', 'approver']]) {
    const result = spawnSync(countersignd, ['user', 'add', name, '--role', role, '--db', db], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`user add ${name}: ${result.stderr}`);
    tokens[name] = result.stdout.trim().split(/\s+/).pop();
    tokenFiles[name] = path.join(tmp, `${name}.token`);
    writeFileSync(tokenFiles[name], `${tokens[name]}\n`, { mode: 0o600 });
  }
  tokenFiles.wrong = path.join(tmp, 'wrong.token');
  writeFileSync(tokenFiles.wrong, 'cst_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n');
  writeFileSync(path.join(tmp, 'key'), 'sk_test_mcp\n');
  writeFileSync(path.join(tmp, 'exec.json'), JSON.stringify({ idle_poll_ms: 50, backoff_base_ms: 100, backoff_max_ms: 500, request_timeout_ms: 3000, lease_duration_ms: 15000 }));
  const service = await startService(countersignd, ['serve', '--db', db, '--listen', '127.0.0.1:0', '--provider', 'paysim',
    '--provider-url', sim.url, '--provider-key-file', path.join(tmp, 'key'), '--execution-config', path.join(tmp, 'exec.json'),
    ...extraServeArgs]);
  const api = `${service.url}/api/v1`;
  async function rest(method, p, { token, body, headers = {} } = {}) {
    const all = { ...headers };
    if (token) all.authorization = `Bearer ${token}`;
    if (body !== undefined) all['content-type'] = 'application/json';
    const response = await fetch(api + p, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    return { status: response.status, headers: response.headers, json, text };
  }
  async function simCall(method, p, body) {
    const response = await fetch(sim.url + p, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return response.json();
  }
  async function seedCharge(amount) {
    const answer = await simCall('POST', '/_sim/charges', { count: 1, amount });
    return answer.data[0].id;
  }
  // Actions with this client_reference, as an approver sees them (all agents).
  async function actionsWithReference(ref) {
    const page = await rest('GET', `/actions?q=${encodeURIComponent(ref)}&limit=200`, { token: tokens.ana });
    const found = [];
    for (const row of page.json.data) {
      const detail = await rest('GET', `/actions/${row.id}`, { token: tokens.ana });
      if (detail.json.client_reference === ref) found.push(detail.json);
    }
    return found;
  }
  return { tmp, sim, service, api, tokens, tokenFiles, rest, simCall, seedCharge, actionsWithReference,
    stopService: service.child, countersigndProcess: service.child };
}

// countersign-mcp spoken to line by line, without the SDK: for malformed messages and kill -9.
export function rawMcp(bin, backend, tokenFile) {
  const child = spawn(bin, ['--backend', backend, '--token-file', tokenFile], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const messages = [];
  const waiters = [];
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    let message;
    try { message = JSON.parse(line); } catch { message = { unparsable: line }; }
    messages.push(message);
    for (const w of [...waiters]) if (w.match(message)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(message); }
  });
  return {
    child,
    messages,
    stderr: () => stderr,
    send(line) { child.stdin.write(typeof line === 'string' ? `${line}\n` : `${JSON.stringify(line)}\n`); },
    next(match, timeoutMs = 10000) {
      const already = messages.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        setTimeout(() => reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages)}; stderr ${stderr}`)), timeoutMs);
      });
    },
    reply(id, timeoutMs) { return this.next((m) => m.id === id, timeoutMs); },
  };
}

export function initializeMessage(id, version = '2025-06-18') {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } } };
}
