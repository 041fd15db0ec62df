import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { InClusterError, KubeconfigNotFoundError, loadConfig } from "../../../../src/client/config/index.ts";
import { kubeconfig, pem, put, tempDir } from "./helpers.ts";

const podEnv = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

/** A home with `~/.kube/config` and a service-account directory, both usable. */
async function world(t: TestContext) {
  const home = await tempDir(t);
  const kubeconfigPath = await put(
    join(home, ".kube", "config"),
    kubeconfig({
      current: "x",
      clusters: { c: { server: "https://laptop.example" } },
      contexts: { x: { cluster: "c" } },
    }),
  );
  const serviceAccountDir = join(home, "sa");
  await put(join(serviceAccountDir, "token"), "t");
  await put(join(serviceAccountDir, "ca.crt"), pem.ca);
  return { home, kubeconfigPath, serviceAccountDir };
}

test("in a pod (service host set, token present) loadConfig uses the service account", async (t) => {
  const { home, serviceAccountDir } = await world(t);
  const conn = await loadConfig({ env: podEnv, homeDir: home, serviceAccountDir });
  assert.equal(conn.source, "in-cluster");
  assert.equal(conn.server, "https://10.96.0.1:443");
});

test("outside a pod loadConfig uses the kubeconfig", async (t) => {
  const { home, serviceAccountDir } = await world(t);
  const noHost = await loadConfig({ env: {}, homeDir: home, serviceAccountDir });
  assert.equal(noHost.source, "kubeconfig");
  const noToken = await loadConfig({ env: podEnv, homeDir: home, serviceAccountDir: join(home, "missing") });
  assert.equal(noToken.source, "kubeconfig");
  assert.equal(noToken.server, "https://laptop.example");
});

test("explicit kubeconfig paths win over in-cluster detection", async (t) => {
  const { home, kubeconfigPath, serviceAccountDir } = await world(t);
  const conn = await loadConfig({
    kubeconfig: kubeconfigPath,
    env: podEnv,
    homeDir: home,
    serviceAccountDir,
  });
  assert.equal(conn.source, "kubeconfig");
});

test("source forces one loader", async (t) => {
  const { home, serviceAccountDir } = await world(t);
  const forcedKubeconfig = await loadConfig({
    source: "kubeconfig",
    env: podEnv,
    homeDir: home,
    serviceAccountDir,
  });
  assert.equal(forcedKubeconfig.source, "kubeconfig");
  await assert.rejects(
    loadConfig({ source: "in-cluster", env: {}, homeDir: home, serviceAccountDir }),
    InClusterError,
  );
});

test("with neither a pod nor a kubeconfig the error suggests `kubeloop cluster up`", async (t) => {
  const home = await tempDir(t);
  await assert.rejects(loadConfig({ env: {}, homeDir: home, serviceAccountDir: home }), (err: unknown) => {
    assert.ok(err instanceof KubeconfigNotFoundError);
    assert.match(err.message, /kubeloop cluster up/);
    return true;
  });
});
