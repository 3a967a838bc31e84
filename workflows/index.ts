/**
 * Every workflow the workers register: the bundle entry point (`bundleWorkflowCode({ workflowsPath })`).
 * To add a workflow, add ONE export line here.
 */
export * from './ping.ts';
export * from './generateRegistry.ts';
export * from './buildEntry.ts';
export * from './buildBenchmark.ts';
export * from './embedSweep.ts';
export * from './runPipeline.ts';
export * from './batchBenchmark.ts';
export * from './batchRegistry.ts';
export * from './embedChunk.ts';
