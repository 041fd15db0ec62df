/**
 * A reconcile that keeps failing shows on its object, as deployed (default `showFailingAfter`):
 * a reconciler that throws turns Ready False (`ReconcileFailed`) with `Reconciling=True`, which
 * `kubeloop describe` tells as "failing since …; last error …"; a child the apiserver refuses
 * with 500 `field not declared in schema` is an invalid child (`Stalled=True`, not retried). Both
 * are Ready again once the cause is fixed. A child a quota refuses shows at its first failure, with
 * reason `QuotaExceeded` and the apiserver's message.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { ConfigMap, type ConfigMapObject, type ObjectOf } from "../../../src/api/index.ts";
import { controller, type Reconciler } from "../../../src/controller/index.ts";
import { ensureChild } from "../../../src/ownership/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { type Condition, defineConditionSet, findCondition, writeStatus } from "../../../src/status/index.ts";
import { kubeloopDescribe } from "../describe/support.ts";
import { eventually, installKinds, kubectl, startManager, testClient, testNamespace } from "../support.ts";

const RelayConditions = defineConditionSet({
  summary: "Ready",
  dependents: { ConfigMapReady: "normal-true" },
});

/** Keeps `spec.value` in a ConfigMap; `spec.fault` breaks its reconcile in one of two ways. */
const Relay = defineKind({
  group: "e2e.kubeloop.dev",
  version: "v1",
  kind: "Relay",
  scope: "Namespaced",
  spec: z.object({ value: z.string(), fault: z.enum(["none", "throw", "undeclared-field"]) }),
  conditions: RelayConditions,
});

type RelayObject = ObjectOf<typeof Relay>;

const UPSTREAM_DOWN = "the upstream API answered 503 Service Unavailable";

const reconcileRelay: Reconciler<RelayObject> = async (ctx) => {
  const relay = ctx.object;
  if (!relay) return;
  if (relay.spec.fault === "throw") throw new Error(UPSTREAM_DOWN);
  const { name = "", namespace } = relay.metadata;
  const configMap: ConfigMapObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${name}-relay`, namespace },
    data: { value: relay.spec.value },
  };
  // A field ConfigMap does not declare: server-side apply answers 500.
  const undeclared = relay.spec.fault === "undeclared-field" ? { spec: { value: relay.spec.value } } : {};
  await ensureChild(ctx, relay, ConfigMap, { ...configMap, ...undeclared });
  await writeStatus(ctx, Relay, relay, RelayConditions, (draft) => {
    draft.set("ConfigMapReady", { status: "True", reason: "Applied" });
    return {};
  });
};

async function startRelays(t: Parameters<typeof testNamespace>[0]) {
  await installKinds([Relay]);
  const namespace = await testNamespace(t);
  const client = await testClient();
  const manager = await startManager(t, { name: "relays-e2e", namespace }, (m) => {
    controller(m).for(Relay).owns(ConfigMap).reconcile(reconcileRelay);
  });
  /** The relay `name` once `check` holds for its conditions (and generation observed). */
  const conditionsOnce = (name: string, what: string, check: (conditions: Condition[]) => boolean) =>
    eventually(
      async () => {
        const live = await client.get(Relay, name, { namespace });
        const conditions = live.status?.conditions ?? [];
        const observed = live.status?.observedGeneration === live.metadata.generation;
        return observed && check(conditions) ? conditions : undefined;
      },
      { what, timeoutMs: 90_000 },
    );
  const setFault = (name: string, fault: RelayObject["spec"]["fault"]) =>
    client.patch(Relay, name, { spec: { fault } }, { type: "merge", namespace });
  const create = (name: string, fault: RelayObject["spec"]["fault"]) =>
    client.create(Relay, {
      apiVersion: Relay.apiVersion,
      kind: Relay.kind,
      metadata: { name, namespace },
      spec: { value: "v1", fault },
    });
  return { namespace, manager, conditionsOnce, setFault, create };
}

const ready = (conditions: Condition[]) => findCondition(conditions, "Ready")?.status === "True";

test("a reconciler that keeps throwing shows on its object and in describe, and the object is Ready again once fixed", async (t) => {
  const relays = await startRelays(t);
  await relays.create("edge", "none");
  await relays.conditionsOnce("edge", "edge Ready", ready);

  await relays.setFault("edge", "throw");
  const broken = Date.now();
  const failing = await relays.conditionsOnce(
    "edge",
    "edge Ready=False (ReconcileFailed)",
    (c) => findCondition(c, "Ready")?.reason === "ReconcileFailed",
  );
  const shownAfterMs = Date.now() - broken;
  const summary = findCondition(failing, "Ready");
  const reconciling = findCondition(failing, "Reconciling");
  assert.equal(summary?.status, "False");
  assert.match(summary?.message ?? "", new RegExp(`^failing since \\S+Z; last error: ${UPSTREAM_DOWN}$`));
  assert.deepEqual([reconciling?.status, reconciling?.reason], ["True", "ProgressingWithRetry"]);
  assert.equal(findCondition(failing, "Stalled"), undefined, "retrying may help: not stalled");
  // Ten failures in a row under the default backoff take ~2.5 s; the 30 s bound caps slow retries.
  assert.ok(shownAfterMs < 30_000, `shown after ${shownAfterMs} ms`);
  t.diagnostic(`a throwing reconciler was shown on its object ${shownAfterMs} ms after it began to fail`);

  const { code, stdout } = await kubeloopDescribe(["relay/edge", "-n", relays.namespace]);
  assert.equal(code, 0);
  assert.match(
    stdout,
    new RegExp(
      `kstatus: InProgress {2}\\(ProgressingWithRetry\\) failing since \\S+Z; last error: ${UPSTREAM_DOWN}`,
    ),
  );

  await relays.setFault("edge", "none");
  const fixed = await relays.conditionsOnce("edge", "edge Ready again", ready);
  assert.equal(findCondition(fixed, "Reconciling"), undefined);
  assert.equal(findCondition(fixed, "Ready")?.reason, "AllConditionsNormal");
});

test("a child with a field its kind does not declare is an invalid child: stalled, not retried, Ready once fixed", async (t) => {
  const relays = await startRelays(t);
  await relays.create("spill", "undeclared-field");
  const stalled = await relays.conditionsOnce(
    "spill",
    "spill Ready=False (InvalidChild)",
    (c) => findCondition(c, "Ready")?.reason === "InvalidChild",
  );
  assert.equal(findCondition(stalled, "Stalled")?.status, "True");
  assert.match(
    findCondition(stalled, "Ready")?.message ?? "",
    /^ConfigMap \S+\/spill-relay was refused as invalid: failed to create typed patch object .*\.spec: field not declared in schema/,
  );
  const [hosted] = relays.manager.controllers;
  assert.equal(hosted?.queue.retries(`${relays.namespace}/spill`), 0, "terminal: no backoff retry pending");
  const { stdout } = await kubeloopDescribe(["relay/spill", "-n", relays.namespace]);
  assert.match(stdout, /kstatus: Failed {2}\(InvalidChild\) ConfigMap \S+ was refused as invalid/);

  await relays.setFault("spill", "none");
  const fixed = await relays.conditionsOnce("spill", "spill Ready once fixed", ready);
  assert.equal(findCondition(fixed, "Stalled"), undefined);
});

test("a child a quota refuses shows on its object at its first failure, naming the quota; Ready once the quota is gone", async (t) => {
  const relays = await startRelays(t);
  const { namespace } = relays;
  // The namespace's kube-root-ca.crt already takes the one ConfigMap the quota allows.
  await kubectl(["create", "quota", "one-configmap", "-n", namespace, "--hard=configmaps=1"]);
  await eventually(
    async () =>
      (
        await kubectl([
          "get",
          "quota",
          "one-configmap",
          "-n",
          namespace,
          "-o",
          "jsonpath={.status.used.configmaps}",
        ])
      ).stdout === "1",
    {
      what: "the quota's usage computed with kube-root-ca.crt counted (before, the relay's ConfigMap could take the one allowed)",
    },
  );
  await relays.create("full", "none");
  const refused = await relays.conditionsOnce(
    "full",
    "full Ready=False (QuotaExceeded)",
    (c) => findCondition(c, "Ready")?.reason === "QuotaExceeded",
  );
  assert.match(
    findCondition(refused, "Ready")?.message ?? "",
    /^configmaps "full-relay" is forbidden: exceeded quota: one-configmap, requested: configmaps=1, used: configmaps=1, limited: configmaps=1; .*raise the quota/,
  );
  const reconciling = findCondition(refused, "Reconciling");
  assert.deepEqual([reconciling?.status, reconciling?.reason], ["True", "ProgressingWithRetry"]);
  assert.equal(findCondition(refused, "Stalled"), undefined, "raising the quota is enough: not stalled");

  await kubectl(["delete", "quota", "one-configmap", "-n", namespace]);
  await relays.conditionsOnce("full", "full Ready once the quota is gone", ready);
});
