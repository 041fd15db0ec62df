/**
 * Two replicas of a sharded operator, each a process of its own with nothing but what a pod of
 * the generated Deployment has — `POD_NAME`, `POD_UID`, `POD_NAMESPACE` of a real Pod, no explicit
 * identity, the default Lease timings — share the shards: their membership Leases, named after a
 * hash of the default identity `$POD_NAME_$POD_UID`, are accepted by the apiserver (they used to
 * be refused with a 422, and the first replica kept every shard). A replica stopped with SIGTERM
 * deletes its membership Lease; one killed with SIGKILL leaves it, and garbage collection deletes
 * it with its Pod, which owns it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Lease, type LeaseObject, Pod, type PodObject } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { type OperatorProcess, startOperatorProcess } from "../fixtures/process.ts";
import { installWidgetCrd } from "../fixtures/widgets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";
import { balanced, held, shards } from "./support.ts";

const script = join(fileURLToPath(import.meta.url), "../fixtures/replica.ts");

/**
 * A Pod standing for a replica's (kwok runs it), so that the downward API's values are real;
 * created once the namespace's default ServiceAccount, which admission requires, exists.
 */
async function replicaPod(client: Client, namespace: string, name: string) {
  const pod: PodObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace },
    spec: { containers: [{ name: "manager", image: "widgets:latest" }] },
  };
  return eventually(() => client.create(Pod, pod).catch(() => undefined), { what: `pod ${name} created` });
}

/** Starts a replica as a process of pod `name`, with the environment the generated Deployment gives it. */
async function startReplica(t: TestContext, client: Client, namespace: string, name: string) {
  const pod = await replicaPod(client, namespace, name);
  const uid = pod.metadata.uid ?? "";
  const replica = startOperatorProcess(t, script, `${name}_${uid}`, {
    OPERATOR_NAMESPACE: namespace,
    OPERATOR_SHARDS: String(shards),
    POD_NAME: name,
    POD_UID: uid,
    POD_NAMESPACE: namespace,
  });
  return { replica, uid };
}

/** The membership Leases in `namespace`. */
async function members(client: Client, namespace: string): Promise<LeaseObject[]> {
  const { items } = await client.list(Lease, { namespace });
  return items.filter((lease) => lease.metadata.name?.startsWith("widgets-sharded-member-"));
}

const holders = (leases: LeaseObject[]) => leases.map((l) => l.spec?.holderIdentity).sort();

test("replicas with the default pod identity share the shards; SIGTERM deletes a membership Lease, garbage collection a SIGKILLed one's", async (t) => {
  const client = await testClient();
  const ns = await testNamespace(t);
  await installWidgetCrd();
  const a = await startReplica(t, client, ns, "widgets-sharded-5f7d8-a2x7q");
  const b = await startReplica(t, client, ns, "widgets-sharded-5f7d8-k9m4z");
  const replicas: OperatorProcess[] = [a.replica, b.replica];
  await eventually(() => balanced(replicas), { what: "two replicas sharing the shards", timeoutMs: 90_000 });

  const memberships = await members(client, ns);
  assert.deepEqual(holders(memberships), [a.replica.identity, b.replica.identity].sort());
  for (const lease of memberships) {
    const pod = lease.spec?.holderIdentity === a.replica.identity ? a : b;
    assert.deepEqual(lease.metadata.ownerReferences, [
      { apiVersion: "v1", kind: "Pod", name: pod.replica.identity.split("_")[0], uid: pod.uid },
    ]);
  }

  a.replica.kill("SIGTERM");
  assert.equal(await a.replica.exited, 0, "a stopped cleanly");
  assert.deepEqual(
    holders(await members(client, ns)),
    [b.replica.identity],
    "a's membership Lease is deleted",
  );
  await eventually(() => held(b.replica).size === shards, {
    what: "b to hold every shard",
    timeoutMs: 60_000,
  });

  b.replica.kill("SIGKILL");
  await b.replica.exited;
  assert.deepEqual(holders(await members(client, ns)), [b.replica.identity], "a SIGKILL leaves it");
  await client.delete(Pod, b.replica.identity.split("_")[0] ?? "", { namespace: ns });
  await eventually(async () => (await members(client, ns)).length === 0, {
    what: "garbage collection to delete b's membership Lease with its Pod",
    timeoutMs: 60_000,
  });
});
