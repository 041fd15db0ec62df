import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { startCluster } from "../../../src/cluster/index.ts";
import { eventually } from "../support.ts";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("two clusters run at once without port clashes, with the nodes asked for (none too), and stop leaves no process of either", async () => {
  const [a, b] = await Promise.all([
    startCluster({ nodes: 2, report: () => {} }),
    startCluster({ nodes: 0, report: () => {} }),
  ]);
  const pids = [...Object.values(a.pids()), ...Object.values(b.pids())] as number[];
  try {
    assert.notEqual(a.server, b.server);
    assert.equal(pids.length, 10);
    const nodes = await a.kubectl(["get", "nodes", "--no-headers"]);
    assert.match(nodes.stdout, /kwok-node-0\s+Ready/);
    assert.match(nodes.stdout, /kwok-node-1\s+Ready/);
    assert.equal((await b.kubectl(["get", "nodes", "--no-headers"])).stdout.trim(), "");
    assert.ok(pids.every(alive), "all ten processes run");
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  assert.deepEqual(pids.filter(alive), [], "no process outlives stop");
  assert.equal(existsSync(a.runDir), false, "the temporary run directory is removed");
});

test("a test process that crashes leaves no control-plane process behind", async () => {
  const script = join(fileURLToPath(import.meta.url), "../fixtures/start-and-hang.ts");
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => {
    output += d;
  });
  const started = await eventually(() => /^pids (.*)$/m.exec(output)?.[1], {
    what: "the child's cluster",
    timeoutMs: 120_000,
  });
  const { pids, runDir } = JSON.parse(started) as { pids: number[]; runDir: string };
  assert.ok(pids.every(alive));
  child.kill("SIGKILL");
  await eventually(() => pids.every((p) => !alive(p)), {
    what: "the reaper to stop every process",
    timeoutMs: 30_000,
  });
  await eventually(() => !existsSync(runDir), { what: "the run directory to be removed", timeoutMs: 10_000 });
});
