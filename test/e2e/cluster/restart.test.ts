/**
 * Restarting the apiserver of a local cluster leaves the rest of the control plane working at
 * once, round after round: the controller manager and the scheduler are restarted with it.
 * Before, the scheduler's watches backed off longer with each restart (new pods stayed unscheduled
 * for 20 s by the fourth), and the controller manager could stall for minutes refusing to act
 * until its informers read back its own last writes.
 *
 * And kubeloop comes back with it under load (issue 37): both reference operators in one manager
 * at its defaults converge after the apiserver is killed for 5 s while 100 objects are being
 * created. Before, their watches backed off to 30 s while it was away and came back seconds after
 * it, and the client's 20 qps held their writes back. The diagnostic says how long convergence
 * took; `bench/restart.ts` measures it over several runs (goal: 10 s).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pino from "pino";
import { type Cluster, startCluster } from "../../../src/cluster/index.ts";
import { eventually, onCleanup } from "../support.ts";
import { installBothCrds, load, restartUnderLoad, startBothOperators } from "./fixtures/restart-load.ts";

let cluster: Cluster;
before(async () => {
  cluster = await startCluster({ report: () => {} });
});
after(() => cluster?.stop());

test("after each of four apiserver restarts, a Deployment scaled at once gets its pods running within 10 s", async (t) => {
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

test("both reference operators, in one manager at its defaults, converge after the apiserver is killed for 5 s while 100 objects are being created", {
  timeout: 300_000,
}, async (t) => {
  await installBothCrds(cluster);
  // Silent: while the apiserver is away, every watch and reconcile logs its failure.
  const both = await startBothOperators(cluster, {
    logger: pino({ level: process.env.LOG_LEVEL ?? "silent" }),
  });
  onCleanup(t, both.stop);
  const figures = await restartUnderLoad(cluster, 120_000);
  t.diagnostic(
    `${load.objects} objects, apiserver down ${load.downMs / 1000} s after the ${load.killedAfter}th: every output ` +
      `${(figures.outputsRightMs / 1000).toFixed(1)} s and everything converged ` +
      `${(figures.convergedMs / 1000).toFixed(1)} s after it was ready again (operator lag ` +
      `${(figures.operatorLagMs / 1000).toFixed(1)} s)`,
  );
  const reconnects = await both.manager.metrics.registry
    .getSingleMetric("kubeloop_watch_reconnects_total")
    ?.get();
  assert.ok(
    (reconnects?.values ?? []).some((v) => v.value > 0),
    "the watches reconnected after the apiserver came back",
  );
});
