#!/usr/bin/env node
// Plays one whole game of Belote against three bots, from Node.js:
//
//   node play.js --target 127.0.0.1:50051 [--preset classic] [--option target=501]
//                [--level NORMAL] [--name node] [--timeout 120] [--seed 1]
//
// Creates a table, takes seat 0, seats three bots, follows the table's watch stream and, each
// time it is its turn, takes one of the legal actions the server lists (GetLegalActions, then
// Act). Prints each deal's score, then "table: <id>" and "score: <team 0> - <team 1>"; exits 0
// when the game is over, 1 on an error or after --timeout seconds.
'use strict';

const { parseArgs } = require('node:util');
const { BeloteClient, grpc } = require('./belote');

function usage(message) {
  process.stderr.write(`play.js: ${message}\n`);
  process.exit(2);
}

function options() {
  const { values } = parseArgs({
    options: {
      target: { type: 'string', default: process.env.BELOTE_TARGET || '127.0.0.1:50051' },
      preset: { type: 'string', default: 'classic' },
      option: { type: 'string', multiple: true, default: [] },
      level: { type: 'string', default: 'NORMAL' },
      name: { type: 'string', default: 'node' },
      timeout: { type: 'string', default: '120' },
      seed: { type: 'string', default: '' },
    },
  });
  const rules = {};
  for (const pair of values.option) {
    const at = pair.indexOf('=');
    if (at <= 0) usage(`--option wants NAME=VALUE, got ${JSON.stringify(pair)}`);
    rules[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return { ...values, options: rules, timeout: Number(values.timeout) };
}

// A small seeded generator (mulberry32), so that --seed replays the same choices.
function randomFrom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function describeAction(action) {
  if (action.card) return `${action.card.rank} of ${action.card.suit}`;
  if (action.bid) return action.bid.passed ? 'pass' : `bid ${action.bid.contract}`;
  if (action.announce) return `announce ${action.announce.kind}`;
  return 'nothing';
}

async function main() {
  const args = options();
  const random = randomFrom(args.seed ? Number(args.seed) : Date.now());
  const timer = setTimeout(() => {
    process.stderr.write(`play.js: no end of game after ${args.timeout} s\n`);
    process.exit(1);
  }, args.timeout * 1000);

  const client = new BeloteClient(args.target);
  const created = await client.createTable({ preset: args.preset, options: args.options, name: 'node' });
  const tableId = created.table_id;
  const me = await client.joinTable(tableId, args.name, 0);
  for (let i = 0; i < 3; i++) await client.addBot(tableId, created.host_token, args.level);
  console.log(`table: ${tableId} (seat ${me.seat}, ${args.preset}, three ${args.level} bots)`);

  let actions = 0;
  let events = 0;
  for await (const event of client.watch(tableId, me.seat_token)) {
    events += 1;
    if (event.body === 'deal_scored') {
      const d = event.deal_scored;
      console.log(`deal ${d.deal_number}: seat ${d.taker} took ${d.contract}, ${d.outcome}: ` +
        `+${d.deal_score[0]} / +${d.deal_score[1]}, totals ${d.totals[0]} - ${d.totals[1]}`);
    }
    if (event.body === 'game_ended') {
      const { totals, winning_team: winner } = event.game_ended;
      console.log(`table: ${tableId}`);
      console.log(`score: ${totals[0]} - ${totals[1]} (team ${winner} wins; ` +
        `${actions} actions of ours, ${events} events, ${client.retries} calls retried, ` +
        `${client.reconnects} reconnections)`);
      break;
    }
    const legal = await client.legalActions(tableId, me.seat_token);
    if (!legal.your_turn) continue;
    const action = legal.actions[Math.floor(random() * legal.actions.length)];
    try {
      // expected_version: nothing may happen between reading the legal actions and acting.
      await client.act(tableId, me.seat_token, action, legal.version);
      actions += 1;
    } catch (err) {
      if (err.code !== grpc.status.ABORTED) {
        throw new Error(`${describeAction(action)} refused: ${err.message}`);
      }
    }
  }
  clearTimeout(timer);
  client.close();
}

main().catch((err) => {
  process.stderr.write(`play.js: ${err.message}\n`);
  process.exit(1);
});
