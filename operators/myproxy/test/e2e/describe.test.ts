/**
 * `kubeloop describe` of a MyProxy: Ready, with its children (ConfigMap, Deployment and the
 * ReplicaSet and Pods below it, Service...), the condition timeline the operator's events tell, and
 * a field of its ConfigMap that another manager took; and a MyProxy no operator has seen.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import {
  allCurrent,
  assertSnapshot,
  kubeloopDescribe,
  settledDescription,
  treeOf,
} from "../../../../test/e2e/describe/support.ts";
import { MyProxy } from "../../api.ts";
import {
  createProxy,
  installCrds,
  kubectl,
  OPERATOR,
  startOperator,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

test("a Ready MyProxy: its tree, timeline, events, and a ConfigMap label another manager owns", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await createProxy(ns, "edge");
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
  await kubectl(["-n", ns, "label", "configmap/edge-nginx", "team=payments", "--field-manager=tamperer"]);

  const description = await settledDescription(
    "myproxy/edge",
    ns,
    (d) =>
      allCurrent(d) &&
      treeOf(d).some((o) => o.kind === "Pod" && o.ready?.status === "True") &&
      treeOf(d).some((o) => o.fieldConflicts.some((f) => f.managers.includes("tamperer"))) &&
      d.timeline.some((e) => e.condition === "Ready" && e.current && e.from !== undefined),
    "edge settled, the label taken, Ready=True's event recorded",
  );
  const configMap = description.object.children.find((c) => c.kind === "ConfigMap");
  assert.equal(configMap?.controllerManager, OPERATOR, "the manager that set the controller reference");
  assert.deepEqual(configMap?.fieldConflicts, [{ field: "metadata.labels.team", managers: ["tamperer"] }]);
  const ready = description.timeline.filter((e) => e.condition === "Ready");
  assert.equal(ready[0]?.from, "Absent", "the first Ready transition, from the operator's events");
  assert.deepEqual(ready.at(-1), { ...ready.at(-1), status: "True", reason: "Serving", current: true });
  assert.ok(ready.length >= 2, "earlier transitions of Ready are on the timeline");

  const { code, stdout } = await kubeloopDescribe(["MyProxy/edge", "-n", ns]);
  assert.equal(code, 0);
  const readyLines = stdout.split("\n").filter((l) => /^ {2}\S+ \S+ {2}Ready +\S+ →/.test(l));
  assert.deepEqual(
    readyLines.map((l) => /Ready +(\S+ → \S+)/.exec(l)?.[1]),
    ready.map((e) => `${e.from} → ${e.status}`),
    "the timeline's Ready transitions, in order",
  );
  assertSnapshot("myproxy", stdout, ns, "MyProxy/edge");
});

test("a MyProxy no operator has reconciled: no conditions, owns nothing, Current by kstatus's rules", async (t) => {
  const ns = await testNamespace(t);
  await createProxy(ns, "idle");
  const { code, stdout } = await kubeloopDescribe(["myproxies.proxy.kubeloop.dev/idle", "-n", ns]);
  assert.equal(code, 0);
  assertSnapshot("myproxy-unreconciled", stdout, ns);
});
