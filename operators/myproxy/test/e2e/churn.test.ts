/**
 * `status.podNames` under churn: the MyProxy's pods are deleted every second for a minute (kwok nodes;
 * the Deployment's ReplicaSet recreates them), then left alone. Once the pods settle, the list must
 * name exactly the live pods within 2 s.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { Pod } from "kubeloop";
import { MyProxy } from "../../api.ts";
import {
  createProxy,
  eventually,
  getOrGone,
  installCrds,
  livePods,
  startOperator,
  testClient,
  testNamespace,
} from "./support.ts";

before(installCrds);

const REPLICAS = 3;
const CHURN_MS = 60_000;
const CONVERGE_MS = 2_000;

test("podNames converges to the live pods within 2 s of the pods settling after a minute of churn", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await createProxy(ns, "churn", { replicas: REPLICAS });
  await eventually(async () => (await podNamesMatch(ns)).converged, {
    what: `${REPLICAS} pods listed`,
    timeoutMs: 60_000,
  });

  const deleted = await churn(ns);
  const lastDeletion = performance.now();
  const settledAt = await eventually(
    async () => (await podNamesMatch(ns)).live.length === REPLICAS && performance.now(),
    {
      what: `${REPLICAS} live pods again`,
      intervalMs: 50,
    },
  );
  const convergedAt = await eventually(async () => (await podNamesMatch(ns)).converged && performance.now(), {
    what: "podNames naming the live pods",
    intervalMs: 50,
    timeoutMs: CONVERGE_MS * 5,
  });
  const lag = Math.max(0, Math.round(convergedAt - settledAt));
  t.diagnostic(
    `${deleted} pods deleted over ${CHURN_MS / 1000} s; pods settled ${Math.round(settledAt - lastDeletion)} ms ` +
      `after the last deletion; podNames converged ${lag} ms after the pods settled`,
  );
  assert.ok(
    lag <= CONVERGE_MS,
    `podNames converged ${lag} ms after the pods settled (at most ${CONVERGE_MS})`,
  );
});

/** Deletes every live pod of MyProxy `churn` once a second for {@link CHURN_MS}; returns how many. */
async function churn(namespace: string): Promise<number> {
  const client = await testClient();
  let deleted = 0;
  for (const end = performance.now() + CHURN_MS; performance.now() < end; ) {
    const tick = new Promise((resolve) => setTimeout(resolve, 1_000));
    const pods = await livePods(namespace, "churn");
    const results = await Promise.allSettled(
      pods.map((p) => client.delete(Pod, p.metadata.name ?? "", { namespace })),
    );
    deleted += results.filter((r) => r.status === "fulfilled").length;
    await tick;
  }
  return deleted;
}

/** The live pods of MyProxy `churn`, and whether its `status.podNames` names exactly those. */
async function podNamesMatch(namespace: string): Promise<{ live: string[]; converged: boolean }> {
  const live = (await livePods(namespace, "churn")).map((p) => p.metadata.name ?? "").sort();
  const listed = (await getOrGone(MyProxy, namespace, "churn"))?.status?.podNames ?? [];
  const converged = live.length === REPLICAS && JSON.stringify(listed) === JSON.stringify(live);
  return { live, converged };
}
