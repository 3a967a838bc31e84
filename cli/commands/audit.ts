import type { Command } from 'commander';
import { addRunOption, existingRunDir } from '../options.ts';
import { CliError } from '../errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { writeRunAudit } from '../../activities/generation/auditFiles.ts';
import type { GroupAudit, RunAudit } from '../../core/generation/audit.ts';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { runPaths } from '../../activities/generation/runFiles.ts';
import { writeEmbeddingAudit, type EmbeddingAudit } from '../../activities/embeddings/accounting.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import { formatBatches, inFlight, readBatches } from './batchStatus.ts';

/** Plain fixed-width table: numbers right-aligned. */
function table(headers: string[], rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const w = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(headers), w.map((n) => '-'.repeat(n)).join('  '), ...cells.map(line)].join('\n');
}
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(4));
const groupRows = (gs: GroupAudit[]) => gs.map((g) => [g.key, g.calls, g.input_tokens, g.output_tokens, g.reasoning_tokens, g.cost_usd]);
const G = ['', 'calls', 'input_tok', 'output_tok', 'reasoning_tok', 'cost_usd'];

/** Where the lost calls' input counts come from: see docs/faults.md "The lost-call bound". */
function lostInputSource(t: GroupAudit | RunAudit['totals']): string {
  const n = t.lost_input_exact_calls;
  if (n === t.lost_calls) return 'exact: the same prompts were answered';
  return n ? `exact for ${n}, the others at one token per prompt byte` : 'at one token per prompt byte';
}

export function formatAudit(a: RunAudit, opts: { entries: boolean }): string {
  const parts = [
    table(['total', ...G.slice(1)], [['all', a.totals.calls, a.totals.input_tokens, a.totals.output_tokens, a.totals.reasoning_tokens, a.totals.cost_usd]]),
    table(['model', ...G.slice(1)], groupRows(a.by_model)),
    table(['outcome', ...G.slice(1)], groupRows(a.by_outcome)),
    table(['phase', ...G.slice(1)], groupRows(a.by_phase)),
    [
      `billed: $${a.totals.cost_usd.toFixed(6)} over ${a.totals.calls - a.totals.lost_calls - a.totals.refused_calls} answered calls` +
        (a.totals.refused_calls ? ` (${a.totals.refused_calls} more refused by the provider: not billed)` : '') +
        (a.totals.lost_calls
          ? `; ${a.totals.lost_calls} lost calls (sent, no response recorded): ~${a.totals.lost_input_tokens_est} input tokens (${lostInputSource(a.totals)}), at most $${a.totals.lost_cost_usd_max.toFixed(6)} at their output caps (so the bill is at most $${(a.totals.cost_usd + a.totals.lost_cost_usd_max).toFixed(6)})`
          : ''),
      `accepted entries: ${a.accepted_entries}`,
      `attempts per accepted entry: ${a.attempts_per_accepted === null ? 'n/a' : a.attempts_per_accepted.toFixed(3)}`,
      `first-attempt validation rate: ${a.first_attempt_validation_rate === null ? 'n/a' : `${(100 * a.first_attempt_validation_rate).toFixed(1)}% (${a.first_attempt_accepted} of ${a.first_attempt_judged})`}`,
    ].join('\n'),
  ];
  if (opts.entries) {
    parts.push(table(['entry', 'attempts', 'outcome', ...G.slice(1)], a.entries.map((e) => [e.entry_id, e.attempts, e.final_outcome, e.calls, e.input_tokens, e.output_tokens, e.reasoning_tokens, e.cost_usd])));
  }
  return parts.join('\n\n');
}

export function formatEmbeddingAudit(a: Pick<EmbeddingAudit, 'rows' | 'totals'>): string {
  const ran = a.rows.filter((r) => r.status === 'ok' || r.embedded > 0 || r.cached > 0 || r.requests > 0);
  const skipped = a.rows.length - ran.length;
  const t = a.totals;
  const elsewhere = ran.reduce((s, r) => s + r.texts_paid_elsewhere, 0);
  return [
    table(
      ['embedding config', 'texts', 'embedded', 'cached', 'tokens', 'tokens_est', 'cost_usd', 'requests', 'lost', 'lost_usd_max'],
      ran.map((r) => [r.config_id, r.texts, r.embedded, r.cached, r.tokens_reported, r.tokens_estimated, r.cost_usd, r.requests, r.lost_requests, r.lost_cost_usd_max]),
    ),
    `embedding billed (every sweep of this run): $${t.cost_usd.toFixed(6)} over ${t.billed_batches} answered requests` +
      (t.lost_batches
        ? `; ${t.lost_batches} lost requests (sent, no answer recorded): ~${t.lost_input_tokens_est} input tokens, at most $${t.lost_cost_usd_max.toFixed(6)} (so the bill is at most $${(t.cost_usd + t.lost_cost_usd_max).toFixed(6)})`
        : ''),
    ...(elsewhere ? [`${elsewhere} texts came from the shared cache, paid for by another run (not billed here)`] : []),
    ...(skipped ? [`(${skipped} configurations did not run: see embeddings/report.json)`] : []),
  ].join('\n');
}

/** Whether the run's ledger holds generation calls (an embedding-only run's ledger holds batch rows only). */
function hasGenerationCalls(ledgerPath: string): boolean {
  if (!existsSync(ledgerPath)) return false;
  const l = new Ledger(ledgerPath);
  try {
    return l.calls().length > 0;
  } finally {
    l.close();
  }
}

export function registerAudit(program: Command): void {
  const cmd = program
    .command('audit')
    .addHelpText('after', '\nExample:\n  $ execretrieval audit --run default   # tokens and cost per configuration (and per generated entry)')
    .description('Tokens and cost of a run: generation (per entry, by model, by outcome, attempts per accepted entry, first-attempt validation rate) and embedding (per configuration); writes Parquet')
    .argument('[run]', 'deprecated: use --run');
  addRunOption(cmd)
    .option('--entries', 'also print the per-entry table')
    .option('--json', 'print the audit as JSON instead of tables')
    .option('--check-batches', "read every ingested provider batch's output and error files (generation's and embedding's) again and compare them with the ledger, request by request (needs the provider's API key)")
    .action(async (run: string | undefined, opts: { entries?: boolean; json?: boolean; checkBatches?: boolean }) => {
      const runDir = existingRunDir(opts, run);
      const generation = hasGenerationCalls(runPaths(runDir).ledger) ? writeRunAudit(runDir) : null;
      const embedding = writeEmbeddingAudit(runDir);
      // Provider batches (generate --batch): ingested ones are in the ledger rows above, from their output and error
      // files; the ones still in flight are listed with the most they can add.
      const batches = readBatches(runDir);
      if (!generation && !embedding && !batches.length) {
        throw new CliError(`${runDir}: neither a generation ledger nor an embedding report (run \`generate\` or \`embed\` first)`, EXIT_CODES.usage);
      }
      if (opts.json) {
        console.log(JSON.stringify({ generation: generation?.audit ?? null, batches: batches.map(({ requests: _r, ...b }) => b), batches_in_flight: inFlight(batches).length, embedding: embedding ? { configs: embedding.rows, totals: embedding.totals, total_cost_usd: embedding.totals.cost_usd } : null }, null, 2));
      } else {
        const parts: string[] = [];
        if (generation) parts.push(formatAudit(generation.audit, { entries: !!opts.entries }));
        if (batches.length) parts.push(formatBatches(runDir));
        if (embedding) parts.push(formatEmbeddingAudit(embedding));
        console.log(parts.join('\n\n'));
      }
      if (opts.checkBatches) {
        const { checkBatchesAgainstProvider, checkEmbedBatchesAgainstProvider } = await import('../../activities/batch/verify.ts');
        // Generation's batches (hasGenerationCalls: an embedding-only run has none) and embedding's.
        const checks = [
          ...(generation ? await checkBatchesAgainstProvider(runDir, basename(runDir), process.env) : []),
          ...(await checkEmbedBatchesAgainstProvider(runDir, basename(runDir), process.env)),
        ];
        const bad = checks.flatMap((c) => c.differences.map((d) => `${c.batch_id} (${c.round}): ${d}`));
        const total = checks.reduce((s, c) => s + c.cost_usd, 0);
        console.log(`\nprovider files of ${checks.length} ingested batches: ${checks.reduce((s, c) => s + c.answered, 0)} answered requests, $${total.toFixed(6)} at batch prices; ${bad.length ? `${bad.length} differences from the ledger:` : 'the ledger matches them request by request'}`);
        for (const b of bad) console.log(`  ${b}`);
        if (bad.length) process.exitCode = 1;
      }
      const files = [...(generation?.files ?? []), ...(embedding?.rows.length ? [embedding.file] : [])];
      if (files.length) console.error(`\nwrote ${files.join(', ')}`);
    });
}
