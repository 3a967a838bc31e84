/**
 * Every command's `--help` page, rendered once from the commands themselves into cli/helpPages.json, so that
 * bin/execretrieval.js prints it without loading tsx, commander or the command's SDKs (`generate --help` took
 * ~6 s that way, 25x a bare `node -e 0`). test/cli/helpPages.test.ts fails when the file differs from what the
 * commands render: after changing an option or its text, run `node --import tsx cli/helpPages.ts --write`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from './main.ts';

export const HELP_PAGES_FILE = join(fileURLToPath(new URL('.', import.meta.url)), 'helpPages.json');

/** `{ "score": "...", "repo index": "...", ... }`: each command's help as commander prints it, 80 columns wide. */
export function renderHelpPages(): Record<string, string> {
  const pages: Record<string, string> = {};
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      const key = [...path, sub.name()];
      let text = '';
      sub.configureOutput({ writeOut: (s) => void (text += s), getOutHelpWidth: () => 80 });
      sub.outputHelp();
      pages[key.join(' ')] = text;
      walk(sub, key);
    }
  };
  walk(buildProgram(), []);
  return pages;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  writeFileSync(HELP_PAGES_FILE, JSON.stringify(renderHelpPages(), null, 1) + '\n');
}
