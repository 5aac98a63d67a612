// The agent's story through the official MCP SDK client, over whichever transport `connect`
// builds (stdio: countersign-mcp; Streamable HTTP: /mcp). Used by mcp_stdio.mjs and mcp_http.mjs.
import { check, sleep } from './mcp_support.mjs';

const text = (result) => (result.content ?? []).map((c) => c.text ?? '').join('\n');
const details = (result) => { try { return JSON.parse(result.content[1].text); } catch { return {}; } };

// connect(agentName or 'wrong') → a connected SDK Client.
export async function agentScenario(label, stack, connect, sdk) {
  const { McpError, ErrorCode } = sdk.types;
  const { rest, tokens, seedCharge, actionsWithReference, simCall } = stack;
  const agent = await connect('agent-7');

  // initialize
  const info = agent.getServerVersion();
  check(`${label}: initialize names the server`, info?.name === 'countersign', info);
  const instructions = agent.getInstructions() ?? '';
  check(`${label}: instructions state the contract`, /client_reference/.test(instructions)
    && /never propose the same refund again under a new client_reference/i.test(instructions)
    && /get_action/.test(instructions) && /idempotency key/.test(instructions), instructions);
  check(`${label}: tools capability`, agent.getServerCapabilities()?.tools !== undefined);

  // tools/list
  const { tools } = await agent.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  check(`${label}: tools/list has exactly the four tools`,
    JSON.stringify(tools.map((t) => t.name).sort()) === JSON.stringify(['get_action', 'list_my_actions', 'propose_refund', 'wait_for_decision']));
  check(`${label}: every tool has input and output schemas`, tools.every((t) => t.inputSchema?.type === 'object' && t.outputSchema?.type === 'object'));
  const propose = byName.propose_refund;
  check(`${label}: propose_refund is idempotent and not destructive`, propose.annotations?.idempotentHint === true
    && propose.annotations?.destructiveHint === false && propose.annotations?.readOnlyHint === false, propose.annotations);
  check(`${label}: propose_refund requires client_reference, amount an integer`,
    propose.inputSchema.required.includes('client_reference') && propose.inputSchema.properties.amount.type === 'integer');
  check(`${label}: the other tools are read-only`, ['get_action', 'wait_for_decision', 'list_my_actions'].every((n) => byName[n].annotations?.readOnlyHint === true));
  check(`${label}: wait_for_decision timeout at most 60`, byName.wait_for_decision.inputSchema.properties.timeout_seconds.maximum === 60);

  // propose twice → one action
  const chargeA = await seedCharge(10000);
  const args = { charge: chargeA, amount: 4000, currency: 'usd', reason: 'requested_by_customer', business_reference: `order-${label}-1`, client_reference: `${label}-ref-1`, note: 'parcel lost' };
  const first = await agent.callTool({ name: 'propose_refund', arguments: args });
  check(`${label}: propose → created, PENDING`, !first.isError && first.structuredContent?.created === true
    && first.structuredContent.state === 'PENDING' && /^act_/.test(first.structuredContent.action_id), first);
  const id = first.structuredContent?.action_id;
  const second = await agent.callTool({ name: 'propose_refund', arguments: args });
  check(`${label}: propose again → the same action, not created`, !second.isError && second.structuredContent?.created === false
    && second.structuredContent.action_id === id, second);
  check(`${label}: one action for the reference`, (await actionsWithReference(args.client_reference)).length === 1);

  // changed payload → isError, stored unchanged, human review
  const changed = await agent.callTool({ name: 'propose_refund', arguments: { ...args, amount: 4500 } });
  const d = details(changed);
  check(`${label}: changed payload → isError`, changed.isError === true && changed.structuredContent === undefined, changed);
  check(`${label}: it says what was stored, what was sent, and that a human reviews it`,
    d.code === 'payload_mismatch' && d.stored?.amount === 4000 && d.sent?.amount === 4500 && d.human_review === true
    && /stored: 40\.00 USD/.test(text(changed)) && /you sent: 45\.00 USD/.test(text(changed)) && /human now reviews/.test(text(changed)), text(changed));
  check(`${label}: it never suggests a fresh reference`, !/(use|try|choose|pick) (a )?(new|fresh|different) client_reference/i.test(text(changed)), text(changed));
  const stored = await rest('GET', `/actions/${id}`, { token: tokens.ana });
  check(`${label}: the stored record is unchanged (amount 4000), now REQUIRES_REVIEW`, stored.json.amount === 4000
    && stored.json.state === 'REQUIRES_REVIEW' && stored.json.conflicts.length === 1, stored.json);
  check(`${label}: still one action for the reference`, (await actionsWithReference(args.client_reference)).length === 1);

  // bad arguments: nothing reaches the ledger
  const before = (await rest('GET', '/actions?limit=200', { token: tokens.ana })).json.data.length;
  const bad = await agent.callTool({ name: 'propose_refund', arguments: { charge: chargeA, amount: 40.5, currency: 'usd', client_reference: `${label}-bad`, provider: 'stripe' } });
  const badDetails = details(bad);
  const fields = (badDetails.errors ?? []).map((e) => e.field);
  check(`${label}: bad arguments → isError naming amount and the unknown member`, bad.isError === true
    && fields.includes('amount') && fields.includes('provider'), bad);
  const both = await agent.callTool({ name: 'propose_refund', arguments: { charge: chargeA, payment_intent: 'pi_x', amount: 100, currency: 'usd', client_reference: `${label}-both` } });
  check(`${label}: charge and payment_intent together → isError naming charge`, both.isError === true
    && (details(both).errors ?? []).some((e) => e.field === 'charge'), both);
  const noRef = await agent.callTool({ name: 'propose_refund', arguments: { charge: chargeA, amount: 100, currency: 'usd' } });
  check(`${label}: missing client_reference → isError naming it`, noRef.isError === true
    && (details(noRef).errors ?? []).some((e) => e.field === 'client_reference'), noRef);
  const after = (await rest('GET', '/actions?limit=200', { token: tokens.ana })).json.data.length;
  check(`${label}: bad arguments reached nothing`, after === before, `${before} → ${after}`);

  // unknown tool → JSON-RPC -32602
  try {
    await agent.callTool({ name: 'send_refund', arguments: {} });
    check(`${label}: unknown tool is an error`, false, 'no error');
  } catch (e) {
    check(`${label}: unknown tool → -32602`, e instanceof McpError && e.code === ErrorCode.InvalidParams, `${e.code} ${e.message}`);
  }

  // a second action: approved over REST, wait_for_decision → COMPLETED with the refund id
  const chargeB = await seedCharge(7000);
  const argsB = { charge: chargeB, amount: 2500, currency: 'usd', client_reference: `${label}-ref-2` };
  const proposedB = await agent.callTool({ name: 'propose_refund', arguments: argsB });
  const idB = proposedB.structuredContent?.action_id;
  // A short wait first: still PENDING at the timeout, with progress notifications.
  const progress = [];
  const early = await agent.callTool({ name: 'wait_for_decision', arguments: { action_id: idB, timeout_seconds: 2 } }, undefined,
    { onprogress: (p) => progress.push(p) });
  check(`${label}: wait_for_decision times out with the state so far`, !early.isError && early.structuredContent?.timed_out === true
    && early.structuredContent.state === 'PENDING' && /approver/.test(early.structuredContent.waiting_for), early);
  check(`${label}: progress notifications while waiting`, progress.length >= 1 && progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress)
    && progress[0].total === 2, progress);
  const waiting = agent.callTool({ name: 'wait_for_decision', arguments: { action_id: idB, timeout_seconds: 30 } });
  await sleep(600);
  const approved = await rest('POST', `/actions/${idB}/approvals`, { token: tokens.ana, body: { note: 'ok' }, headers: { 'if-match': '"1"' } });
  check(`${label}: an approver approves over REST`, approved.status === 200, approved.text);
  const decided = await waiting;
  check(`${label}: wait_for_decision answers COMPLETED with the refund id`, !decided.isError && decided.structuredContent?.state === 'COMPLETED'
    && /^re_/.test(decided.structuredContent.refund_id) && decided.structuredContent.timed_out === false
    && decided.structuredContent.final === true, decided);
  const got = await agent.callTool({ name: 'get_action', arguments: { action_id: idB } });
  check(`${label}: get_action shows the approval and one attempt`, got.structuredContent?.approvals?.length === 1
    && got.structuredContent.approvals[0].decided_by === 'ana' && got.structuredContent.attempts.count === 1
    && got.structuredContent.refund_id === decided.structuredContent.refund_id, got.structuredContent);
  const everything = JSON.stringify([first, second, changed, proposedB, early, decided, got]);
  check(`${label}: no result carries an idempotency key`, !/idempotency_key/.test(everything) && !/csk_/.test(everything));
  const truth = await simCall('GET', '/_sim/refunds');
  const ofB = truth.data.filter((r) => r.charge === chargeB);
  check(`${label}: paysim's ground truth holds one refund of that charge`, ofB.length === 1 && ofB[0].id === decided.structuredContent.refund_id
    && ofB[0].amount === 2500, truth.data);
  check(`${label}: nothing was refunded on the mismatched action's charge`, truth.data.filter((r) => r.charge === chargeA).length === 0);

  // list_my_actions: own actions only, paged
  const listed = await agent.callTool({ name: 'list_my_actions', arguments: { limit: 1 } });
  check(`${label}: list_my_actions pages`, !listed.isError && listed.structuredContent.actions.length === 1
    && typeof listed.structuredContent.next_cursor === 'string', listed.structuredContent);
  const page2 = await agent.callTool({ name: 'list_my_actions', arguments: { limit: 1, cursor: listed.structuredContent.next_cursor } });
  check(`${label}: list_my_actions page 2`, !page2.isError && page2.structuredContent.actions.length === 1
    && page2.structuredContent.actions[0].action_id !== listed.structuredContent.actions[0].action_id, page2);
  const completed = await agent.callTool({ name: 'list_my_actions', arguments: { state: 'COMPLETED' } });
  check(`${label}: list_my_actions filters by state`, completed.structuredContent?.actions.some((a) => a.action_id === idB)
    && completed.structuredContent.actions.every((a) => a.state === 'COMPLETED'), completed.structuredContent);

  // another agent's action id: not revealed
  const other = await connect('agent-8');
  const foreign = await other.callTool({ name: 'get_action', arguments: { action_id: idB } });
  check(`${label}: another agent's action → isError, not revealed`, foreign.isError === true && /No action/.test(text(foreign)), foreign);
  const otherList = await other.callTool({ name: 'list_my_actions', arguments: {} });
  check(`${label}: another agent lists none of agent-7's actions`, otherList.structuredContent?.actions.length === 0, otherList.structuredContent);
  await other.close();
  await agent.close();
  return { id, idB };
}
