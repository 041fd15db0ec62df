import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { type ClusterConnection, loadKubeconfig } from "../../../../src/client/config/index.ts";
import { FakeClock } from "../../../../src/clock/index.ts";
import {
  b64,
  execCredential,
  FakePlugin,
  type PluginBehaviour,
  pem,
  put,
  singleUser,
  tempDir,
} from "./helpers.ts";

const start = Date.UTC(2030, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

interface Setup {
  plugin: FakePlugin;
  clock: FakeClock;
  conn: ClusterConnection;
}

/** A kubeconfig whose user runs `./plugin` from the kubeconfig's directory. */
async function setup(
  t: TestContext,
  behaviour: PluginBehaviour,
  exec: Record<string, unknown> = {},
  more: { user?: Record<string, unknown>; cluster?: Record<string, unknown> } = {},
): Promise<Setup> {
  const dir = await tempDir(t);
  const plugin = await new FakePlugin(dir).install(behaviour);
  const execConfig = {
    apiVersion: "client.authentication.k8s.io/v1",
    command: "./plugin",
    interactiveMode: "Never",
    ...exec,
  };
  const file = await put(join(dir, "config"), singleUser({ exec: execConfig, ...more.user }, more.cluster));
  const clock = new FakeClock(start);
  const env = { PATH: process.env.PATH, T_BASE: "from-env", T_OVERRIDDEN: "from-env" };
  const conn = await loadKubeconfig({ kubeconfig: file, env, clock, execTimeoutMs: 5_000 });
  return { plugin, clock, conn };
}

test("the plugin gets args, env and KUBERNETES_EXEC_INFO, and its token becomes the bearer header", async (t) => {
  const { plugin, conn } = await setup(
    t,
    { credential: execCredential({ token: "tok-1" }) },
    {
      args: ["get-token", "--cluster", "c"],
      env: [
        { name: "T_REGION", value: "eu-west-1" },
        { name: "T_OVERRIDDEN", value: "from-kubeconfig" },
      ],
    },
  );
  const auth = await conn.credentials.get();
  assert.deepEqual(auth.headers, { authorization: "Bearer tok-1" });
  const [call] = await plugin.calls();
  assert.deepEqual(call?.argv, ["get-token", "--cluster", "c"]);
  assert.deepEqual(call?.env, { T_BASE: "from-env", T_OVERRIDDEN: "from-kubeconfig", T_REGION: "eu-west-1" });
  assert.deepEqual(call?.info, {
    apiVersion: "client.authentication.k8s.io/v1",
    kind: "ExecCredential",
    spec: { interactive: false },
  });
});

test("provideClusterInfo passes spec.cluster (v1beta1)", async (t) => {
  const v1beta1 = "client.authentication.k8s.io/v1beta1";
  const { plugin, conn } = await setup(
    t,
    { credential: execCredential({ token: "t" }, v1beta1) },
    { apiVersion: v1beta1, provideClusterInfo: true, interactiveMode: undefined },
    {
      cluster: {
        "certificate-authority-data": b64(pem.ca),
        "tls-server-name": "api.internal",
        extensions: [{ name: "client.authentication.k8s.io/exec", extension: { audience: "kube" } }],
      },
    },
  );
  await conn.credentials.get();
  const [call] = await plugin.calls();
  assert.deepEqual(call?.info, {
    apiVersion: v1beta1,
    kind: "ExecCredential",
    spec: {
      interactive: false,
      cluster: {
        server: "https://c.example:6443",
        "tls-server-name": "api.internal",
        "certificate-authority-data": b64(pem.ca),
        config: { audience: "kube" },
      },
    },
  });
});

test("credentials are cached until shortly before expirationTimestamp", async (t) => {
  const expiry = start + 10 * 60_000;
  const { plugin, clock, conn } = await setup(t, {
    credential: execCredential({ token: "early", expirationTimestamp: iso(expiry) }),
  });
  const first = await conn.credentials.get();
  await plugin.behave({
    credential: execCredential({ token: "late", expirationTimestamp: iso(expiry + 600_000) }),
  });
  clock.advance(expiry - start - 31_000);
  assert.equal(await conn.credentials.get(), first);
  assert.equal((await plugin.calls()).length, 1);

  clock.advance(2_000);
  assert.equal((await conn.credentials.get()).headers.authorization, "Bearer late");
  assert.equal((await plugin.calls()).length, 2);
});

test("without an expiry the credential stays until invalidate(); a stale snapshot does not invalidate", async (t) => {
  const { plugin, clock, conn } = await setup(t, { credential: execCredential({ token: "one" }) });
  const one = await conn.credentials.get();
  clock.advance(24 * 3_600_000);
  assert.equal(await conn.credentials.get(), one);

  await plugin.behave({ credential: execCredential({ token: "two" }) });
  conn.credentials.invalidate(one);
  const two = await conn.credentials.get();
  assert.equal(two.headers.authorization, "Bearer two");

  conn.credentials.invalidate(one);
  assert.equal(await conn.credentials.get(), two);
  assert.equal((await plugin.calls()).length, 2);
});

test("the plugin first runs on get(), and concurrent callers share one run", async (t) => {
  const { plugin, conn } = await setup(t, { credential: execCredential({ token: "t" }) });
  assert.equal((await plugin.calls()).length, 0);
  const all = await Promise.all([conn.credentials.get(), conn.credentials.get(), conn.credentials.get()]);
  assert.equal(new Set(all).size, 1);
  assert.equal((await plugin.calls()).length, 1);
});

test("a client certificate from the plugin replaces the kubeconfig's and changes the identity", async (t) => {
  const { plugin, conn } = await setup(
    t,
    { credential: execCredential({ clientCertificateData: pem.cert2, clientKeyData: pem.key2 }) },
    {},
    { user: { "client-certificate-data": b64(pem.cert), "client-key-data": b64(pem.key) } },
  );
  const first = await conn.credentials.get();
  assert.deepEqual(first.clientCertificate, { cert: pem.cert2, key: pem.key2 });
  assert.deepEqual(first.headers, {});

  await plugin.behave({
    credential: execCredential({ clientCertificateData: pem.cert, clientKeyData: pem.key }),
  });
  conn.credentials.invalidate();
  const second = await conn.credentials.get();
  assert.deepEqual(second.clientCertificate, { cert: pem.cert, key: pem.key });
  assert.notEqual(second.identity, first.identity);

  conn.credentials.invalidate();
  const third = await conn.credentials.get();
  assert.equal(third, second, "the same output again keeps the same snapshot");
});

test("a failed run is not cached: the next get() runs the plugin again", async (t) => {
  const { plugin, conn } = await setup(t, { exit: 1, stderr: "not logged in" });
  await assert.rejects(conn.credentials.get(), /exited with code 1/);
  await plugin.behave({ credential: execCredential({ token: "ok" }) });
  assert.equal((await conn.credentials.get()).headers.authorization, "Bearer ok");
});
