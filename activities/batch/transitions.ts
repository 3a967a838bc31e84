/**
 * A provider batch's status transitions after it is created, for both batch stores: generation's `batches`
 * (keyed by run, phase, round) and embedding's `embed_provider_batches` (keyed by run, configuration, round).
 * Each only moves a row forward (`preparing` → `submitted` → `ended`), so a repeated call changes nothing.
 */
import type Database from 'better-sqlite3';

export interface BatchEnd {
  output_file_id: string | null;
  error_file_id: string | null;
  ended_at: string;
}

export function batchTransitions(db: Database.Database, table: 'batches' | 'embed_provider_batches', key: 'phase' | 'config_id') {
  const where = `WHERE run_id=? AND ${key}=? AND round=?`;
  return {
    submitted(run_id: string, k: string, round: number, batch_id: string, input_file_id: string | null, provider_status: string): void {
      db.prepare(`UPDATE ${table} SET status='submitted', batch_id=?, input_file_id=?, provider_status=?, submitted_at=? ${where} AND status='preparing'`)
        .run(batch_id, input_file_id, provider_status, new Date().toISOString(), run_id, k, round);
    },
    polled(run_id: string, k: string, round: number, provider_status: string, ended: BatchEnd | null): void {
      if (ended) {
        db.prepare(`UPDATE ${table} SET status='ended', provider_status=?, output_file_id=?, error_file_id=?, ended_at=? ${where} AND status='submitted'`)
          .run(provider_status, ended.output_file_id, ended.error_file_id, ended.ended_at, run_id, k, round);
      } else {
        db.prepare(`UPDATE ${table} SET provider_status=? ${where} AND status='submitted'`).run(provider_status, run_id, k, round);
      }
    },
  };
}
