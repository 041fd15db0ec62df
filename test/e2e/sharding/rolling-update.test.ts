/**
 * A rolling update of a sharded operator, run as deployed (fixtures/deployed.ts): the generated
 * Deployment's three replicas (`--shards`, the default shard key: namespace) share Sprockets in
 * twelve namespaces, one per shard; {@link ROLLOUTS} times in a row a new replica is started and,
 * once ready, an old one is stopped with SIGTERM while it is in a reconcile that outlasts the
 * shards' renew deadline, as one calling a slow external API does; meanwhile a writer keeps
 * editing the objects' specs. The replicas must end up sharing the shards fairly, and the
 * reconciles they print and the writes the apiserver's audit log records by pod must show no key
 * reconciled by two replicas at once and no write sent after a successor began reconciling its key.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { auditedCluster } from "../fixtures/audit.ts";
import { deploy, type Replica } from "../fixtures/deployed.ts";
import { auditRun, describeAudit, inSlowReconcile, startLoad } from "../fixtures/rollout.ts";
import { sprocketsModule } from "../fixtures/sprockets.ts";
import { eventually } from "../support.ts";
import { balanced, held } from "./support.ts";
import { spreadNames } from "./workloads.ts";

const ROLLOUTS = 3;
const SHARDS = 12;
const started = performance.now();
const seconds = () => Math.round((performance.now() - started) / 1000);

test("rolling updates of a sharded operator under load: the shards spread, no key reconciled by two replicas at once, no write after a successor began on its key", async (t) => {
  const cluster = await auditedCluster(t);
  const operator = await deploy(t, {
    module: sprocketsModule("sprockets"),
    generate: [`--shards=${SHARDS}`, "--replicas=3"],
    kubeconfig: cluster.kubeconfig,
  });
  const first = [await operator.startReplica(), await operator.startReplica(), await operator.startReplica()];
  await Promise.all(first.map((r) => r.ready()));
  // 48 Sprockets, 4 in each of 12 namespaces (one per shard), the first of each slow.
  const namespaces = spreadNames("work", 1, SHARDS);
  const load = await startLoad(operator.client, namespaces, { perNamespace: 4, slowEvery: 4 });

  // Back to back, as rollouts in a row go: the next replica starts while the old one still drains.
  const stops = new Map<Replica, Promise<number | string>>();
  const phases = [seconds()];
  for (let i = 0; i < ROLLOUTS; i++) {
    const old = operator.running.filter((r) => !stops.has(r));
    const next = await operator.startReplica();
    await next.ready();
    const victim = await inSlowReconcile(old, load);
    stops.set(victim, operator.stop(victim));
    phases.push(seconds());
  }
  const exits = await Promise.all(stops.values());
  const spread = await eventually(() => balanced(operator.running, SHARDS), {
    what: "the three replicas sharing the shards",
    timeoutMs: 90_000,
  }).catch((err: Error) => err);
  await load.settle();
  phases.push(seconds());

  const audit = await auditRun(cluster, operator.replicas);
  const shares = operator.running.map((r) => held(r).size);
  t.diagnostic(describeAudit(ROLLOUTS, audit));
  t.diagnostic(`shards held: ${shares.join(", ")} of ${SHARDS}`);
  t.diagnostic(
    `load from ${phases[0]} s, rollouts ended at ${phases.slice(1, -1).join(", ")} s, settled at ${phases.at(-1)} s`,
  );
  assert.deepEqual(exits, Array(ROLLOUTS).fill(0), "each old replica exits 0 after SIGTERM");
  assert.equal(spread, true, `the replicas share the shards fairly (held: ${shares.join(", ")})`);
  assert.ok(audit.keys >= load.keys.length, `every key audited: ${audit.keys} of ${load.keys.length}`);
  assert.deepEqual(audit.overlaps, [], "no key reconciled by two replicas at once");
  assert.deepEqual(audit.stale, [], "no write after a successor began reconciling its key");
});
