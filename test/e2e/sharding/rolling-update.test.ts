/**
 * Rolling updates of a sharded operator, run as deployed (fixtures/deployed.ts): the generated
 * Deployment's three replicas (`--shards`, the default shard key: namespace; with the local plane's
 * `ShardedListAndWatch` gate off, as on the clusters people run, so objects are placed by the shard
 * label) share Sprockets in twelve namespaces, one per shard. First the Deployment's `--shards` is
 * changed from 12 to 16, and its three replicas are replaced one by one; then {@link ROLLOUTS} more
 * times a new replica of the same args is started. Each time, once the new replica is ready, an
 * old one is stopped with SIGTERM while it is in a reconcile that outlasts the shards' renew
 * deadline, as one calling a slow external API does; meanwhile a writer keeps editing the objects'
 * specs. The replicas must end up sharing the 16 shards fairly, and the reconciles they print and
 * the writes the apiserver's audit log records by pod must show no key reconciled by two replicas
 * at once (under either count) and no write sent after a successor began reconciling its key; the
 * Leases of the old count must be deleted once released.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Lease } from "../../../src/api/index.ts";
import { auditedCluster } from "../fixtures/audit.ts";
import { deploy, type Replica } from "../fixtures/deployed.ts";
import { auditRun, describeAudit, inSlowReconcile, startLoad } from "../fixtures/rollout.ts";
import { sprocketsModule } from "../fixtures/sprockets.ts";
import { eventually } from "../support.ts";
import { balanced, held } from "./support.ts";
import { spreadNames } from "./workloads.ts";

/** Rollouts after the one that changes the shard count. */
const ROLLOUTS = 1;
const SHARDS = 12;
const NEW_SHARDS = 16;
const started = performance.now();
const seconds = () => Math.round((performance.now() - started) / 1000);

/** What a replica holds and last logged, for a failure message. */
const describeReplica = (r: Replica) =>
  `${r.identity} (${r.running ? "running" : "exited"}) holds shards [${[...held(r)].join(", ")}], last logged: ${r.output.slice(-8).join(" | ")}`;

test("rolling updates of a sharded operator under load, the first changing the shard count: the shards spread, no key reconciled by two replicas at once, no write after a successor began on its key", async (t) => {
  const cluster = await auditedCluster(t, ["--feature-gates=ShardedListAndWatch=false"]);
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
  const replaceOneOf = async (old: readonly Replica[]) => {
    const next = await operator.startReplica();
    await next.ready();
    const victim = await inSlowReconcile(old, load).catch((err: Error) => {
      throw new Error(`${err.message}; the old replicas: ${old.map(describeReplica).join("; ")}`);
    });
    stops.set(victim, operator.stop(victim));
    phases.push(seconds());
  };
  operator.setArgs(
    operator.container.args?.map((a) => a.replace(`--shards=${SHARDS}`, `--shards=${NEW_SHARDS}`)) ?? [],
  );
  for (let i = 0; i < first.length; i++) await replaceOneOf(first.filter((r) => !stops.has(r)));
  for (let i = 0; i < ROLLOUTS; i++) await replaceOneOf(operator.running.filter((r) => !stops.has(r)));
  const exits = await Promise.all(stops.values());
  const spread = await eventually(() => balanced(operator.running, NEW_SHARDS), {
    what: "the three replicas sharing the shards",
    timeoutMs: 90_000,
  }).catch((err: Error) => err);
  await load.settle();
  phases.push(seconds());
  // Released by the old replicas' SIGTERM, the Leases of 12 shards are deleted by the new ones.
  const ofOldCount = async () =>
    (await operator.client.list(Lease, { namespace: operator.namespace })).items
      .map((lease) => lease.metadata.name ?? "")
      .filter((name) => name.endsWith(`-of-${SHARDS}`));
  const swept = await eventually(async () => (await ofOldCount()).length === 0, {
    what: `no Lease of ${SHARDS} shards left`,
    timeoutMs: 30_000,
  }).catch(() => false);

  const audit = await auditRun(cluster, operator.replicas);
  const shares = operator.running.map((r) => held(r).size);
  t.diagnostic(describeAudit(stops.size, audit));
  t.diagnostic(`shards held: ${shares.join(", ")} of ${NEW_SHARDS}`);
  t.diagnostic(
    `load from ${phases[0]} s, rollouts ended at ${phases.slice(1, -1).join(", ")} s, settled at ${phases.at(-1)} s`,
  );
  assert.deepEqual(exits, Array(stops.size).fill(0), "each old replica exits 0 after SIGTERM");
  assert.equal(spread, true, `the replicas share the shards fairly (held: ${shares.join(", ")})`);
  assert.ok(audit.keys >= load.keys.length, `every key audited: ${audit.keys} of ${load.keys.length}`);
  assert.deepEqual(audit.overlaps, [], "no key reconciled by two replicas at once");
  assert.deepEqual(audit.stale, [], "no write after a successor began reconciling its key");
  assert.ok(swept, `the Leases of ${SHARDS} shards are deleted once released: left ${await ofOldCount()}`);
});
