/**
 * `kubeloop describe` costs the same requests for a tree of 1,000 objects as for a tree of 3: one
 * GET of the object, discovery, one list per kind — never a request per object.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap, type KubeObject, type ResourceType, Secret } from "../../../src/api/index.ts";
import { Client, loadKubeconfig } from "../../../src/client/index.ts";
import { describeObject } from "../../../src/describe/index.ts";
import { kubeconfigPath, RequestCounter, testClient, testNamespace } from "../support.ts";
import { treeOf } from "./support.ts";

/** What one description cost: requests by verb, and list requests by kind. */
async function describeCounting(namespace: string) {
  const requests = new RequestCounter();
  const lists = new Map<string, number>();
  const base = new Client(await loadKubeconfig({ kubeconfig: kubeconfigPath() }), { metrics: requests });
  const client = base.observed((type, verb) => {
    if (verb === "list")
      lists.set(`${type.apiVersion}/${type.kind}`, (lists.get(`${type.apiVersion}/${type.kind}`) ?? 0) + 1);
  });
  try {
    const description = await describeObject(client, "configmap/root", { namespace });
    const byVerb = (verb: string) => requests.seen.filter((o) => o.verb === verb).length;
    return { description, total: requests.seen.length, gets: byVerb("get"), lists };
  } finally {
    await base.close();
  }
}

async function createChildren(
  namespace: string,
  owner: KubeObject,
  type: ResourceType,
  from: number,
  to: number,
) {
  const client = await testClient();
  const ownerReferences = [
    { apiVersion: "v1", kind: "ConfigMap", name: "root", uid: owner.metadata.uid ?? "" },
  ];
  for (let start = from; start < to; start += 100) {
    const names = Array.from({ length: Math.min(100, to - start) }, (_, i) => `child-${start + i}`);
    await Promise.all(
      names.map((name) =>
        client.create(type, {
          apiVersion: "v1",
          kind: type.kind,
          metadata: { name, namespace, ownerReferences },
        }),
      ),
    );
  }
}

test("a tree of 1,000 objects costs the requests of a tree of 3: one list per kind, one GET", async (t) => {
  const ns = await testNamespace(t);
  const root = await (await testClient()).create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "root", namespace: ns },
  });
  await createChildren(ns, root, ConfigMap, 0, 1);
  await createChildren(ns, root, Secret, 1, 2);
  const small = await describeCounting(ns);
  assert.equal(treeOf(small.description).length, 3);

  await createChildren(ns, root, ConfigMap, 2, 600);
  await createChildren(ns, root, Secret, 600, 1000);
  const large = await describeCounting(ns);
  assert.equal(treeOf(large.description).length, 1001);

  t.diagnostic(
    `tree of 3: ${small.total} requests; tree of 1,001: ${large.total} (${large.gets} GETs, ${[...large.lists.values()].reduce((a, b) => a + b, 0)} lists of ${large.lists.size} kinds)`,
  );
  // Per kind, not in all: other files on the run's cluster may add a CRD between the two
  // descriptions (a CI run listed 42 kinds for the second, 41 for the first).
  assert.equal(
    large.total - large.lists.size,
    small.total - small.lists.size,
    "the requests do not grow with the tree: the same beyond one list per kind",
  );
  assert.equal(large.gets, 3, "the object, and discovery's /api and /apis");
  assert.equal(large.lists.get("v1/ConfigMap"), 2, "metadata to find the tree, then full objects");
  assert.equal(large.lists.get("v1/Secret"), 2);
  assert.equal(large.lists.get("events.k8s.io/v1/Event"), 1);
  const others = [...large.lists].filter(
    ([kind]) => !["v1/ConfigMap", "v1/Secret", "events.k8s.io/v1/Event"].includes(kind),
  );
  assert.ok(others.length > 10, "every listable kind of the namespace is searched");
  assert.deepEqual(
    others.filter(([, count]) => count !== 1),
    [],
    "each other kind is listed once, metadata only",
  );
});
