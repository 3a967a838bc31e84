/**
 * A budget cap with four calls in flight (issue 26): each call reserves its worst case (the request's own
 * max_output_tokens) against what is left; a call that does not fit beside the reservations of calls in flight
 * waits for them instead of stopping the run (`--budget-usd 0.2 --concurrency 4` stopped at 6% of the cap), and
 * the run stops only when a call would not fit even with nothing in flight. Against the fake provider, whose log
 * is the invoice.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { generateEntryDirect, type DirectEntryInput as GenerateEntryInput } from './directGeneration.ts';
import { Ledger, closeLedgers } from '../../activities/ledger/ledger.ts';

let fake: FakeLlmServer;
let dir: string;
before(async () => {
  fake = await startFakeLlmServer();
  dir = mkdtempSync(join(tmpdir(), 'budget-conc-'));
});
after(async () => {
  closeLedgers();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const settings = { provider: 'anthropic' as const, model: 'claude-sonnet-4-6', endpoint: 'messages', max_output_tokens: 4000 };
const input = (runDir: string, name: string, budget?: { max_usd: number }): GenerateEntryInput => ({
  runId: 'r',
  runDir,
  entry: { entry_id: `id_${name}`, function_name: name, query: 'Sum a window', domain: 'collections' },
  attemptNo: 1,
  settings,
  promptId: 'entry.v1',
  ...(budget ? { budget } : {}),
});
/** What the provider billed for these subjects ($3 / $15 per M tokens, data/prices.json). */
const billed = (subjects: string[]) =>
  fake.log.filter((l) => l.subject !== null && subjects.includes(l.subject) && l.usage).reduce((s, l) => s + (l.usage!.input_tokens * 3 + l.usage!.output_tokens * 15) / 1e6, 0);

/** n entries through 4 lanes, as the workflow runs them with --concurrency 4; each lane stops at a budget stop. */
async function fourInFlight(runDir: string, names: string[], cap: number): Promise<{ ok: string[]; stopped: string[]; peak: number }> {
  const ok: string[] = [];
  const stopped: string[] = [];
  let next = 0;
  let inflight = 0;
  let peak = 0;
  const lane = async () => {
    while (next < names.length) {
      const name = names[next++];
      inflight += 1;
      peak = Math.max(peak, inflight);
      try {
        const r = await generateEntryDirect(fake.env, input(runDir, name, { max_usd: cap }));
        assert.ok(r.ok, JSON.stringify(r));
        ok.push(name);
      } catch (err) {
        assert.ok(err instanceof ApplicationFailure && err.type === 'BudgetExceededError', String(err));
        stopped.push(name);
      } finally {
        inflight -= 1;
      }
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  return { ok, stopped, peak };
}

test('four calls in flight under a cap of 2.5 worst cases: every call runs (none is stopped by the others’ reservations)', async () => {
  // One call alone: its worst case (reserved) and its real bill.
  const calib = join(dir, 'calib');
  await generateEntryDirect(fake.env, input(calib, 'calib_fn'));
  const l = new Ledger(join(calib, 'ledger.sqlite'));
  const [c] = l.calls('r');
  l.close();
  const worst = c.cost_usd_max!;
  assert.ok(worst > 5 * c.cost_usd!, `worst $${worst} vs billed $${c.cost_usd}: the fake bills far below the worst case`);

  const cap = 2.5 * worst;
  const names = Array.from({ length: 8 }, (_, i) => `conc_${i}`);
  fake.delayMs = 150; // the calls overlap
  let r;
  try {
    r = await fourInFlight(join(dir, 'conc'), names, cap);
  } finally {
    fake.delayMs = 0;
  }
  assert.equal(r.peak, 4);
  // 8 real bills stay below cap - one worst case: none may be stopped (before: every call past the first two was).
  assert.ok(8 * c.cost_usd! * 1.2 < cap - worst, 'the fixture leaves room for every call');
  assert.deepEqual([r.ok.length, r.stopped], [8, []]);
  const spent = billed(names);
  assert.ok(spent <= cap, `billed $${spent} <= cap $${cap}`);
});

test('the run stops only when a call would not fit with nothing in flight, and never passes the cap', async () => {
  const runDir = join(dir, 'tight');
  const calibDir = join(dir, 'calib2');
  await generateEntryDirect(fake.env, input(calibDir, 'calib2_fn'));
  const l = new Ledger(join(calibDir, 'ledger.sqlite'));
  const [c] = l.calls('r');
  l.close();
  const worst = c.cost_usd_max!;
  const cap = worst + 5 * c.cost_usd!;
  const names = Array.from({ length: 16 }, (_, i) => `tight_${i}`);
  fake.delayMs = 100;
  let r;
  try {
    r = await fourInFlight(runDir, names, cap);
  } finally {
    fake.delayMs = 0;
  }
  const spent = billed(names);
  assert.ok(spent <= cap, `billed $${spent} <= cap $${cap}`);
  assert.ok(r.stopped.length > 0, 'the cap stops the run');
  // Every call that ran was billed; a stop came only once billed + one worst case passed the cap: so as many
  // calls ran as fit (cap - worst) at the largest real bill seen.
  const perCall = fake.log.filter((x) => x.subject !== null && names.includes(x.subject) && x.usage).map((x) => (x.usage!.input_tokens * 3 + x.usage!.output_tokens * 15) / 1e6);
  const fit = Math.floor((cap - worst) / Math.max(...perCall));
  assert.ok(r.ok.length >= fit, `${r.ok.length} calls ran; at least ${fit} fit`);
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    const calls = ledger.calls('r');
    assert.equal(calls.length, r.ok.length, 'a stopped call is never sent, nor recorded');
    assert.ok(calls.every((x) => x.status === 'ok'));
  } finally {
    ledger.close();
  }
});
