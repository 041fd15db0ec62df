/**
 * What a member cluster of `startMemberClusters` costs (`src/cluster/members.ts`): a kube-apiserver
 * on a shared etcd, no controller manager, scheduler or kwok. Starts N members at once and reports
 *
 * - the wall time until every member answers `/readyz` (etcd's start included);
 * - each member apiserver's CPU seconds (`/proc/<pid>/stat` user + system) at ready, and over the
 *   next `IDLE_S` seconds (default 30) with no client.
 *
 * Usage: `npx tsx --conditions=kubeloop-source bench/member-clusters.ts [N]` (default 3).
 */
import { readFileSync } from "node:fs";
import { systemClock } from "../src/clock/index.ts";
import { startMemberClusters } from "../src/cluster/index.ts";

/** User + system CPU seconds of process `pid` (clock ticks of 100 Hz). */
function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const count = Number(process.argv[2] ?? 3);
const idleS = Number(process.env.IDLE_S ?? 30);
const started = performance.now();
await using fleet = await startMemberClusters({ count });
const readyMs = Math.round(performance.now() - started);
const atReady = fleet.members.map((m) => cpuSeconds(m.pid()));
await systemClock.sleep(idleS * 1000);
const idle = fleet.members.map((m, i) => cpuSeconds(m.pid()) - (atReady[i] ?? 0));
const round = (n: number) => n.toFixed(2);
console.log(`${count} member(s) ready in ${readyMs} ms`);
console.log(`CPU s to start, per member: ${atReady.map(round).join(", ")}`);
console.log(`CPU s over ${idleS} s idle, per member: ${idle.map(round).join(", ")}`);
