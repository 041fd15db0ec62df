/**
 * Measures the local control plane: warm start time to every node Ready, and the memory (RSS)
 * of its processes once settled. Usage: `npx tsx bench/controlplane.ts [runs]` (default 5).
 * Cold build time is measured separately with empty Go caches; see the README.
 */
import { readFileSync } from "node:fs";
import { startCluster } from "../src/cluster/index.ts";

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const runs = Number(process.argv[2] ?? 5);
const starts: number[] = [];
const memory: Record<string, number[]> = {};
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const cluster = await startCluster({ nodes: 3, report: () => {} });
  starts.push((performance.now() - t0) / 1000);
  await new Promise((r) => setTimeout(r, 15_000));
  for (const [name, pid] of Object.entries(cluster.pids())) {
    memory[name] = [...(memory[name] ?? []), rssMiB(pid as number)];
  }
  await cluster.stop();
}
const rows = Object.entries(memory).map(([name, xs]) => `| ${name} | ${median(xs).toFixed(0)} |`);
const total = Object.values(memory).reduce((sum, xs) => sum + median(xs), 0);
console.log(
  `warm start to 3 nodes Ready, ${runs} runs: median ${median(starts).toFixed(1)} s (min ${Math.min(...starts).toFixed(1)}, max ${Math.max(...starts).toFixed(1)})`,
);
console.log("| process | RSS MiB (median, 15 s after ready) |\n| --- | --- |");
console.log([...rows, `| total | ${total.toFixed(0)} |`].join("\n"));
