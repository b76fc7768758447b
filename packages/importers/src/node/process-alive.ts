import { readFileSync } from 'node:fs';
import process from 'node:process';

/**
 * Whether a process of that pid is still running: not gone, and not a zombie (one whose parent
 * died is reaped by PID 1, which in a container may never do it). Linux's /proc says which;
 * elsewhere a process that answers signal 0 is taken as running.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: "PID (name) STATE …"
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}
