import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { InClusterError, loadInCluster } from "../../../../src/client/config/index.ts";
import { FakeClock } from "../../../../src/clock/index.ts";
import { corruptPem, pem, put, tempDir } from "./helpers.ts";

const podEnv = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

async function serviceAccount(t: TestContext, files: Record<string, string>) {
  const dir = await tempDir(t);
  for (const [name, content] of Object.entries(files)) await put(join(dir, name), content);
  return dir;
}

test("loads server, CA, namespace and token from the service account", async (t) => {
  const dir = await serviceAccount(t, { token: "sa-token\n", "ca.crt": pem.ca, namespace: "operators\n" });
  const conn = await loadInCluster({ env: podEnv, serviceAccountDir: dir, clock: new FakeClock() });
  assert.equal(conn.server, "https://10.96.0.1:443");
  assert.equal(conn.namespace, "operators");
  assert.equal(conn.source, "in-cluster");
  assert.equal(conn.contextName, undefined);
  assert.deepEqual(conn.tls, { ca: pem.ca, insecure: false });
  const auth = await conn.credentials.get();
  assert.deepEqual(auth.headers, { authorization: "Bearer sa-token" });
  assert.equal(auth.clientCertificate, undefined);
});

test('an IPv6 service host is bracketed; a missing or blank namespace file means "default"', async (t) => {
  const dir = await serviceAccount(t, { token: "t", "ca.crt": pem.ca });
  const env = { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "6443" };
  const conn = await loadInCluster({ env, serviceAccountDir: dir });
  assert.equal(conn.server, "https://[fd00::1]:6443");
  assert.equal(conn.namespace, "default");
  await writeFile(join(dir, "namespace"), "\n");
  assert.equal((await loadInCluster({ env, serviceAccountDir: dir })).namespace, "default");
});

test("the rotating token is re-read after 60 s or after invalidate(); the identity stays", async (t) => {
  const dir = await serviceAccount(t, { token: "gen-1", "ca.crt": pem.ca });
  const clock = new FakeClock(1_000);
  const creds = (await loadInCluster({ env: podEnv, serviceAccountDir: dir, clock })).credentials;
  const first = await creds.get();

  await writeFile(join(dir, "token"), "gen-2");
  clock.advance(30_000);
  assert.equal(await creds.get(), first);
  clock.advance(30_000);
  const second = await creds.get();
  assert.equal(second.headers.authorization, "Bearer gen-2");
  assert.equal(second.identity, first.identity);

  await writeFile(join(dir, "token"), "gen-3");
  creds.invalidate(first);
  assert.equal(await creds.get(), second, "invalidating a stale snapshot changes nothing");
  creds.invalidate(second);
  assert.equal((await creds.get()).headers.authorization, "Bearer gen-3");
});

test("a token that vanishes mid-rotation keeps the last good one", async (t) => {
  const dir = await serviceAccount(t, { token: "good", "ca.crt": pem.ca });
  const clock = new FakeClock();
  const creds = (await loadInCluster({ env: podEnv, serviceAccountDir: dir, clock })).credentials;
  await rm(join(dir, "token"));
  clock.advance(60_000);
  assert.equal((await creds.get()).headers.authorization, "Bearer good");
  await writeFile(join(dir, "token"), "fresh");
  creds.invalidate();
  assert.equal((await creds.get()).headers.authorization, "Bearer fresh");
});

test("outside a pod the error says why and what to do", async (t) => {
  const dir = await serviceAccount(t, { token: "t", "ca.crt": pem.ca });
  await assert.rejects(loadInCluster({ env: {}, serviceAccountDir: dir }), (err: unknown) => {
    assert.ok(err instanceof InClusterError);
    assert.equal(err.code, "KL_IN_CLUSTER");
    assert.match(
      err.message,
      /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set.*load a kubeconfig/,
    );
    return true;
  });
});

test("a missing or empty token, or a missing or bad CA, names the file", async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { "ca.crt": pem.ca },
      /the service-account token \S+\/token cannot be read \(ENOENT\); check that the pod mounts/,
    ],
    [{ token: " \n", "ca.crt": pem.ca }, /the service-account token \S+\/token is empty/],
    [{ token: "t" }, /the cluster CA \S+\/ca\.crt cannot be read \(ENOENT\)/],
    [{ token: "t", "ca.crt": "garbage" }, /the cluster CA \S+\/ca\.crt does not hold a PEM certificate/],
    [
      { token: "t", "ca.crt": pem.ca + corruptPem.cert },
      /the cluster CA \S+\/ca\.crt holds a PEM certificate that cannot be parsed \(.+\); check that the pod mounts/,
    ],
  ];
  for (const [files, message] of cases) {
    const dir = await serviceAccount(t, files);
    await assert.rejects(loadInCluster({ env: podEnv, serviceAccountDir: dir }), (err: unknown) => {
      assert.ok(err instanceof InClusterError);
      assert.ok(err.message.includes(dir), err.message);
      assert.match(err.message, message);
      return true;
    });
  }
});
