/**
 * End-to-end tests on a real local control plane (etcd, kube-apiserver, controller-manager,
 * scheduler, kwok) started by kubeloop/cluster: the operator runs in this process against it.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Client, ConfigMap, Manager, Namespace } from "kubeloop";
import { loadKubeconfig } from "kubeloop/client";
import { type Cluster, startCluster } from "kubeloop/cluster";
import { crdYaml } from "kubeloop/schema";
import { __KIND__ } from "../src/api.ts";
import operator from "../src/operator.ts";

let cluster: Cluster;
let client: Client;
const stop = new AbortController();
let running: Promise<void>;

/** Polls `check` until it returns a truthy value, or fails after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T> | T, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(check)
      .catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

before(async () => {
  cluster = await startCluster();
  client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }));
  const crd = await cluster.kubectl(["apply", "--server-side", "-f", "-"], {
    input: crdYaml(operator.kinds),
  });
  assert.equal(crd.code, 0, crd.stderr);
  await cluster.kubectl(["wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"]);
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" } });
  const manager = await Manager.create({ name: operator.name, client, metrics: false, health: false });
  await operator.setup(manager);
  running = manager.start(stop.signal);
  await eventually(() => manager.ready, "the operator's caches to sync");
});

after(async () => {
  stop.abort();
  await running;
  await client.close();
  await cluster.stop();
});

test("a __KIND__ gets a ConfigMap with its message and becomes Ready", async () => {
  await client.create(__KIND__, {
    apiVersion: __KIND__.apiVersion,
    kind: __KIND__.kind,
    metadata: { name: "hello", namespace: "demo" },
    spec: { message: "Hello, world" },
  });
  const ready = await cluster.kubectl([
    "wait",
    "-n",
    "demo",
    "--for=condition=Ready",
    `${__KIND__.plural}/hello`,
    "--timeout=60s",
  ]);
  assert.equal(ready.code, 0, ready.stderr);
  const cm = await client.get(ConfigMap, "hello-message", { namespace: "demo" });
  assert.equal(cm.data?.message, "Hello, world");
});

test("a deleted ConfigMap is put back", async () => {
  await client.delete(ConfigMap, "hello-message", { namespace: "demo" });
  const back = await eventually(
    async () => (await client.get(ConfigMap, "hello-message", { namespace: "demo" })).data?.message,
    "the ConfigMap to come back",
  );
  assert.equal(back, "Hello, world");
});
