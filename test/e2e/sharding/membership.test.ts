/**
 * Two replicas of a sharded operator, run as deployed (test/e2e/fixtures/deployed.ts: real Pods,
 * `POD_NAME`, `POD_UID`, `POD_NAMESPACE` from the downward API, no explicit identity, the default
 * Lease timings, the generated RBAC), share the shards: their membership Leases, named after a
 * hash of the default identity `$POD_NAME_$POD_UID`, are accepted by the apiserver (they used to
 * be refused with a 422, and the first replica kept every shard). A replica stopped with SIGTERM
 * deletes its membership Lease; one killed with SIGKILL leaves it, and garbage collection deletes
 * it with its Pod, which owns it.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { Lease, type LeaseObject } from "../../../src/api/index.ts";
import { type DeployedOperator, deploy } from "../fixtures/deployed.ts";
import { installWidgetCrd } from "../fixtures/widgets.ts";
import { eventually, testNamespace } from "../support.ts";
import { moduleOf } from "./fixtures/operators.ts";
import { balanced, held, shards } from "./support.ts";

/** The membership Leases of `operator`. */
async function members(operator: DeployedOperator): Promise<LeaseObject[]> {
  const { items } = await operator.client.list(Lease, { namespace: operator.namespace });
  return items.filter((lease) => lease.metadata.name?.startsWith(`${operator.name}-member-`));
}

const holders = (leases: LeaseObject[]) => leases.map((l) => l.spec?.holderIdentity).sort();

test("replicas with the default pod identity share the shards; SIGTERM deletes a membership Lease, garbage collection a SIGKILLed one's", async (t) => {
  const ns = await testNamespace(t);
  await installWidgetCrd();
  const name = `sharded-widgets-${randomBytes(3).toString("hex")}`;
  const generate = [`--shards=${shards}`, "--shard-key=uid", "--replicas=2"];
  const operator = await deploy(t, { module: moduleOf("shardedWidgets", name, ns), generate });
  const [a, b] = [await operator.startReplica(), await operator.startReplica()];
  await eventually(() => balanced([a, b]), { what: "two replicas sharing the shards", timeoutMs: 90_000 });

  const memberships = await members(operator);
  assert.deepEqual(holders(memberships), [a.holderIdentity, b.holderIdentity].sort());
  for (const lease of memberships) {
    const { pod } = lease.spec?.holderIdentity === a.holderIdentity ? a : b;
    assert.deepEqual(lease.metadata.ownerReferences, [
      { apiVersion: "v1", kind: "Pod", name: pod.metadata.name, uid: pod.metadata.uid },
    ]);
  }

  // Checked before the Pod goes (operator.stop deletes it), which would take the Lease with it.
  a.kill("SIGTERM");
  assert.equal(await a.exited, 0, "a stopped cleanly");
  assert.deepEqual(holders(await members(operator)), [b.holderIdentity], "a's membership Lease is deleted");
  await operator.stop(a);
  await eventually(() => held(b).size === shards, { what: "b to hold every shard", timeoutMs: 60_000 });

  // SIGKILL: a crash, which leaves the Lease behind for garbage collection.
  b.kill("SIGKILL");
  await b.exited;
  assert.deepEqual(holders(await members(operator)), [b.holderIdentity], "a SIGKILL leaves it");
  await operator.stop(b);
  await eventually(async () => (await members(operator)).length === 0, {
    what: "garbage collection to delete b's membership Lease with its Pod",
    timeoutMs: 60_000,
  });
});
