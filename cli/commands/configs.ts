import type { Command } from 'commander';
import { checkedRegistry } from '../options.ts';
import { availability } from '../../activities/embeddings/availability.ts';
import { listServers } from '../../activities/embeddings/serverModels.ts';
import { configuredBaseUrl } from '../../activities/embeddings/availability.ts';
import { servableModelNames } from '../../infra/embedServer/servedModel.ts';
import { retrieverKind } from '../../core/embeddings/registry.ts';
import { modelRoot } from '../../activities/paths.ts';

export function registerConfigs(program: Command): void {
  program
    .command('configs')
    .description('List embedding configurations and whether each can run here (weights present, API key or server set)')
    .addHelpText('after', '\nExample:\n  $ execretrieval configs --json')
    .option('--config-file <file...>', 'extra registry files merged after ours and .execretrieval/embedding-configs.json')
    .option('--json', 'print JSON')
    .action(async (opts: { configFile?: string[]; json?: boolean }) => {
      // A registry file that is missing or malformed stops here (exit 2): a list without its entries would mislead.
      const reg = await checkedRegistry(opts.configFile);
      const base = { env: process.env, modelRoot: modelRoot() };
      const penv = { ...base, servers: await listServers(reg.entries.map((e) => e.config), base) };
      const served = servableModelNames(reg.entries, base);
      const rows = reg.entries.map((e) => {
        const a = availability(e.config, penv);
        // An open-weight entry waiting for a server that this checkout can be: say how to start it.
        const localServer = e.config.provider === 'openai-compatible' && !configuredBaseUrl(e.config, base) && served.has(e.config.model);
        const env = e.config.base_url_env ?? 'base_url';
        return {
          config_id: e.config.config_id,
          kind: retrieverKind(e.config),
          provider: e.config.provider,
          model: e.config.model,
          dims: e.config.dimensions,
          license: e.config.license,
          paper: e.config.paper,
          default_run: e.config.default_run,
          runnable: a.ok,
          detail: localServer ? `${a.detail}; \`execretrieval serve-embeddings\` serves it here (then ${env}=http://127.0.0.1:8089/v1)` : a.detail,
          local_server: localServer,
          origin: e.origin,
          overrides: e.overrides,
        };
      });
      for (const err of reg.errors) process.stderr.write(`config error: ${err}\n`);
      if (opts.json) {
        console.log(JSON.stringify({ configs: rows, errors: reg.errors }, null, 2));
        return;
      }
      const w = Math.max(...rows.map((r) => r.config_id.length));
      for (const r of rows) {
        const notes = [r.detail, ...(r.license ? [`license ${r.license}`] : []), ...(r.default_run ? [] : ['not in the default run: name it with --configs']), ...(r.overrides ? [`overrides ${r.overrides}`] : [])];
        console.log(`${r.runnable ? 'ok ' : '-- '} ${r.config_id.padEnd(w)}  ${r.kind.padEnd(7)} ${r.provider.padEnd(17)} ${String(r.dims ?? '').padStart(5)}  ${r.model}  (${notes.join('; ')})`);
      }
      console.log(`${rows.filter((r) => r.runnable).length} of ${rows.length} can run here`);
    });
}
