/**
 * The key-value metadata of a Parquet file in key order. parquet-wasm hands the writer its metadata as a Rust
 * HashMap, whose iteration order is seeded at random per map: the same rows and the same metadata gave a different
 * file on every few writes (the pairs in another order), so two runs could not be compared by their bytes.
 *
 * The footer is FileMetaData in Thrift's compact protocol, then its length (u32, little-endian) and "PAR1". Field 5
 * is `list<KeyValue>`: its pairs are written again in key order and the footer's length updated. Nothing before the
 * footer moves (the column chunks' offsets point there). Written here (about 100 lines) because no Parquet library
 * on npm rewrites a footer's metadata without rewriting the file.
 */

const T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I16 = 4, T_I32 = 5, T_I64 = 6, T_DOUBLE = 7, T_BINARY = 8, T_LIST = 9, T_SET = 10, T_MAP = 11, T_STRUCT = 12;
const KEY_VALUE_METADATA = 5;

class Reader {
  constructor(readonly b: Uint8Array, public at: number) {}
  byte(): number {
    if (this.at >= this.b.length) throw new RangeError('parquet footer: truncated');
    return this.b[this.at++];
  }
  varint(): number {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const x = this.byte();
      v += (x & 0x7f) * 2 ** shift;
      if (!(x & 0x80)) return v;
    }
  }
  binary(): Uint8Array {
    const n = this.varint();
    const s = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return s;
  }
  /** Skips one value of compact type `t`; a boolean is one byte inside a list, set or map and none in a field header. */
  skip(t: number, inCollection = false): void {
    if (t === T_TRUE || t === T_FALSE) this.at += inCollection ? 1 : 0;
    else if (t === T_BYTE) this.at += 1;
    else if (t === T_I16 || t === T_I32 || t === T_I64) this.varint();
    else if (t === T_DOUBLE) this.at += 8;
    else if (t === T_BINARY) this.binary();
    else if (t === T_LIST || t === T_SET) {
      const { size, elem } = this.listHeader();
      for (let i = 0; i < size; i++) this.skip(elem, true);
    } else if (t === T_MAP) {
      const size = this.varint();
      const kv = size ? this.byte() : 0;
      for (let i = 0; i < size; i++) {
        this.skip(kv >> 4, true);
        this.skip(kv & 0x0f, true);
      }
    } else if (t === T_STRUCT) this.fields(() => false);
    else throw new RangeError(`parquet footer: unknown compact type ${t}`);
  }
  listHeader(): { size: number; elem: number } {
    const h = this.byte();
    return { size: (h >> 4) === 0x0f ? this.varint() : h >> 4, elem: h & 0x0f };
  }
  /** Walks a struct's fields; `visit` returns true when it has read the field's value itself. */
  fields(visit: (id: number, type: number) => boolean): void {
    let id = 0;
    for (;;) {
      const h = this.byte();
      if (h === 0) return;
      const type = h & 0x0f;
      if (h >> 4) id += h >> 4;
      else {
        const z = this.varint();
        id = (z >>> 1) ^ -(z & 1);
      }
      if (!visit(id, type)) this.skip(type);
    }
  }
}

const varint = (n: number): number[] => {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  out.push(n);
  return out;
};
/** A KeyValue struct: field 1 (binary) the key, field 2 (binary) the value, then the stop byte. */
const keyValueBytes = (key: Uint8Array, value: Uint8Array): Buffer =>
  Buffer.concat([Buffer.from([0x18, ...varint(key.length)]), key, Buffer.from([0x18, ...varint(value.length)]), value, Buffer.from([0])]);

/**
 * `file` with its footer's key-value pairs in key order, each value through `value` (the pairs written anew,
 * the footer's length updated; a new buffer, the input left as it is).
 */
export function rewriteKeyValueMetadata(file: Uint8Array, value: (key: string, value: Uint8Array) => Uint8Array = (_, v) => v): Uint8Array {
  const n = file.length;
  const magic = (at: number) => String.fromCharCode(...file.subarray(at, at + 4));
  if (n < 12 || magic(0) !== 'PAR1' || magic(n - 4) !== 'PAR1') throw new RangeError('parquet footer: not a Parquet file');
  const len = Buffer.from(file.buffer, file.byteOffset, n).readUInt32LE(n - 8);
  const footerStart = n - 8 - len;
  const r = new Reader(file.subarray(0, n - 8), footerStart);
  // Where the pairs lie in the footer, and their new bytes; from stays -1 when the file has no pairs.
  let from = -1;
  let to = -1;
  let pairs: Buffer[] = [];
  r.fields((id, type) => {
    if (id !== KEY_VALUE_METADATA || type !== T_LIST) return false;
    const { size, elem } = r.listHeader();
    if (elem !== T_STRUCT) throw new RangeError('parquet footer: key_value_metadata is not a list of structs');
    from = r.at;
    const read: { key: Buffer; value: Uint8Array }[] = [];
    for (let i = 0; i < size; i++) {
      let key = Buffer.alloc(0);
      let val: Uint8Array = new Uint8Array(0);
      r.fields((fid, ftype) => {
        if (ftype !== T_BINARY || (fid !== 1 && fid !== 2)) return false;
        if (fid === 1) key = Buffer.from(r.binary());
        else val = r.binary();
        return true;
      });
      read.push({ key, value: val });
    }
    to = r.at;
    read.sort((a, b) => Buffer.compare(a.key, b.key));
    pairs = read.map((p) => keyValueBytes(p.key, value(p.key.toString('utf8'), p.value)));
    return true;
  });
  if (from < 0) return Uint8Array.from(file);
  const footer = Buffer.concat([file.subarray(footerStart, from), ...pairs, file.subarray(to, n - 8)]);
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(footer.length, 0);
  tail.write('PAR1', 4, 'latin1');
  return Buffer.concat([file.subarray(0, footerStart), footer, tail]);
}
