/** Helpers for the sandbox attack tests: finding this test process's own sandbox processes in /proc. */
import { readdirSync, readFileSync } from 'node:fs';

const UID_BASE = 0x10000000; // infra/runner/sandbox_zygote.py: one uid per fork server, UID_BASE + judge pid

function status(pid: string): { ppid: number; uid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const ppid = Number(/^PPid:\s+(\d+)/m.exec(text)?.[1]);
    const uid = Number(/^Uid:\s+(\d+)/m.exec(text)?.[1]);
    return { ppid, uid };
  } catch {
    return null; // gone meanwhile
  }
}

const pids = () => readdirSync('/proc').filter((n) => /^\d+$/.test(n));

/** Pids of the fork servers (judges) this test process started. */
export function myJudges(): number[] {
  return pids().filter((p) => {
    if (status(p)?.ppid !== process.pid) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('sandbox.py\0serve');
    } catch {
      return false;
    }
  }).map(Number);
}

/** Pids of the sandbox children (candidate processes) running under this test process's fork servers. */
export function myChildren(): number[] {
  const uids = new Set(myJudges().map((j) => UID_BASE + j));
  return pids().filter((p) => uids.has(status(p)?.uid ?? -1)).map(Number);
}

/** Every process (alive or zombie) of a sandbox uid. */
export function processesOfUid(uid: number): number[] {
  return pids().filter((p) => status(p)?.uid === uid).map(Number);
}

export const sandboxUid = (judgePid: number) => UID_BASE + judgePid;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
