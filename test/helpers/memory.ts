/**
 * This process's peak resident set (Linux's VmHWM), and its reset (writing 5 to /proc/self/clear_refs sets the
 * high-water mark to the current resident set): the peak memory of one step, measured by the kernel, not sampled.
 * Used by npm run bench:backup and the archive's streaming test.
 */
import fs from 'node:fs';

export const peakResidentBytes = () =>
  Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

export const resetPeakResident = () => fs.writeFileSync('/proc/self/clear_refs', '5');

/** The peak memory of `f` above the resident set when it starts. */
export async function peakGrowth(f: () => Promise<unknown>): Promise<number> {
  resetPeakResident();
  const base = peakResidentBytes();
  await f();
  return peakResidentBytes() - base;
}
