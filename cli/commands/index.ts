import type { Command } from 'commander';
import { registerBuild } from './build.ts';
import { registerCache } from './cache.ts';
import { registerRun } from './run.ts';
import { registerImport } from './import.ts';
import { registerImportRankings, registerImportVectors } from './importConfig.ts';
import { registerRerank } from './rerank.ts';
import { registerRetrieve } from './retrieve.ts';
import { registerValidate } from './validate.ts';
import { registerRepo } from './repo.ts';
import { registerScore } from './score.ts';
import { registerReport } from './report.ts';
import { registerCompare } from './compare.ts';
import { registerCompareRuns } from './compareRuns.ts';
import { registerEmbed } from './embed.ts';
import { registerSimilarity } from './similarity.ts';
import { registerConfigs } from './configs.ts';
import { registerGenerate } from './generate.ts';
import { registerAudit } from './audit.ts';
import { registerUi } from './ui.ts';
import { registerRuns } from './runs.ts';
import { registerDoctor } from './doctor.ts';
import { registerBootstrap } from './bootstrap.ts';
import { registerServeEmbeddings } from './serveEmbeddings.ts';

/** Every subcommand registers itself here, one line each. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerRun,
  registerValidate,
  registerCache,
  registerBuild,
  registerImport, registerImportRankings, registerImportVectors, (p) => registerRerank(p), (p) => registerRetrieve(p),
  registerRepo,
  registerScore, registerReport, registerCompare, registerCompareRuns,
  registerEmbed, registerSimilarity, registerConfigs,
  registerGenerate, registerAudit,
  registerUi, registerRuns, registerDoctor, registerBootstrap,
  registerServeEmbeddings,
];
