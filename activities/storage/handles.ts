/**
 * One open handle per file per process: every activity of a worker that writes a run's ledger or batch store shares
 * it (SQLite handles are cheap to keep and costly to open: schema, pragmas, migrations).
 */
export function handlesPerPath<T extends { close(): void }>(open: (path: string) => T): { at: (path: string) => T; closeAll: () => void } {
  const handles = new Map<string, T>();
  return {
    at(path) {
      let h = handles.get(path);
      if (!h) {
        h = open(path);
        handles.set(path, h);
      }
      return h;
    },
    closeAll() {
      for (const h of handles.values()) h.close();
      handles.clear();
    },
  };
}
