// The one task-file reader behind validate, build and import: gzip everywhere, a per-record size cap, invalid
// UTF-8 as a per-record error (never replaced), and empty input as exit 1 with a line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readJsonl } from '../../activities/importers/jsonlReader.ts';
import { importTaskFiles } from '../../activities/importers/taskJsonl.ts';
import { loadTasks } from '../../activities/tasks/loadTasks.ts';
import { route } from '../../cli/commandTable.js';
import { runCommand } from '../../cli/entry.ts';
import { projectRoot } from '../../activities/paths.ts';

const tmp = mkdtempSync(join(tmpdir(), 'reader-'));
const sample = readFileSync(join(projectRoot(), 'data', 'samples', 'tasks.jsonl'));
const firstLine = sample.subarray(0, sample.indexOf(0x0a) + 1);

test('validate and import read the same gzipped file as build: same tasks, same lines', () => {
  const gz = join(tmp, 'tasks.jsonl.gz');
  writeFileSync(gz, gzipSync(sample));
  const plain = loadTasks(join(projectRoot(), 'data', 'samples', 'tasks.jsonl'));
  const viaGz = loadTasks(gz);
  assert.ok(plain.items.length > 0);
  assert.deepEqual(viaGz.items.map((i) => [i.task.task_id, i.line]), plain.items.map((i) => [i.task.task_id, i.line]));
  assert.deepEqual(importTaskFiles(gz).tasks.map((t) => t.task.task_id), plain.items.map((i) => i.task.task_id));
  // A directory holding only the .jsonl.gz is read too.
  const dir = mkdtempSync(join(tmp, 'dir-'));
  writeFileSync(join(dir, 'a.jsonl.gz'), gzipSync(sample));
  assert.equal(loadTasks(dir).items.length, plain.items.length);
});

test('an oversized record and an invalid UTF-8 record are each rejected with their line; the others are kept', () => {
  const f = join(tmp, 'mixed.jsonl');
  const big = Buffer.from(`{"pad": "${'x'.repeat(2000)}"}\n`);
  const badUtf8 = Buffer.concat([Buffer.from('{"query": "caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
  writeFileSync(f, Buffer.concat([firstLine, big, badUtf8, firstLine]));
  const r = readJsonl(f, { maxRecordBytes: 1900 });
  assert.deepEqual(r.records.map((x) => x.line), [1, 4]);
  assert.deepEqual(r.rejections.map((x) => [x.line, x.code]), [[2, 'RECORD_TOO_LARGE'], [3, 'INVALID_UTF8']]);
  assert.match(r.rejections[0].message, /2011 bytes is over the 1900-byte limit/);
  // Through validate's loader, with the cap from the environment.
  process.env.EXECRETRIEVAL_MAX_RECORD_BYTES = '1900';
  try {
    const v = loadTasks(f);
    assert.deepEqual(v.errors.map((e) => e.line), [2, 3]);
    assert.match(v.errors[1].message, /INVALID_UTF8/);
    assert.equal(v.items.length, 2);
  } finally {
    delete process.env.EXECRETRIEVAL_MAX_RECORD_BYTES;
  }
});

test('import: an invalid UTF-8 record is rejected (exit 1), the rest written, --json lists the rejection', async () => {
  const f = join(tmp, 'bad-utf8.jsonl');
  writeFileSync(f, Buffer.concat([firstLine, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a])]));
  const r = route(['import', 'tasks', f, '--out', join(tmp, 'imported.jsonl'), '--json']);
  const out: string[] = [];
  const saved = { code: process.exitCode, log: console.log, write: process.stderr.write };
  process.exitCode = undefined;
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    if (r.kind === 'load') await runCommand(r.row, r.args);
    assert.equal(process.exitCode, 1);
  } finally {
    console.log = saved.log;
    process.stderr.write = saved.write;
    process.exitCode = saved.code;
  }
  const summary = JSON.parse(out.join('\n')) as { tasks: number; rejections: { line: number; code: string }[] };
  assert.equal(summary.tasks, 1);
  assert.deepEqual(summary.rejections.map((x) => [x.line, x.code]), [[2, 'INVALID_UTF8']]);
  assert.equal(readFileSync(join(tmp, 'imported.jsonl'), 'utf8').trim().split('\n').length, 1);
});

test('validate, import and build stop on an empty input with exit 1 and one line, before any work', async () => {
  const empty = join(tmp, 'empty.jsonl');
  writeFileSync(empty, '');
  const cases = [
    ['validate', empty],
    ['import', 'tasks', empty, '--out', join(tmp, 'out.jsonl')],
    ['build', '--source', empty, '--out', join(tmp, 'r', 'benchmark')],
  ];
  for (const args of cases) {
    const r = route(args);
    assert.equal(r.kind, 'load');
    const err: string[] = [];
    const saved = { code: process.exitCode, write: process.stderr.write };
    process.exitCode = undefined;
    process.stderr.write = ((s: string) => err.push(String(s)) > 0) as typeof process.stderr.write;
    try {
      if (r.kind === 'load') await runCommand(r.row, r.args);
      assert.equal(process.exitCode, 1, `${args[0]}: ${err.join('')}`);
      assert.match(err.join(''), /^error: .*empty\.jsonl: no records/m, args[0]);
    } finally {
      process.stderr.write = saved.write;
      process.exitCode = saved.code;
    }
  }
  rmSync(tmp, { recursive: true, force: true });
});
