/**
 * A rolling update of an operator with leader election, run as deployed (fixtures/deployed.ts):
 * the generated Deployment's one replica is replaced {@link ROLLOUTS} times in a row, each time
 * the new replica started and ready, then the old one (the leader) stopped with SIGTERM while it
 * is in a reconcile that outlasts the Lease's duration, as one calling a slow external API does;
 * meanwhile a writer keeps editing the objects' specs. The reconciles the replicas print, and the
 * writes the apiserver's audit log records by pod, must show no key reconciled by two replicas at
 * once and no write sent after a successor began reconciling its key.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { auditedCluster } from "../fixtures/audit.ts";
import { deploy, type Replica } from "../fixtures/deployed.ts";
import { auditRun, describeAudit, inSlowReconcile, startLoad } from "../fixtures/rollout.ts";
import { sprocketsModule } from "../fixtures/sprockets.ts";

const ROLLOUTS = 3;
const started = performance.now();
const seconds = () => Math.round((performance.now() - started) / 1000);

test("rolling updates of a leader-elected operator under load: no key reconciled by two replicas at once, no write after a successor began on its key", async (t) => {
  const cluster = await auditedCluster(t);
  const operator = await deploy(t, { module: sprocketsModule("sprockets"), kubeconfig: cluster.kubeconfig });
  let leader: Replica = await operator.startReplica();
  await leader.waitFor((e) => e.event === "became-leader", "lead", 90_000);
  // 24 Sprockets in two namespaces, 3 of them slow.
  const load = await startLoad(operator.client, ["work-a", "work-b"], { perNamespace: 12, slowEvery: 8 });

  // The old leader exits while the next rollout begins; the next begins once leadership moved,
  // so that each rollout stops the leader.
  const stops: Promise<number | string>[] = [];
  const phases = [seconds()];
  for (let i = 0; i < ROLLOUTS; i++) {
    const next = await operator.startReplica();
    await next.ready();
    stops.push(operator.stop(await inSlowReconcile([leader], load)));
    await next.waitFor((e) => e.event === "became-leader", "take over", 90_000);
    leader = next;
    phases.push(seconds());
  }
  const exits = await Promise.all(stops);
  await load.settle();
  phases.push(seconds());

  const audit = await auditRun(cluster, operator.replicas);
  t.diagnostic(describeAudit(ROLLOUTS, audit));
  t.diagnostic(
    `load from ${phases[0]} s, rollouts ended at ${phases.slice(1, -1).join(", ")} s, settled at ${phases.at(-1)} s`,
  );
  assert.deepEqual(exits, Array(ROLLOUTS).fill(0), "each old replica exits 0 after SIGTERM");
  assert.ok(audit.keys >= load.keys.length, `every key audited: ${audit.keys} of ${load.keys.length}`);
  assert.deepEqual(audit.overlaps, [], "no key reconciled by two replicas at once");
  assert.deepEqual(audit.stale, [], "no write after a successor began reconciling its key");
});
