/**
 * MyProxy's two versions through the apiserver: v1alpha1 objects read back in v1beta1 and in
 * v1alpha1 unchanged, converted by the operator run as deployed (test/e2e/fixtures/deployed.ts) on
 * a cluster of its own; v1beta1's resources survive a v1alpha1 client's update (the run serves the
 * conversion webhook, test/run.ts); and the storage version migration from v1alpha1 on a cluster
 * of its own (the CRD is cluster-wide, and that test installs MyProxy's first release).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client, Deployment, Namespace } from "kubeloop";
import { CustomResourceDefinition, resourceType } from "kubeloop/api";
import { loadKubeconfig } from "kubeloop/client";
import { startCluster } from "kubeloop/cluster";
import { crdFor } from "kubeloop/schema";
import { serveConversions } from "kubeloop/testing";
import { CONVERSION_DATA_ANNOTATION } from "kubeloop/webhook";
import { deploy, ownCluster } from "../../../../test/e2e/fixtures/deployed.ts";
import { operatorModuleOf } from "../../../../test/e2e/fixtures/emit.ts";
import { onCleanup } from "../../../../test/e2e/support.ts";
import { MyProxy, type MyProxyObject, type MyProxyV1alpha1Object } from "../../api.ts";
import operator from "../../operator.ts";
import {
  eventually,
  installCrds as installMyProxyCrds,
  kubectl,
  testClient,
  testNamespace,
} from "./support.ts";

const MyProxyV1alpha1 = resourceType<MyProxyV1alpha1Object>(
  `${MyProxy.group}/v1alpha1`,
  "MyProxy",
  MyProxy.plural,
  true,
);
const image = "nginx:1.27.3-alpine";

function v1alpha1(
  namespace: string,
  name: string,
  spec: MyProxyV1alpha1Object["spec"],
): MyProxyV1alpha1Object {
  return { apiVersion: MyProxyV1alpha1.apiVersion, kind: "MyProxy", metadata: { name, namespace }, spec };
}

test("a v1alpha1 MyProxy reads back in v1beta1 and in v1alpha1 unchanged, and runs as written, the operator run as deployed", async (t) => {
  // A control plane of its own: the operator, as deployed, serves MyProxy's conversion (cluster-wide) through its Service.
  const kubeconfig = await ownCluster(t);
  const module = operatorModuleOf(new URL("../../operator.ts", import.meta.url).href);
  // The generated default, cert-manager, needs cert-manager: the operator makes its certificate.
  const operator = await deploy(t, { module, generate: ["--webhook-certs=self"], kubeconfig });
  await (await operator.startReplica()).ready();
  const client = operator.client;
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: "edge" } });
  const old = v1alpha1("edge", "old", { replicas: 1, image, port: 8080 });
  // A ready replica gets its endpoint next, which the apiserver then has to see: dry runs convert
  // through the Service until it does, as a client would retry "no endpoints available".
  await eventually(() => client.create(MyProxyV1alpha1, old, { dryRun: true }), {
    what: "the apiserver to convert a MyProxy through the operator's webhook Service",
    timeoutMs: 60_000,
  });
  await client.create(MyProxyV1alpha1, old);

  const asV1beta1 = await client.get(MyProxy, "old", { namespace: "edge" });
  assert.deepEqual(asV1beta1.spec, { replicas: 1, nginx: { image, port: 8080 } });
  const asV1alpha1 = await client.get(MyProxyV1alpha1, "old", { namespace: "edge" });
  assert.deepEqual(asV1alpha1.spec, { replicas: 1, image, port: 8080 });
  assert.equal(asV1alpha1.metadata.annotations, undefined, "nothing stashed: v1alpha1 had every field");

  // The operator (on v1beta1) runs nginx as the v1alpha1 object said.
  const container = await eventually(
    async () =>
      (await client.get(Deployment, "old", { namespace: "edge" })).spec?.template.spec?.containers[0],
    { what: "the Deployment of the v1alpha1 MyProxy" },
  );
  assert.deepEqual(container.ports, [{ name: "http", containerPort: 8080, protocol: "TCP" }]);
});

test("v1beta1's resources survive a v1alpha1 client's update, kept in an annotation it sees", async (t) => {
  await installMyProxyCrds();
  const ns = await testNamespace(t);
  const client = await testClient();
  const resources = { requests: { cpu: "50m", memory: "32Mi" }, limits: { memory: "64Mi" } };
  const proxy: MyProxyObject = {
    apiVersion: MyProxy.apiVersion,
    kind: MyProxy.kind,
    metadata: { name: "sized", namespace: ns },
    spec: { replicas: 0, nginx: { image, port: 80, resources } },
  };
  await client.create(MyProxy, proxy);

  const old = await client.get(MyProxyV1alpha1, "sized", { namespace: ns });
  assert.deepEqual(old.spec, { replicas: 0, image, port: 80 });
  assert.deepEqual(JSON.parse(old.metadata.annotations?.[CONVERSION_DATA_ANNOTATION] ?? "{}"), {
    "spec.nginx.resources": resources,
  });
  // A v1alpha1 client reads, changes what it knows and writes back: the resources stay.
  await client.update(MyProxyV1alpha1, { ...old, spec: { ...old.spec, replicas: 2, port: 8081 } });
  const updated = await client.get(MyProxy, "sized", { namespace: ns });
  assert.deepEqual(updated.spec, { replicas: 2, nginx: { image, port: 8081, resources } });
  assert.equal(updated.metadata.annotations, undefined, "the annotation is not stored");
  // kubectl, asking for v1alpha1 by name, shows the same.
  const shown = await kubectl([
    "get",
    `myproxies.v1alpha1.${MyProxy.group}`,
    "sized",
    "-n",
    ns,
    "-o",
    "json",
  ]);
  assert.equal(JSON.parse(shown.stdout).spec.port, 8081);
});

/** Runs the kubeloop CLI (from the sources) with `args`; resolves with its exit code and output. */
function kubeloop(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const main = fileURLToPath(new URL("../../../../src/cli/main.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", main, ...args], { env: process.env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code: code ?? 1, stdout, stderr })));
}

test("kubeloop migrate rewrites the objects of MyProxy's first release in v1beta1 and trims storedVersions", async (t) => {
  // Without a watch cache every read decodes what etcd holds: a v1beta1 read of an object stored
  // in v1alpha1 calls the conversion webhook, one stored in v1beta1 does not.
  const cluster = await startCluster({
    apiserverArgs: ["--watch-cache=false"],
    components: { controllerManager: false, scheduler: false, kwok: false },
    report: () => {},
  });
  onCleanup(t, () => cluster.stop());
  const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }));
  onCleanup(t, () => client.close());
  const cli = (command: string) =>
    kubeloop([
      command,
      "--operator",
      fileURLToPath(new URL("../../operator.ts", import.meta.url)),
      "--kubeconfig",
      cluster.kubeconfigPath,
    ]);

  // MyProxy's first release: v1alpha1 alone, stored; three objects written then.
  const current = crdFor(MyProxy);
  const first = current.spec.versions.find((v) => v.name === "v1alpha1");
  assert.ok(first);
  const firstCrd = { ...current, spec: { ...current.spec, versions: [{ ...first, storage: true }] } };
  await client.apply(CustomResourceDefinition, firstCrd, { force: true });
  await eventually(async () => {
    const crd = await client.get(CustomResourceDefinition, current.metadata.name);
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  });
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: "edge" } });
  const written = [1, 2, 3].map((i) => v1alpha1("edge", `p${i}`, { replicas: i, image, port: 8000 + i }));
  for (const proxy of written) await client.create(MyProxyV1alpha1, proxy);

  // The upgrade: v1beta1 stored, v1alpha1 converted by the webhook.
  let host = await serveConversions(client, [operator]);
  const upgraded = await client.get(CustomResourceDefinition, current.metadata.name);
  assert.deepEqual(upgraded.status?.storedVersions, ["v1alpha1", "v1beta1"]);
  const install = await cli("install");
  assert.match(
    install.stdout,
    /objects may still be stored in v1alpha1, v1beta1: once the operator serves, `kubeloop migrate` rewrites them in v1beta1/,
  );

  // The webhook down: reading v1beta1 needs it, and migrate says so, changing nothing.
  await host.stop();
  const refused = await client.list(MyProxy, { namespace: "edge" }).catch((err: Error) => err);
  assert.ok(refused instanceof Error, "a v1beta1 read of v1alpha1-stored objects goes through the webhook");
  assert.match(refused.message, /conversion webhook for proxy\.kubeloop\.dev\/v1alpha1, Kind=MyProxy failed/);
  const failed = await cli("migrate");
  assert.equal(failed.code, 1);
  assert.match(
    failed.stderr,
    /migrating myproxies\.proxy\.kubeloop\.dev to v1beta1: listing its objects in v1beta1 failed: .*conversion webhook/,
  );
  assert.match(failed.stderr, /start the operator that serves it, then migrate again/);
  const untouched = await client.get(CustomResourceDefinition, current.metadata.name);
  assert.deepEqual(untouched.status?.storedVersions, ["v1alpha1", "v1beta1"]);

  host = await serveConversions(client, [operator]);
  const migrated = await cli("migrate");
  assert.equal(migrated.code, 0, migrated.stderr);
  assert.match(
    migrated.stdout,
    /^Migrated myproxies\.proxy\.kubeloop\.dev to v1beta1: 3 objects rewritten; storedVersions v1alpha1, v1beta1 → v1beta1$/m,
  );
  assert.match(
    migrated.stdout,
    /^proxyroutes\.proxy\.kubeloop\.dev: only v1alpha1 is stored, nothing to migrate$/m,
  );
  const trimmed = await client.get(CustomResourceDefinition, current.metadata.name);
  assert.deepEqual(trimmed.status?.storedVersions, ["v1beta1"]);

  // Stored in v1beta1 now: read without the webhook, as written, and once more through it in v1alpha1.
  await host.stop();
  const { items } = await client.list(MyProxy, { namespace: "edge" });
  assert.deepEqual(
    items.map((p) => p.spec),
    written.map(({ spec }) => ({ replicas: spec.replicas, nginx: { image: spec.image, port: spec.port } })),
  );
  host = await serveConversions(client, [operator]);
  onCleanup(t, () => host.stop());
  const back = await client.list(MyProxyV1alpha1, { namespace: "edge" });
  assert.deepEqual(
    back.items.map((p) => p.spec),
    written.map((p) => p.spec),
  );
  const again = await cli("migrate");
  assert.match(
    again.stdout,
    /^myproxies\.proxy\.kubeloop\.dev: only v1beta1 is stored, nothing to migrate$/m,
  );
});
