import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkFile } from '../../activities/repo/indexBuild.ts';
import { LANGUAGE_TABLE, languageOf } from '../../activities/repo/language.ts';
import { fileCoverage } from '../../core/repo/coverage.ts';

/**
 * Structural chunking for every table-driven language (activities/repo/language.ts): each fixture under
 * fixtures/languages/<language>/ is small real code written for this test, chunked as if under `src/`.
 * Every chunk is listed as `start-end role symbols`: definitions named (methods with their receiver or
 * class), doc comments and attributes with what follows, tests by each language's convention, imports apart.
 */
const REV = 'a'.repeat(40);
const ROOT = join(import.meta.dirname, 'fixtures', 'languages');

const EXPECTED: Record<string, string[]> = {
  'c/ring.c': [
    '1-2 import ',
    '4-4 definition ring_count',
    '6-14 definition ring_init',
    '16-16 definition ring_len_ptr',
  ],
  'c/ring.h': [
    '1-1 call_site ',
    '2-2 definition RING_H',
    '4-4 import ',
    '6-10 definition ring',
    '12-12 definition ring_t',
    '14-14 definition RING_MIN',
    '16-17 declaration ring_init',
    '19-19 call_site ',
  ],
  'cpp/shape.cpp': [
    '1-2 import ',
    '4-4 definition geo',
    '6-13 definition Circle,geo.Circle,Circle.Circle,Circle.area,Circle.r_',
    '15-15 definition area,Circle.area',
    '17-18 definition twice,geo.twice',
    '20-20 call_site ',
  ],
  'csharp/Greeter.cs': [
    '1-1 import ',
    '3-4 definition Greeting',
    '5-15 definition Greeter,Greeting.Greeter,Greeter.Prefix,Greeter.Greet',
    '17-18 declaration IClock,Greeting.IClock,IClock.Now',
  ],
  'csharp/GreeterTests.cs': [
    '1-1 test ',
    '3-10 test GreeterTests,GreeterTests.GreetUsesPrefix',
  ],
  'dart/cart.dart': [
    '1-1 import ',
    '3-13 definition Cart,Cart.add,Cart.total',
    '15-18 definition euros',
  ],
  'dart/cart_test.dart': [
    '1-2 test ',
    '4-9 test main',
  ],
  'go/stack.go': [
    '1-2 import ',
    '4-7 import ',
    '9-10 definition ErrEmpty',
    '12-16 definition MaxDepth,minDepth',
    '18-21 definition Stack',
    '23-26 definition Sizer',
    '28-35 definition Push,Stack.Push',
    '37-46 definition Pop,Stack.Pop',
    '48-49 definition New',
    '51-55 definition Default,spare',
  ],
  'go/stack_test.go': [
    '1-3 test ',
    '5-11 test TestPushPop',
  ],
  'java/Cache.java': [
    '1-4 import ',
    '6-25 definition Cache,Cache.LIMIT,Cache.entries,Cache.Cache,Cache.put,Cache.get',
    '27-29 declaration Evictor,Evictor.evict',
    '31-31 definition Policy',
  ],
  'java/CacheTest.java': [
    '1-4 test ',
    '6-12 test CacheTest,CacheTest.putStoresAValue',
  ],
  'php/Money.php': [
    '1-5 import ',
    '7-26 definition Money,Money.CURRENCY,Money.cents,Money.__construct,Money.add',
    '28-31 definition format_money',
  ],
  'ruby/slug.rb': [
    '1-1 import ',
    '3-3 definition Text',
    '4-21 definition Slugger,Text.Slugger,Slugger.SEPARATOR,Slugger.initialize,Slugger.slug,Slugger.default',
    '22-22 definition Text',
  ],
  'ruby/slug_spec.rb': [
    '1-1 test ',
    '3-7 test ',
  ],
  'rust/lib.rs': [
    '1-3 import ',
    '5-9 definition QueueError',
    '11-12 definition MAX_CAPACITY',
    '14-18 definition Bounded',
    '20-24 declaration Drain,Drain.drain_all',
    '26-40 definition Bounded.new,Bounded.push',
    '42-48 definition Bounded.drain_all',
    '50-56 definition QueueError.fmt',
    '58-62 definition bounded',
    '64-65 test tests',
    '66-66 import ',
    '68-74 test push_past_capacity_fails,tests.push_past_capacity_fails',
  ],
  'swift/Counter.swift': [
    '1-1 import ',
    '3-11 definition Counter,Counter.count,Counter.increment',
    '13-15 declaration Resettable,Resettable.reset',
    '17-19 definition Counter.reset',
    '21-21 definition makeCounter',
  ],
};

for (const [file, want] of Object.entries(EXPECTED)) {
  test(`${file}: chunks, roles and symbols`, async () => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const path = `src/${file.slice(file.indexOf('/') + 1)}`;
    const chunks = await chunkFile(path, text, REV, (m) => assert.fail(m));
    assert.equal(chunks[0].language, file.slice(0, file.indexOf('/')));
    assert.deepEqual(
      chunks.map((c) => `${c.start_line}-${c.end_line} ${c.role} ${c.symbols.join(',')}`),
      want,
    );
    assert.deepEqual(fileCoverage(text, chunks).uncovered, [], 'every non-blank line is in a chunk');
    for (const c of chunks) assert.equal(Buffer.from(text).subarray(c.start_byte, c.end_byte).toString(), c.text);
  });
}

test('every language with a grammar and a syntax table has a fixture', () => {
  const covered = new Set(Object.keys(EXPECTED).map((f) => languageOf(`x/${f}`)));
  for (const row of LANGUAGE_TABLE) if (row.table) assert.ok(covered.has(row.language), `no fixture for ${row.language}`);
  assert.deepEqual(readdirSync(ROOT).sort(), [...new Set(Object.keys(EXPECTED).map((f) => f.slice(0, f.indexOf('/'))))].sort());
});

test('the symbol retriever finds a qualified name as each language writes it (`Type::method`, `Type.Method`)', async () => {
  const { symbolRetriever } = await import('../../activities/repo/retrievers.ts');
  const rust = await chunkFile('src/lib.rs', readFileSync(join(ROOT, 'rust', 'lib.rs'), 'utf8'), REV);
  const hits = await symbolRetriever(rust).search('Bounded::push', { topK: 3 });
  assert.deepEqual(hits.map((h) => rust.find((c) => c.chunk_id === h.id)?.symbols[0]), ['Bounded', 'Bounded.new'], 'the struct (Bounded) and the impl holding Bounded.push');
  assert.equal(hits[0].score, 1);
});
