/**
 * Shared plumbing of the benchmarks: the machine line, medians, markdown tables and the JSON
 * result file under `bench/results/` (git-ignored, created on demand).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";

/** What the numbers were measured on. */
export interface Machine {
  cpu: string;
  cores: number;
  node: string;
}

/** The CPU model, core count and Node version of this process. */
export function machine(): Machine {
  const list = cpus();
  return { cpu: list[0]?.model.trim() ?? "unknown", cores: list.length, node: process.version };
}

/** One line naming the machine, for the top of every report. */
export function machineLine(m: Machine = machine()): string {
  return `machine: ${m.cpu}, ${m.cores} cores, Node ${m.node}`;
}

const loadAtStart = loadavg()[0] ?? 0;

/**
 * The 1-minute load average when the benchmark started and now: a load above the core count
 * means other processes shared the CPU, which lowers absolute rates (ratios suffer less).
 */
export function loadLine(): string {
  return `load average (1 min): ${loadAtStart.toFixed(1)} at start, ${(loadavg()[0] ?? 0).toFixed(1)} at end`;
}

/** Median of a non-empty sample (mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid] ?? Number.NaN;
  return ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

/** A markdown table from a header row and body rows. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Formats a number with thousands separators and `digits` decimals. */
export function fmt(x: number, digits = 0): string {
  return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Writes `bench/results/<name>.json` (with the machine and a timestamp) and returns its path. */
export function writeResult(name: string, data: Record<string, unknown>): string {
  const dir = join(import.meta.dirname, "..", "results");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  const load = { start: loadAtStart, end: loadavg()[0] ?? 0 };
  const doc = { benchmark: name, date: new Date().toISOString(), machine: machine(), load, ...data };
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
  return path;
}

/** Milliseconds taken by `fn`. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}
