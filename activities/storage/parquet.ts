import { readFileSync } from 'node:fs';
import { tableFromIPC, tableToIPC, type Table } from 'apache-arrow';
import * as pq from 'parquet-wasm/node';
import { writeFileAtomic } from './atomic.ts';

/**
 * Parquet through parquet-wasm (Rust's arrow-rs writer compiled to wasm): the Arrow table is handed over as
 * IPC bytes, so every Arrow type we use (FixedSizeList vectors included) survives the trip and DuckDB,
 * pandas and polars read the file as written.
 */
export function writeParquet(path: string, table: Table, metadata: Record<string, string> = {}): void {
  const wasmTable = pq.Table.fromIPCStream(tableToIPC(table, 'stream'));
  let props = new pq.WriterPropertiesBuilder().setCompression(pq.Compression.ZSTD);
  if (Object.keys(metadata).length) {
    props = props.setKeyValueMetadata(new Map(Object.entries(metadata)));
  }
  const bytes = pq.writeParquet(wasmTable, props.build());
  writeFileAtomic(path, bytes);
}

export function readParquet(path: string): Table {
  const wasmTable = pq.readParquet(readFileSync(path));
  return tableFromIPC(wasmTable.intoIPCStream());
}
