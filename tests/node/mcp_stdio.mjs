// countersign-mcp (stdio) against real countersignd and paysim, through the official
// @modelcontextprotocol/sdk client (StdioClientTransport): initialize, tools/list, propose twice →
// one action, changed payload → isError and the stored record unchanged, approval over REST →
// wait_for_decision COMPLETED with the refund id, one refund at paysim; bad arguments, an unknown
// tool, another agent's action, a wrong token; and malformed JSON-RPC written raw.
//
//   node tests/node/mcp_stdio.mjs <countersign-mcp> <countersignd> <paysim>
// Exit codes: 0 pass, 1 a check failed, 77 the npm packages are not installed.
import { agentScenario } from './mcp_scenario.mjs';
import { check, finish, importSdk, initializeMessage, rawMcp, startStack } from './mcp_support.mjs';

const [mcpBin, countersignd, paysim] = process.argv.slice(2);
if (!mcpBin || !countersignd || !paysim) {
  console.error('usage: node mcp_stdio.mjs <countersign-mcp> <countersignd> <paysim>');
  process.exit(1);
}
const sdk = await importSdk();
const stack = await startStack(countersignd, paysim);

async function connect(who) {
  const client = new sdk.Client({ name: 'countersign-mcp-test', version: '1.0.0' });
  const transport = new sdk.StdioClientTransport({ command: mcpBin, args: ['--backend', stack.service.url, '--token-file', stack.tokenFiles[who]], stderr: 'pipe' });
  await client.connect(transport);
  return client;
}

try {
  await agentScenario('stdio', stack, connect, sdk);

  // A wrong token: the tool answers isError, nothing is proposed.
  const wrong = await connect('wrong');
  const refused = await wrong.callTool({ name: 'propose_refund', arguments: { charge: 'ch_nothing', amount: 100, currency: 'usd', client_reference: 'wrong-token' } });
  check('stdio: a wrong token → isError about the credentials', refused.isError === true && /credentials/.test(refused.content[0].text), refused);
  check('stdio: a wrong token proposed nothing', (await stack.actionsWithReference('wrong-token')).length === 0);
  await wrong.close();

  // Raw JSON-RPC: what the SDK never sends.
  const raw = rawMcp(mcpBin, stack.service.url, stack.tokenFiles['agent-7']);
  raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  let m = await raw.reply(1);
  check('raw: a request before initialize → -32600', m.error?.code === -32600, m);
  raw.send(initializeMessage(2, '2025-06-18'));
  m = await raw.reply(2);
  check('raw: initialize 2025-06-18 → 2025-06-18', m.result?.protocolVersion === '2025-06-18', m);
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  raw.send('{"jsonrpc":"2.0","id":3,"method":"tools/list"');
  m = await raw.next((x) => x.error?.code === -32700);
  check('raw: malformed JSON → -32700 with id null', m.id === null, m);
  raw.send('[{"jsonrpc":"2.0","id":4,"method":"ping"}]');
  m = await raw.next((x) => x.error?.code === -32600 && x.id === null);
  check('raw: a batch → -32600', /batch/.test(m.error.message), m);
  raw.send({ jsonrpc: '1.0', id: 5, method: 'ping' });
  m = await raw.reply(5);
  check('raw: jsonrpc 1.0 → -32600', m.error?.code === -32600, m);
  raw.send({ jsonrpc: '2.0', id: 6, method: 'resources/list' });
  m = await raw.reply(6);
  check('raw: unknown method → -32601', m.error?.code === -32601, m);
  raw.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_x1","amount":1e2,"currency":"usd","client_reference":"raw-1"}}}');
  m = await raw.reply(7);
  check('raw: under 2025-06-18 bad arguments → -32602 naming the field', m.error?.code === -32602
    && m.error.data.errors.some((e) => e.field === 'amount'), m);
  raw.send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"propose_refund","arguments":{"amount":100,"amount":999999,"charge":"ch_x1","currency":"usd","client_reference":"raw-2"}}}');
  m = await raw.reply(8);
  check('raw: a duplicate argument → -32602 naming it', m.error?.code === -32602 && m.error.data.errors[0].field === 'amount', m);
  raw.send('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"propose_refund","arguments":{"amount":100,"charge":"ch_x1","currency":"usd","client_reference":"raw-\\ud800"}}}');
  m = await raw.reply(9);
  check('raw: a lone surrogate → -32602 naming client_reference', m.error?.code === -32602
    && m.error.data.errors.some((e) => e.field === 'client_reference'), m);
  raw.send({ jsonrpc: '2.0', id: 10, method: 'ping' });
  m = await raw.reply(10);
  check('raw: ping → {}', m.result !== undefined && Object.keys(m.result).length === 0, m);
  check('raw: stdout carried only JSON-RPC messages', raw.messages.every((x) => x.jsonrpc === '2.0'), raw.messages);
  check('raw: nothing from the raw session reached the ledger', (await stack.actionsWithReference('raw-1')).length === 0
    && (await stack.actionsWithReference('raw-2')).length === 0);
  raw.child.stdin.end();
  const code = await new Promise((resolve) => raw.child.once('exit', resolve));
  check('raw: stdin closed → exit 0', code === 0, `exit ${code}`);
} catch (e) {
  check('no exception', false, e.stack);
}
finish();
process.exit();
