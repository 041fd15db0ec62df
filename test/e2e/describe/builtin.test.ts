/**
 * `kubeloop describe` on built-in kinds: a Deployment with the ReplicaSet and Pods it owns (kwok
 * runs them), an object with no conditions, an object whose children were deleted, `-o json`,
 * and the errors a user can cause.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap, type ConfigMapObject, Deployment, Secret } from "../../../src/api/index.ts";
import type { Description } from "../../../src/describe/index.ts";
import { kubectl, testClient, testNamespace } from "../support.ts";
import {
  allCurrent,
  assertSnapshot,
  createDeployment,
  kubeloopDescribe,
  settledDescription,
  treeOf,
} from "./support.ts";

test("a Deployment: its ReplicaSet and Pods as a tree, each Current and Ready, its conditions and events", async (t) => {
  const ns = await testNamespace(t);
  await createDeployment(ns, "web", 2);
  const settled = (d: Description) =>
    allCurrent(d) &&
    treeOf(d).filter((o) => o.kind === "Pod" && o.ready?.status === "True").length === 2 &&
    d.conditions.some((c) => c.type === "Available" && c.status === "True") &&
    d.events.length === 5; // scaled up; two pods created, two scheduled
  const description = await settledDescription("deployment/web", ns, settled, "web settled");
  assert.deepEqual(
    treeOf(description).map((o) => o.kind),
    ["Deployment", "ReplicaSet", "Pod", "Pod"],
  );
  assert.equal(description.object.children[0]?.controllerManager, "kube-controller-manager");

  const { code, stdout } = await kubeloopDescribe(["deployments.apps/web", "-n", ns]);
  assert.equal(code, 0);
  assert.ok(!stdout.includes("\u001b["), "piped output has no colour codes");
  assertSnapshot("deployment", stdout, ns);
});

test("an object with no conditions and no children says so", async (t) => {
  const ns = await testNamespace(t);
  await (await testClient()).create(ConfigMap, configMap(ns, "settings"));
  const { code, stdout } = await kubeloopDescribe(["cm/settings", "-n", ns]);
  assert.equal(code, 0);
  assertSnapshot("no-conditions", stdout, ns);
});

test("children deleted: the tree shows only those left, and none once all are gone", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const owner = await client.create(ConfigMap, configMap(ns, "app"));
  const ownerReferences = [
    { apiVersion: "v1", kind: "ConfigMap", name: "app", uid: owner.metadata.uid ?? "" },
  ];
  await client.create(ConfigMap, {
    ...configMap(ns, "app-extra"),
    metadata: { name: "app-extra", namespace: ns, ownerReferences },
  });
  await client.create(Secret, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "app-token", namespace: ns, ownerReferences },
  });
  const both = await settledDescription(
    "configmap/app",
    ns,
    (d) => d.object.children.length === 2,
    "both children",
  );
  assert.deepEqual(
    both.object.children.map((c) => `${c.kind}/${c.name}`),
    ["ConfigMap/app-extra", "Secret/app-token"],
  );

  await kubectl(["-n", ns, "delete", "secret/app-token", "--wait"]);
  assertSnapshot("children-partly-deleted", (await kubeloopDescribe(["configmap/app", "-n", ns])).stdout, ns);
  await kubectl(["-n", ns, "delete", "configmap/app-extra", "--wait"]);
  assertSnapshot("children-deleted", (await kubeloopDescribe(["configmap/app", "-n", ns])).stdout, ns);
});

test("-o json is the description: the tree with uids, kstatus and events", async (t) => {
  const ns = await testNamespace(t);
  await createDeployment(ns, "api", 1);
  await settledDescription(
    "deployment/api",
    ns,
    (d) => treeOf(d).length === 3 && allCurrent(d),
    "api settled",
  );
  const { code, stdout } = await kubeloopDescribe(["Deployment/api", "-n", ns, "-o", "json"]);
  assert.equal(code, 0);
  const description = JSON.parse(stdout) as Description;
  const live = await (await testClient()).get(Deployment, "api", { namespace: ns });
  assert.equal(description.object.uid, live.metadata.uid);
  assert.equal(description.object.kstatus.status, "Current");
  assert.deepEqual(
    treeOf(description).map((o) => o.kind),
    ["Deployment", "ReplicaSet", "Pod"],
  );
  assert.ok(
    description.events.every(
      (e, i, all) => i === 0 || Date.parse(all[i - 1]?.time ?? "") <= Date.parse(e.time),
    ),
  );
});

test("errors name the cause and the fix, with exit code 1", async (t) => {
  const ns = await testNamespace(t);
  const unknown = await kubeloopDescribe(["deploymnt/web", "-n", ns]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /^kubeloop: the API server serves no resource named "deploymnt".*kubectl api-resources/,
  );
  const missing = await kubeloopDescribe(["deploy/nothing", "-n", ns]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, new RegExp(`there is no deployments.apps named "nothing" in namespace ${ns}`));
  const malformed = await kubeloopDescribe(["web"]);
  assert.match(malformed.stderr, /"web" is not an object to describe: give it as <kind>\/<name>/);
});

function configMap(namespace: string, name: string): ConfigMapObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { mode: "fast" } };
}
