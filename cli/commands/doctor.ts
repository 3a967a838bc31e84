import type { Command } from 'commander';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('Check everything a run needs here: Node, Python, the temporal binary, the sandbox layers, the caches, local models, API keys (never printed), and what npm start will run')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ execretrieval doctor\n\nExit codes: 0 nothing blocks a run (warnings: something optional is missing); 1 a check failed (its line says the fix).')
    .action(async (opts: { json?: boolean }) => {
      // Imported when the command runs, not when it is registered: `--help` and usage errors need none of it.
      const { runDoctor } = await import('../../activities/doctor/checks.ts');
      const r = await runDoctor();
      if (opts.json) console.log(JSON.stringify(r, null, 2));
      else {
        const mark = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;
        let area = '';
        for (const c of r.checks) {
          if (c.area !== area) console.log(`${(area = c.area)}:`);
          console.log(`  ${mark[c.status]} ${c.name}: ${c.detail}${c.status !== 'ok' && c.fix ? ` — ${c.fix}` : ''}`);
        }
        console.log(`npm start: ${r.npm_start.command} with ${r.npm_start.configs.join(', ')}`);
      }
      if (r.checks.some((c) => c.status === 'fail')) process.exitCode = 1;
    });
}
