/**
 * `execretrieval generate registry|benchmark`: starts (or resumes) the durable workflows. Without
 * TEMPORAL_ADDRESS it starts the local dev server (database `.execretrieval/temporal.db`, Web UI address
 * printed) and an all-in-one worker in this process; with it, it connects there and, with --no-worker, leaves
 * the work to the workers already serving the queues. Rerunning the same --run resumes: a workflow that is
 * still open is attached to, and finished entries are skipped.
 */
import { DEFAULT_SEED } from '../../schemas/runConfig.ts';
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { resolveRunDir } from '../../activities/paths.ts';
import { loadPriceTable } from '../../activities/generation/files.ts';
import { runPaths } from '../../activities/generation/runFiles.ts';
import { writeRunAudit } from '../../activities/generation/auditFiles.ts';
import { writeFileAtomic } from '../../activities/storage/atomic.ts';
import { hasPrice } from '../../core/generation/cost.ts';
import { formatIssues } from '../../core/jsonl.ts';
import { ENDPOINTS, GENERATOR_KINDS, LLM_PROVIDERS, LlmSettings, type LlmProvider } from '../../core/generation/types.ts';
import { DOMAINS } from '../../schemas/task.ts';
import { buildBenchmark } from '../../workflows/buildBenchmark.ts';
import { generateRegistry } from '../../workflows/generateRegistry.ts';
import { batchRegistry } from '../../workflows/batchRegistry.ts';
import { benchmarkWorkflowId, registryWorkflowId, type GeneratorSpec } from '../../workflows/generationTypes.ts';
import { startOrAttach, temporalLogFile, withTemporal } from '../temporalRun.ts';
import { formatAudit } from './audit.ts';
import { CliError } from '../errors.ts';
import { parseDuration } from '../../core/generation/patience.ts';
import { EXIT_CODES, InfraFault } from '../../activities/faults.ts';
import { runBuildStage } from '../buildStage.ts';
import { runBatchBenchmark } from './generateBatch.ts';
import { loadBatchPriceTable } from '../../activities/batch/prices.ts';
import { BATCH_PROVIDERS } from '../../activities/batch/providerBatches.ts';
import { checkProfile } from '../options.ts';

export interface CommonOpts {
  run: string;
  worker: boolean;
  ui: boolean;
  queuePrefix: string;
  budgetUsd?: string;
  budgetTokens?: string;
  providerPatience: string;
  maxAttempts: string;
  reasoningEffort?: string;
  maxOutputTokens?: string;
  endpoint?: string;
  model?: string;
}

const DEFAULT_ENDPOINT: Record<LlmProvider, string> = { openai: ENDPOINTS.openai[1], anthropic: 'messages', gemini: 'generateContent' };

function num(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new CliError(`${flag}: "${v}" is not a non-negative number`, EXIT_CODES.usage);
  return n;
}

function llmSettings(provider: string, o: CommonOpts): LlmSettings {
  if (!(LLM_PROVIDERS as readonly string[]).includes(provider)) throw new CliError(`unknown provider "${provider}" (known: ${LLM_PROVIDERS.join(', ')})`, EXIT_CODES.usage);
  if (!o.model) throw new CliError(`--model is required with provider ${provider}`, EXIT_CODES.usage);
  const maxOut = num(o.maxOutputTokens, '--max-output-tokens');
  const r = LlmSettings.safeParse({
    provider, model: o.model, endpoint: o.endpoint ?? DEFAULT_ENDPOINT[provider as LlmProvider], reasoning_effort: o.reasoningEffort,
    ...(maxOut !== undefined ? { max_output_tokens: maxOut } : {}),
  });
  if (!r.success) throw new CliError(formatIssues(r.error.issues), EXIT_CODES.usage);
  if (!hasPrice(loadPriceTable(), provider, o.model)) throw new CliError(`data/prices.json has no price for "${provider}/${o.model}": add it first (the budget cap needs it)`, EXIT_CODES.usage);
  return r.data;
}

function patienceMs(o: CommonOpts): number {
  const ms = parseDuration(o.providerPatience);
  if (ms === null) throw new CliError(`--provider-patience: "${o.providerPatience}" is not a duration (e.g. 90s, 10m, 1h)`, EXIT_CODES.usage);
  return ms;
}

const budgetOf = (o: CommonOpts) => {
  const max_usd = num(o.budgetUsd, '--budget-usd');
  const max_tokens = num(o.budgetTokens, '--budget-tokens');
  return max_usd === undefined && max_tokens === undefined ? undefined : { ...(max_usd !== undefined ? { max_usd } : {}), ...(max_tokens !== undefined ? { max_tokens } : {}) };
};

/** The in-process worker serves every queue a generation run uses. */
export const temporalOpts = (o: CommonOpts, runDir: string) => ({
  worker: o.worker,
  logFile: temporalLogFile(runDir),
  ui: o.ui,
  queuePrefix: o.queuePrefix,
  keys: ['default', 'llm', 'exec', 'embed'] as const,
  // ERROR, not WARN: the SDK warns that the llm/exec/embed workers register no workflows, which is by design.
  logLevel: process.env.TEMPORAL_LOG_LEVEL ?? 'ERROR',
});
const attaching = (id: string) => `workflow ${id} is already running: attaching to it`;

function common(cmd: Command): Command {
  return cmd
    .requiredOption('--run <id>', 'run id (outputs under runs/<id>/) or a run directory')
    .option('--model <name>', 'model id (must be in data/prices.json)')
    .option('--endpoint <name>', 'API endpoint: openai responses|chat.completions; anthropic messages; gemini generateContent')
    .option('--reasoning-effort <level>', 'minimal|low|medium|high (or a thinking-token budget for anthropic/gemini)')
    .option('--max-output-tokens <n>', "output cap each request states (default 4096, plus the reasoning effort's thinking budget for openai); the budget reserves, and the audit bounds a lost call at, exactly this (plus the thinking budget where the provider adds it)")
    .option('--max-attempts <n>', 'generation attempts per entry (regenerations get the previous reasons)', '3')
    .option('--budget-usd <usd>', 'stop new attempts once the run has spent this much (resumable)')
    .option('--budget-tokens <n>', 'stop new attempts once the run has used this many tokens (resumable)')
    .option('--provider-patience <duration>', 'how long one attempt retries 429/5xx/timeouts before ending as provider_error (e.g. 90s, 10m, 1h); does not consume --max-attempts', '10m')
    .option('--queue-prefix <p>', 'task queue prefix (several users of one cluster)', 'execretrieval')
    .option('--no-worker', 'do not run a worker in this process (workers are already serving the queues)')
    .option('--no-ui', 'start the local dev server without its Web UI');
}

export function registerGenerate(program: Command): void {
  const gen = program.command('generate').description('Durable LLM/mechanical benchmark generation on Temporal (resumable; see `audit`)');
  gen.addHelpText('after', '\nExample:\n  $ execretrieval generate benchmark --run gen1 --generator mechanical --tasks data/samples/tasks.jsonl --profile check');

  common(gen.command('registry'))
    .addHelpText('after', '\nExample:\n  $ execretrieval generate registry --run gen1 --provider openai --per-domain 10   # needs OPENAI_API_KEY')
    .description('Phase 1: (function_name, query, domain) triples per domain from an LLM, deduplicated, to runs/<id>/registry.jsonl')
    .requiredOption('--provider <name>', `LLM provider: ${LLM_PROVIDERS.join(', ')}`)
    .option('--per-domain <n>', 'triples to ask for per domain', '100')
    .option('--domains <list>', 'comma-separated domains', DOMAINS.join(','))
    .option('--prompt <id>', 'locked prompt set under data/prompts/', 'registry.v1')
    .option('--batch', 'ask every domain in one provider batch per round (half price, results within 24 h; openai, anthropic, gemini; see docs/batch.md)')
    .action(async (o: CommonOpts & { provider: string; perDomain: string; domains: string; prompt: string; batch?: boolean }) => {
      const settings = llmSettings(o.provider, o);
      if (o.batch) checkBatchSettings(settings);
      const runDir = resolveRunDir(o.run);
      const runId = basename(runDir);
      const result = await withTemporal(temporalOpts(o, runDir), (client, queues) =>
        startOrAttach(client, o.batch ? batchRegistry : generateRegistry, {
          taskQueue: queues.default,
          workflowId: registryWorkflowId(runId),
          args: [{ runId, runDir, settings, promptId: o.prompt, domains: o.domains.split(',').map((d) => d.trim()).filter(Boolean), perDomain: Number(o.perDomain), maxAttempts: Number(o.maxAttempts), queues, budget: budgetOf(o), providerPatienceMs: patienceMs(o) }],
        }, attaching),
      );
      console.log(`registry: ${result.entries} entries written to ${runPaths(runDir).registry}; ${result.dropped.length} dropped as duplicates (see registry-dropped.jsonl)`);
      for (const f of result.failed_domains) console.log(`domain ${f.domain}: no usable response (${f.error})`);
      if (result.reconciled_lost_calls) console.error(`${result.reconciled_lost_calls} call(s) an earlier run left in flight had no response recorded: counted as lost (\`execretrieval audit --run ${runId}\` bounds their cost)`);
    });

  common(gen.command('benchmark'))
    .addHelpText('after', '\nExample:\n  $ execretrieval generate benchmark --run gen1 --generator mechanical --tasks data/samples/tasks.jsonl --profile check   # no LLM: the build stage of run')
    .description('Phase 2: every registry entry generated, gated (five stages) and regenerated on rejection; writes queries.jsonl/corpus.jsonl')
    .requiredOption('--generator <kind>', `${GENERATOR_KINDS.join(', ')}`)
    .option('--registry <file>', 'registry JSONL (default runs/<id>/registry.jsonl; copied into the run)')
    .option('--tasks <file>', 'tasks JSONL with canonical and tests (for --generator mechanical: the build stage of `run`, written to runs/<id>/benchmark/)')
    .option('--profile <name>', 'gate profile', 'default')
    .option('--concurrency <n>', 'entries in flight at once', '4')
    .option('--page-size <n>', 'entries per workflow run before continue-as-new', '200')
    .option('--retry-rejected', 'also redo entries that ended rejected in an earlier run')
    .option('--seed <n>', 'mechanical generator seed', String(DEFAULT_SEED))
    .option('--prompt <id>', 'locked prompt set under data/prompts/', 'entry.v1')
    .option('--batch', "send each round's requests through the provider's batch API (half price, results within 24 h; openai, anthropic, gemini; see docs/batch.md)")
    .action(async (o: CommonOpts & { generator: string; registry?: string; tasks?: string; profile: string; concurrency: string; pageSize: string; retryRejected?: boolean; seed: string; prompt: string; batch?: boolean }) => {
      await checkProfile(o.profile);
      const runDir = resolveRunDir(o.run);
      const runId = basename(runDir);
      if (o.generator === 'mechanical') {
        // The mutation engine over tasks that have canonical and tests is the pipeline's build stage: one implementation (cli/buildStage.ts).
        if (!o.tasks) throw new CliError('--generator mechanical needs --tasks <file> (tasks with canonical and tests)', EXIT_CODES.usage);
        const seed = Number(o.seed);
        if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new CliError(`--seed must be an integer in [0, 2^32), got ${o.seed}`, EXIT_CODES.usage);
        const { out, manifest } = await runBuildStage({ runDir, source: resolve(o.tasks), seed, profile: o.profile, worker: o.worker, queuePrefix: o.queuePrefix });
        const c = manifest.counts;
        console.log(`tasks: ${c.input_records}; accepted ${c.queries}, rejected ${c.input_records - c.queries}; released ${c.queries} queries, ${c.corpus} corpus items: ${out}/queries.jsonl, ${out}/corpus.jsonl`);
        return;
      }
      const generator: GeneratorSpec = { kind: 'llm', settings: llmSettings(o.generator, o), promptId: o.prompt };
      if (o.batch) checkBatchSettings(generator.settings);
      const source = { kind: 'registry' as const, path: adoptRegistry(runDir, o.registry) };
      const manifest = {
        generator: { ...generator.settings, prompt_id: generator.promptId },
        profile: o.profile,
        max_attempts: Number(o.maxAttempts),
        budget: budgetOf(o) ?? null,
        prices_version: loadPriceTable().version,
        source,
      };
      if (o.batch) {
        await runBatchBenchmark({ o, runDir, runId, source, generator, manifest, budget: budgetOf(o), temporal: temporalOpts(o, runDir) });
        return;
      }
      const result = await withTemporal(temporalOpts(o, runDir), (client, queues) =>
        startOrAttach(client, buildBenchmark, {
          taskQueue: queues.default,
          workflowId: benchmarkWorkflowId(runId),
          args: [{
            runId, runDir, source, generator, maxAttempts: Number(o.maxAttempts), profile: o.profile, queues, budget: budgetOf(o), providerPatienceMs: patienceMs(o),
            concurrency: Number(o.concurrency), pageSize: Number(o.pageSize), retryRejected: !!o.retryRejected, manifest,
          }],
        }, attaching),
      );
      const t = result.tally;
      console.log(`entries: ${t.total} (skipped as already finished: ${t.skipped}); accepted ${t.accepted}, rejected ${t.rejected}, budget-stopped ${t.budget_exhausted}, provider errors ${t.provider_error}, infrastructure faults ${t.infra_error}`);
      for (const b of t.bad_records) console.log(`bad record: ${b}`);
      if (t.budget_stopped) console.log('budget cap reached: rerun the same command with a higher cap to resume');
      if (result.finalize) console.log(`released ${result.finalize.released_queries} queries, ${result.finalize.corpus_items} corpus items: ${result.finalize.files.queries}, ${result.finalize.files.corpus}`);
      if (existsSync(runPaths(runDir).ledger)) console.log('\n' + formatAudit(writeRunAudit(runDir).audit, { entries: false }));
      // Accepted and rejected are final; every other entry (stopped, failed, never started) is left for a rerun.
      const left = t.total - t.accepted - t.rejected;
      const resume = `execretrieval ${process.argv.slice(2).join(' ')}`;
      if (t.infra_fault !== null) throw new InfraFault(`${t.infra_fault} [${left} entries unfinished; after the fix resume with: ${resume}]`);
      if (left > 0) {
        console.error(`${left} entries unfinished (budget-stopped ${t.budget_exhausted}, provider errors ${t.provider_error}, not started ${left - t.budget_exhausted - t.provider_error - t.infra_error}): resume with: ${resume}`);
        process.exitCode = EXIT_CODES.unfinished;
      }
    });
}

/** --batch needs a provider whose batch API generation uses, and a batch price: refused before anything starts. */
function checkBatchSettings(s: LlmSettings): void {
  if (!BATCH_PROVIDERS.includes(s.provider)) throw new CliError(`--batch: generation uses the batch APIs of ${BATCH_PROVIDERS.join(', ')} (got ${s.provider}); run without --batch`, EXIT_CODES.usage);
  if (!hasPrice(loadBatchPriceTable(), s.provider, s.model)) throw new CliError(`--batch: data/prices.json has no batch price for "${s.provider}/${s.model}" (under "batch" → "models"): add it first`, EXIT_CODES.usage);
}

/** Puts the registry into the run (so the run is self-contained); refuses to replace a different one. */
function adoptRegistry(runDir: string, given: string | undefined): string {
  const target = runPaths(runDir).registry;
  if (!given) {
    if (!existsSync(target)) throw new CliError(`${target} does not exist: run \`generate registry --run ...\` first or pass --registry <file>`, EXIT_CODES.usage);
    return target;
  }
  const src = resolve(given);
  if (src === target) return target;
  if (existsSync(target) && readFileSync(target, 'utf8') !== readFileSync(src, 'utf8')) {
    throw new Error(`${target} already holds a different registry: use a new --run id, or omit --registry to resume`);
  }
  if (!existsSync(target)) writeFileAtomic(target, readFileSync(src));
  return target;
}
