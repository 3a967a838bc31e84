import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GoldCase } from '../../schemas/gold.ts';
import { runEvaluation } from '../../activities/repo/evalRun.ts';
import { DEFAULT_PIPELINE } from '../../activities/repo/pipeline.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { indexAt } from './helpers.ts';

/**
 * Stale gold from the syntax tree, per language: at the pinned revision a symbol is defined where the tree
 * defines it. `Keep` moved down its file (lines only: not stale); `Moved` moved to another file that the old
 * one imports or calls (stale in the old file, defined in the new); `OldName` was renamed to `NewName` and
 * `Gone` deleted, both still mentioned in the old file's comments or calls (stale).
 */
interface Row {
  a: string;
  b: string;
  /** The file before: Keep near the top, and Moved, OldName, Gone defined in it. */
  before: string;
  /** The file after: Keep further down, Moved imported or called, NewName defined, OldName and Gone only mentioned. */
  after: string;
  other: string;
  keep: string;
  /** The moved, renamed-away and deleted names (default by the language's naming: `moved`, `old_name`, `gone`). */
  names?: [string, string, string];
}

const ROWS: Record<string, Row> = {
  go: {
    a: 'store/store.go',
    b: 'store/moved.go',
    keep: 'Store.Keep',
    before: `package store\n\ntype Store struct{}\n\nfunc (s *Store) Keep() int { return 1 }\n\nfunc Moved() int { return 2 }\n\nfunc OldName() int { return 3 }\n\nfunc Gone() int { return 4 }\n`,
    after: `package store\n\n// Store keeps things. OldName became NewName; Gone was removed.\ntype Store struct{}\n\nvar pad = 1\n\nfunc (s *Store) Keep() int { return Moved() + NewName() }\n\nfunc NewName() int { return 3 }\n`,
    other: `package store\n\nfunc Moved() int { return 2 }\n`,
  },
  rust: {
    a: 'src/store.rs',
    b: 'src/moved.rs',
    keep: 'Store.keep',
    before: `pub struct Store;\n\nimpl Store {\n    pub fn keep(&self) -> i32 { 1 }\n}\n\npub fn moved() -> i32 { 2 }\npub fn old_name() -> i32 { 3 }\npub fn gone() -> i32 { 4 }\n`,
    after: `use crate::moved::moved;\n\n/// old_name became new_name; gone was removed.\npub struct Store;\n\nconst PAD: i32 = 1;\n\nimpl Store {\n    pub fn keep(&self) -> i32 { moved() + new_name() }\n}\n\npub fn new_name() -> i32 { 3 }\n`,
    other: `pub fn moved() -> i32 { 2 }\n`,
  },
  javascript: {
    a: 'lib/store.js',
    b: 'lib/moved.js',
    keep: 'keep',
    before: `function keep() { return 1; }\nfunction moved() { return 2; }\nfunction oldName() { return 3; }\nfunction gone() { return 4; }\nmodule.exports = { keep, moved, oldName, gone };\n`,
    after: `'use strict';\nconst moved = require('./moved');\nconst { gone } = require('./legacy');\n\n// oldName became newName.\nfunction keep() { return moved() + newName() + gone(); }\nfunction newName() { return 3; }\nmodule.exports = { keep, newName };\n`,
    other: `module.exports = function moved() { return 2; };\n`,
  },
  python: {
    a: 'pkg/store.py',
    b: 'pkg/moved.py',
    keep: 'Store.keep',
    before: `class Store:\n    def keep(self):\n        return 1\n\ndef moved():\n    return 2\n\ndef old_name():\n    return 3\n\ndef gone():\n    return 4\n`,
    after: `from pkg.moved import moved\nfrom pkg.legacy import gone\n\n# old_name became new_name\nPAD = 1\n\nclass Store:\n    def keep(self):\n        return moved() + new_name() + gone()\n\ndef new_name():\n    return 3\n`,
    other: `def moved():\n    return 2\n`,
  },
  java: {
    a: 'src/main/java/a/Store.java',
    b: 'src/main/java/a/Moved.java',
    keep: 'Store.keep',
    before: `package a;\n\npublic class Store {\n    int keep() { return 1; }\n    int moved() { return 2; }\n    int oldName() { return 3; }\n    int gone() { return 4; }\n}\n`,
    after: `package a;\n\nimport static a.Moved.moved;\n\n/** oldName became newName; gone was removed. */\npublic class Store {\n    int pad = 1;\n    int keep() { return moved() + newName(); }\n    int newName() { return 3; }\n}\n`,
    other: `package a;\n\npublic class Moved {\n    static int moved() { return 2; }\n}\n`,
  },
  ruby: {
    a: 'lib/store.rb',
    b: 'lib/moved.rb',
    keep: 'Store.keep',
    before: `class Store\n  def keep\n    1\n  end\n\n  def moved\n    2\n  end\n\n  def old_name\n    3\n  end\n\n  def gone\n    4\n  end\nend\n`,
    after: `require_relative 'moved'\n\n# old_name became new_name; gone was removed.\nclass Store\n  PAD = 1\n\n  def keep\n    Moved.moved + new_name\n  end\n\n  def new_name\n    3\n  end\nend\n`,
    other: `module Moved\n  def self.moved\n    2\n  end\nend\n`,
  },
  c: {
    a: 'src/store.c',
    b: 'src/moved.c',
    keep: 'keep',
    before: `int keep(void) { return 1; }\nint moved(void) { return 2; }\nint old_name(void) { return 3; }\nint gone(void) { return 4; }\n`,
    after: `#include "moved.h"\n\n/* old_name became new_name; gone was removed. */\nstatic int pad = 1;\n\nint new_name(void);\n\nint keep(void) { return moved() + new_name(); }\nint new_name(void) { return 3; }\n`,
    other: `int moved(void) { return 2; }\n`,
  },
  csharp: {
    a: 'src/Store.cs',
    b: 'src/Moved.cs',
    keep: 'Store.Keep',
    before: `namespace A\n{\n    public class Store\n    {\n        public int Keep() { return 1; }\n        public int Moved() { return 2; }\n        public int OldName() { return 3; }\n        public int Gone() { return 4; }\n    }\n}\n`,
    after: `using static A.Mover;\n\nnamespace A\n{\n    // OldName became NewName; Gone was removed.\n    public class Store\n    {\n        private int pad = 1;\n        public int Keep() { return Moved() + NewName(); }\n        public int NewName() { return 3; }\n    }\n}\n`,
    other: `namespace A\n{\n    public static class Mover\n    {\n        public static int Moved() { return 2; }\n    }\n}\n`,
  },
  cpp: {
    a: 'src/store.cpp',
    b: 'src/moved.cpp',
    keep: 'Store.keep',
    before: `struct Store {\n    int keep() { return 1; }\n};\nint moved() { return 2; }\nint old_name() { return 3; }\nint gone() { return 4; }\n`,
    after: `#include "moved.hpp"\n\n// old_name became new_name; gone was removed.\nstatic int pad = 1;\n\nstruct Store {\n    int keep() { return moved() + new_name(); }\n    static int new_name() { return 3; }\n};\n`,
    other: `int moved() { return 2; }\n`,
  },
  php: {
    a: 'src/Store.php',
    b: 'src/Moved.php',
    keep: 'Store.keep',
    names: ['moved', 'oldName', 'gone'],
    before: `<?php\nnamespace App;\n\nclass Store\n{\n    public function keep() { return 1; }\n}\nfunction moved() { return 2; }\nfunction oldName() { return 3; }\nfunction gone() { return 4; }\n`,
    after: `<?php\nnamespace App;\n\nuse function App\\Moved\\moved;\n\n// oldName became newName; gone was removed.\nclass Store\n{\n    private $pad = 1;\n    public function keep() { return moved() + $this->newName(); }\n    public function newName() { return 3; }\n}\n`,
    other: `<?php\nnamespace App\\Moved;\n\nfunction moved() { return 2; }\n`,
  },
  swift: {
    a: 'Sources/Store.swift',
    b: 'Sources/Moved.swift',
    keep: 'Store.keep',
    names: ['moved', 'oldName', 'gone'],
    before: `struct Store {\n    func keep() -> Int { return 1 }\n}\nfunc moved() -> Int { return 2 }\nfunc oldName() -> Int { return 3 }\nfunc gone() -> Int { return 4 }\n`,
    after: `import Moved\n\n// oldName became newName; gone was removed.\nlet pad = 1\n\nstruct Store {\n    func keep() -> Int { return moved() + newName() }\n    func newName() -> Int { return 3 }\n}\n`,
    other: `func moved() -> Int { return 2 }\n`,
  },
  dart: {
    a: 'lib/store.dart',
    b: 'lib/moved.dart',
    keep: 'Store.keep',
    names: ['moved', 'oldName', 'gone'],
    before: `class Store {\n  int keep() => 1;\n}\nint moved() => 2;\nint oldName() => 3;\nint gone() => 4;\n`,
    after: `import 'moved.dart';\n\n// oldName became newName; gone was removed.\nconst pad = 1;\n\nclass Store {\n  int keep() => moved() + newName();\n  int newName() => 3;\n}\n`,
    other: `int moved() => 2;\n`,
  },
};

const repo = new FixtureRepo();
after(() => repo.cleanup());

test('stale gold per language: moved, renamed and deleted symbols are stale; a symbol whose lines moved is not', async () => {
  const files = (pick: (r: Row) => Record<string, string>) => Object.assign({}, ...Object.values(ROWS).map(pick));
  repo.commit('before', files((r) => ({ [r.a]: r.before })));
  const rev = repo.commit('after', files((r) => ({ [r.a]: r.after, [r.b]: r.other })));
  const index = await indexAt(repo.dir, rev);
  const cases: GoldCase[] = Object.entries(ROWS).flatMap(([lang, r]) => {
    const names = r.names ?? (lang === 'go' || lang === 'csharp' ? ['Moved', 'OldName', 'Gone'] : lang === 'javascript' || lang === 'java' ? ['moved', 'oldName', 'gone'] : ['moved', 'old_name', 'gone']);
    const target = (id: string, file: string, symbol: string): GoldCase => ({
      id: `${lang}-${id}`,
      query: symbol,
      repositoryRevision: rev,
      evidence: [{ id: 'g', anyOf: [{ file, symbol, roles: ['definition', 'declaration'] }] }],
      forbiddenPathPrefixes: [],
      cutoff: 5,
      queryClass: 'exact_identifier',
      rationale: 'stale-gold fixture',
    });
    return [
      target('lines-moved', r.a, r.keep),
      target('moved-new-home', r.b, names[0]),
      target('moved', r.a, names[0]),
      target('renamed', r.a, names[1]),
      target('deleted', r.a, names[2]),
    ];
  });
  const out = await runEvaluation({ cases, index, repoDir: repo.dir, mode: 'live', configs: [DEFAULT_PIPELINE] });
  const stale = new Set(out.staleTargets.map((t) => t.case_id));
  for (const lang of Object.keys(ROWS)) {
    assert.deepEqual(
      ['lines-moved', 'moved-new-home', 'moved', 'renamed', 'deleted'].filter((k) => stale.has(`${lang}-${k}`)),
      ['moved', 'renamed', 'deleted'],
      `${lang}: ${out.staleTargets.filter((t) => t.case_id.startsWith(lang)).map((t) => t.message).join(' | ')}`,
    );
  }
  const goMoved = out.staleTargets.find((t) => t.case_id === 'go-moved')!;
  assert.match(goMoved.message, /Moved is not defined in store\/store\.go at /);
});
