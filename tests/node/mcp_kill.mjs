// kill -9 of countersign-mcp while propose_refund is in flight, then the same call from a new
// process: one action. paysim holds countersignd's read of the charge (a delay fault), so the
// proposal is inside countersignd when the MCP server dies without answering; countersignd still
// records it, and the new process's identical call gets that action back (created: false).
//
//   node tests/node/mcp_kill.mjs <countersign-mcp> <countersignd> <paysim>
// Exit codes: 0 pass, 1 a check failed, 77 the npm packages are not installed.
import { check, finish, importSdk, initializeMessage, rawMcp, sleep, startStack } from './mcp_support.mjs';

const [mcpBin, countersignd, paysim] = process.argv.slice(2);
if (!mcpBin || !countersignd || !paysim) {
  console.error('usage: node mcp_kill.mjs <countersign-mcp> <countersignd> <paysim>');
  process.exit(1);
}
const sdk = await importSdk();
const stack = await startStack(countersignd, paysim);

try {
  const charge = await stack.seedCharge(9000);
  const args = { charge, amount: 3000, currency: 'usd', business_reference: 'order-kill', client_reference: 'kill-9-ref', note: 'damaged' };
  const fault = await stack.simCall('POST', '/_sim/faults', { method: 'GET', path: '/v1/charges*', fault: 'delay_before_commit', delay_ms: 1500 });
  check('paysim holds the next charge read', Array.isArray(fault.added) && fault.added.length === 1, fault);

  const doomed = rawMcp(mcpBin, stack.service.url, stack.tokenFiles['agent-7']);
  doomed.send(initializeMessage(1, '2025-11-25'));
  await doomed.reply(1);
  doomed.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  doomed.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'propose_refund', arguments: args } });
  // Wait until countersignd's charge read is being held: the proposal is in flight.
  let held = false;
  for (let i = 0; i < 100 && !held; i += 1) {
    const rules = await stack.simCall('GET', '/_sim/faults');
    held = rules.rules.some((r) => r.fired >= 1);
    if (!held) await sleep(20);
  }
  check('the proposal is in flight at countersignd', held);
  doomed.child.kill('SIGKILL');
  const signal = await new Promise((resolve) => doomed.child.once('exit', (code, sig) => resolve(sig)));
  check('countersign-mcp died by SIGKILL before answering', signal === 'SIGKILL' && !doomed.messages.some((m) => m.id === 2), doomed.messages);

  await sleep(2000); // the held read answers; countersignd finishes the proposal for nobody

  const client = new sdk.Client({ name: 'kill-test', version: '1.0.0' });
  await client.connect(new sdk.StdioClientTransport({ command: mcpBin, args: ['--backend', stack.service.url, '--token-file', stack.tokenFiles['agent-7']], stderr: 'pipe' }));
  const again = await client.callTool({ name: 'propose_refund', arguments: args });
  check('the same call from a new process answers the action', !again.isError && /^act_/.test(again.structuredContent?.action_id), again);
  check('it was recorded by the killed call: created false', again.structuredContent?.created === false, again.structuredContent);
  const found = await stack.actionsWithReference(args.client_reference);
  check('exactly one action for the reference', found.length === 1 && found[0].id === again.structuredContent?.action_id, found.map((a) => a.id));
  check('with the payload as proposed', found[0]?.amount === 3000 && found[0]?.state === 'PENDING');
  const third = await client.callTool({ name: 'propose_refund', arguments: args });
  check('and a third identical call still the same one', third.structuredContent?.action_id === again.structuredContent?.action_id);
  await client.close();
} catch (e) {
  check('no exception', false, e.stack);
}
finish();
process.exit();
