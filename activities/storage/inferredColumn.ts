import { Bool, DataType, Field, Float64, Int64, List, Struct, Utf8, vectorFromArray, type Vector } from 'apache-arrow';

/**
 * A typed Arrow column for free-form JSON values (a benchmark record's `metadata`), its type inferred from every
 * row, so DuckDB reads `metadata.span.line` and pandas gets dicts and lists instead of a JSON string to parse:
 * objects become structs (one field per key seen in any row, first-seen order; absent keys null), arrays lists,
 * whole numbers int64, other numbers float64, booleans bool, strings utf8. A field whose rows disagree (a string
 * in one, a number in another) is utf8 holding each value's JSON text. The same rows give the same type, so a
 * rebuild writes the same bytes. Parquet has no struct without fields: an object column with no key in any row
 * is `null` (the caller decides what to write instead).
 */
export function inferType(values: readonly unknown[]): DataType | null {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (!present.length) return new Utf8();
  if (present.every((v) => typeof v === 'boolean')) return new Bool();
  if (present.every((v) => typeof v === 'number' && Number.isSafeInteger(v))) return new Int64();
  if (present.every((v) => typeof v === 'number')) return new Float64();
  if (present.every((v) => typeof v === 'string')) return new Utf8();
  if (present.every((v) => Array.isArray(v))) {
    const item = inferType((present as unknown[][]).flat());
    return item ? new List(new Field('item', item, true)) : new Utf8();
  }
  if (present.every(isPlainObject)) {
    const keys: string[] = [];
    for (const o of present as Record<string, unknown>[]) for (const k of Object.keys(o)) if (!keys.includes(k)) keys.push(k);
    if (!keys.length) return null;
    const fields = keys.map((k) => {
      const t = inferType((present as Record<string, unknown>[]).map((o) => o[k]));
      return new Field(k, t ?? new Utf8(), true);
    });
    return new Struct(fields);
  }
  return new Utf8();
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `v` as the Arrow builder wants it for `type` (int64 as BigInt, a mixed utf8 field as JSON text). */
function convert(v: unknown, type: DataType): unknown {
  if (v === null || v === undefined) return null;
  if (DataType.isInt(type)) return BigInt(v as number);
  if (DataType.isUtf8(type)) return typeof v === 'string' && !mixedUtf8.has(type) ? v : JSON.stringify(v);
  if (DataType.isList(type)) return (v as unknown[]).map((x) => convert(x, type.children[0].type));
  if (DataType.isStruct(type)) {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(type.children.map((f) => [f.name, convert(o[f.name], f.type)]));
  }
  return v;
}
// utf8 types that stand for a field whose rows disagree: every value is JSON text there, strings included, so
// a reader parses one format (a string "1" and a number 1 stay apart).
const mixedUtf8 = new WeakSet<DataType>();

/** The typed column for `values`, or null when they are objects without a single key (see inferType). */
export function inferredColumn(values: readonly unknown[]): Vector | null {
  const type = markMixed(inferType(values), values);
  if (!type) return null;
  return vectorFromArray(values.map((v) => convert(v, type)), type);
}

/** Marks each utf8 type inferred for disagreeing values, walking the same structure inferType built. */
function markMixed(type: DataType | null, values: readonly unknown[]): DataType | null {
  if (!type) return null;
  const present = values.filter((v) => v !== null && v !== undefined);
  if (DataType.isUtf8(type)) {
    if (!present.every((v) => typeof v === 'string')) mixedUtf8.add(type);
  } else if (DataType.isList(type)) {
    markMixed(type.children[0].type, (present as unknown[][]).flat());
  } else if (DataType.isStruct(type)) {
    for (const f of type.children) markMixed(f.type, (present as Record<string, unknown>[]).map((o) => o[f.name]));
  }
  return type;
}
