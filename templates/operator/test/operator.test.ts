/**
 * End-to-end tests: the operator runs in this process against a real cluster. `npm test`
 * (`kubeloop test`) starts one local control plane (etcd, kube-apiserver, controller-manager,
 * scheduler, kwok) for every test file, or uses the cluster `$KUBELOOP_TEST_KUBECONFIG` names.
 * Each test gets its own namespace. `startOperator` serves the operator's webhook too, for the
 * namespaces `testNamespace` makes.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ConfigMap } from "kubeloop";
import { Client, loadKubeconfig } from "kubeloop/client";
import { eventually, type RunningOperator, startOperator, testNamespace } from "kubeloop/testing";
import { __KIND__ } from "../src/api.ts";
import operator from "../src/operator.ts";

let running: RunningOperator;

before(async () => {
  running = await startOperator(operator);
});

after(() => running.stop());

/** A __KIND__ named `name` with `message` in `namespace`. */
function helloIn(namespace: string, message: string, name = "hello") {
  return {
    apiVersion: __KIND__.apiVersion,
    kind: __KIND__.kind,
    metadata: { name, namespace },
    spec: { message },
  };
}

/** Creates a __KIND__ with `message` in `namespace`. */
function create(namespace: string, message: string) {
  return running.client.create(__KIND__, helloIn(namespace, message));
}

test("a __KIND__ gets a ConfigMap with its message and becomes Ready", async (t) => {
  const namespace = await testNamespace(running.client, t);
  await create(namespace, "Hello, world");
  await eventually(
    async () => {
      const obj = await running.client.get(__KIND__, "hello", { namespace });
      return obj.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
    },
    { what: "the __KIND__ to be Ready" },
  );
  const cm = await running.client.get(ConfigMap, "hello-message", { namespace });
  assert.equal(cm.data?.message, "Hello, world");
});

test("a deleted ConfigMap is put back", async (t) => {
  const namespace = await testNamespace(running.client, t);
  await create(namespace, "Hello, world");
  await eventually(() => running.client.get(ConfigMap, "hello-message", { namespace }), {
    what: "the ConfigMap",
  });
  await running.client.delete(ConfigMap, "hello-message", { namespace });
  const back = await eventually(
    async () => (await running.client.get(ConfigMap, "hello-message", { namespace })).data?.message,
    { what: "the ConfigMap to come back" },
  );
  assert.equal(back, "Hello, world");
});

test("the webhook warns when a __KIND__'s ConfigMap name is taken by someone else's", async (t) => {
  const namespace = await testNamespace(running.client, t);
  await running.client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "hello-message", namespace },
    data: { note: "someone else's" },
  });
  // The webhook reads the operator's cache: wait until the ConfigMap is in it.
  await eventually(
    async () => (await running.manager.cache.reader(ConfigMap)).get("hello-message", namespace),
    { what: "the operator's cache to hold the ConfigMap" },
  );
  const warnings: string[] = [];
  const client = new Client(await loadKubeconfig({ kubeconfig: running.kubeconfig }), {
    onWarning: (warning) => warnings.push(warning),
  });
  t.after(() => client.close());
  await client.create(__KIND__, helloIn(namespace, "Hello, world"));
  assert.equal(warnings.length, 1, `one warning: ${warnings.join(" | ")}`);
  assert.match(warnings[0] ?? "", /ConfigMap hello-message exists and is not a __KIND__'s/);
  await client.create(__KIND__, helloIn(namespace, "Hello, world", "hello-again"));
  assert.equal(warnings.length, 1, "another name is admitted without a warning");

  // The __KIND__ waits, not Ready, saying why; once that ConfigMap goes, it publishes its own.
  await eventually(
    async () =>
      conditionOf(await running.client.get(__KIND__, "hello", { namespace }), "ConfigMapReady")?.reason ===
      "ConfigMapTaken",
    {
      what: "the __KIND__ to report its ConfigMap's name taken",
    },
  );
  await running.client.delete(ConfigMap, "hello-message", { namespace });
  await eventually(
    async () =>
      conditionOf(await running.client.get(__KIND__, "hello", { namespace }), "Ready")?.status === "True",
    {
      what: "the __KIND__ to be Ready once the other ConfigMap is gone",
    },
  );
});

/** The condition of this type of `obj`'s status. */
function conditionOf(
  obj: { status?: { conditions?: { type: string; status: string; reason?: string }[] } },
  type: string,
) {
  return obj.status?.conditions?.find((c) => c.type === type);
}
