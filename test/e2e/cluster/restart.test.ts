/**
 * Restarting the apiserver of a local cluster leaves the rest of the control plane working at
 * once, round after round: the controller manager and the scheduler are restarted with it.
 * Before, the scheduler's watches backed off longer with each restart (new pods stayed unscheduled
 * for 20 s by the fourth), and the controller manager could stall for minutes refusing to act
 * until its informers read back its own last writes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startCluster } from "../../../src/cluster/index.ts";
import { eventually } from "../support.ts";

test("after each of four apiserver restarts, a Deployment scaled at once gets its pods running within 10 s", async (t) => {
  const cluster = await startCluster({ report: () => {} });
  t.after(() => cluster.stop());
  const kubectl = async (...args: string[]) => {
    const result = await cluster.kubectl(args);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  const runningPods = async (want: number) => {
    const pods = await kubectl(
      "get",
      "pods",
      "-l",
      "app=web",
      "--field-selector=status.phase=Running",
      "-o",
      "name",
    );
    return pods.split("\n").filter(Boolean).length === want;
  };
  await kubectl("create", "deployment", "web", "--image=registry.k8s.io/pause:3.10", "--replicas=1");
  for (const round of [1, 2, 3, 4]) {
    // Scaled just before the restart, so the ReplicaSet controller has fresh writes in flight.
    await kubectl("scale", "deployment", "web", `--replicas=${2 * round}`);
    await cluster.restart("kube-apiserver");
    const restarted = Date.now();
    await kubectl("scale", "deployment", "web", `--replicas=${2 * round + 1}`);
    await eventually(() => runningPods(2 * round + 1), {
      what: `${2 * round + 1} running pods after apiserver restart ${round}`,
      timeoutMs: 10_000,
    });
    t.diagnostic(
      `round ${round}: ${2 * round + 1} pods running ${Date.now() - restarted} ms after the restart`,
    );
  }
});
