import assert from "node:assert/strict";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { KubeconfigNotFoundError, loadKubeconfig } from "../../../../src/client/config/index.ts";
import { b64, kubeconfig, pem, put, tempDir } from "./helpers.ts";

const server = (name: string) => ({ server: `https://${name}.example:6443` });

test("KUBECONFIG files merge: first definition of each name wins, current-context from the first file setting it", async (t) => {
  const dir = await tempDir(t);
  const first = await put(
    join(dir, "a", "config"),
    kubeconfig({
      clusters: { shared: server("from-a") },
      users: { alice: { token: "alice-a" } },
      contexts: { dev: { cluster: "shared", user: "alice", namespace: "team-a" } },
    }),
  );
  const second = await put(
    join(dir, "b", "config"),
    kubeconfig({
      current: "dev",
      clusters: { shared: server("from-b"), other: server("other") },
      users: { alice: { token: "alice-b" }, bob: { token: "bob-b" } },
      contexts: { dev: { cluster: "other", user: "bob" }, prod: { cluster: "other", user: "bob" } },
    }),
  );
  const third = await put(join(dir, "c", "config"), kubeconfig({ current: "prod" }));
  const env = { KUBECONFIG: [first, second, third].join(delimiter) };

  const conn = await loadKubeconfig({ env, homeDir: dir });
  assert.equal(conn.contextName, "dev");
  assert.equal(conn.server, "https://from-a.example:6443");
  assert.equal(conn.namespace, "team-a");
  assert.equal((await conn.credentials.get()).headers.authorization, "Bearer alice-a");

  const prod = await loadKubeconfig({ env, homeDir: dir, context: "prod" });
  assert.equal(prod.server, "https://other.example:6443");
  assert.equal((await prod.credentials.get()).headers.authorization, "Bearer bob-b");
});

test("missing files in KUBECONFIG are skipped", async (t) => {
  const dir = await tempDir(t);
  const real = await put(
    join(dir, "real"),
    kubeconfig({ current: "x", clusters: { c: server("real") }, contexts: { x: { cluster: "c" } } }),
  );
  const env = { KUBECONFIG: ["", join(dir, "missing"), real].join(delimiter) };
  const conn = await loadKubeconfig({ env, homeDir: dir });
  assert.equal(conn.server, "https://real.example:6443");
});

test("a KUBECONFIG where no file exists is an error naming every path", async (t) => {
  const dir = await tempDir(t);
  const env = { KUBECONFIG: [join(dir, "one"), join(dir, "two")].join(delimiter) };
  const err = await loadKubeconfig({ env, homeDir: dir }).catch((e: unknown) => e);
  assert.ok(err instanceof KubeconfigNotFoundError);
  assert.equal(err.code, "KL_KUBECONFIG_NOT_FOUND");
  assert.deepEqual(err.searched, [join(dir, "one"), join(dir, "two")]);
  assert.match(err.message, /none of the files in KUBECONFIG exists/);
  assert.match(err.message, /Set KUBECONFIG .* `kubeloop cluster up`/);
});

test("without KUBECONFIG the default is ~/.kube/config", async (t) => {
  const home = await tempDir(t);
  await put(
    join(home, ".kube", "config"),
    kubeconfig({ current: "x", clusters: { c: server("home") }, contexts: { x: { cluster: "c" } } }),
  );
  const conn = await loadKubeconfig({ env: {}, homeDir: home });
  assert.equal(conn.server, "https://home.example:6443");
  assert.equal(conn.source, "kubeconfig");
});

test("no ~/.kube/config and no KUBECONFIG says where it looked", async (t) => {
  const home = await tempDir(t);
  await assert.rejects(loadKubeconfig({ env: {}, homeDir: home }), (err: unknown) => {
    assert.ok(err instanceof KubeconfigNotFoundError);
    assert.ok(err.message.includes(join(home, ".kube", "config")));
    assert.match(err.message, /Set KUBECONFIG/);
    return true;
  });
});

test("explicit paths override KUBECONFIG and must all exist", async (t) => {
  const dir = await tempDir(t);
  const fromEnv = await put(
    join(dir, "env"),
    kubeconfig({ current: "x", clusters: { c: server("env") }, contexts: { x: { cluster: "c" } } }),
  );
  const a = await put(join(dir, "a"), kubeconfig({ clusters: { c: server("explicit") } }));
  const b = await put(join(dir, "b"), kubeconfig({ current: "y", contexts: { y: { cluster: "c" } } }));
  const conn = await loadKubeconfig({ kubeconfig: [a, b], env: { KUBECONFIG: fromEnv }, homeDir: dir });
  assert.equal(conn.server, "https://explicit.example:6443");
  assert.equal(conn.contextName, "y");

  await assert.rejects(
    loadKubeconfig({ kubeconfig: [a, join(dir, "nope")], env: {}, homeDir: dir }),
    (err: unknown) => {
      assert.ok(err instanceof KubeconfigNotFoundError);
      assert.deepEqual(err.searched, [join(dir, "nope")]);
      assert.match(err.message, /Pass the path of an existing file/);
      return true;
    },
  );
});

test('the context option overrides current-context; namespace defaults to "default"', async (t) => {
  const dir = await tempDir(t);
  const file = await put(
    join(dir, "config"),
    kubeconfig({
      current: "a",
      clusters: { ca: server("a"), cb: server("b") },
      contexts: { a: { cluster: "ca", namespace: "ns-a" }, b: { cluster: "cb" } },
    }),
  );
  const current = await loadKubeconfig({ kubeconfig: file, env: {} });
  assert.deepEqual(
    [current.contextName, current.server, current.namespace],
    ["a", "https://a.example:6443", "ns-a"],
  );
  const chosen = await loadKubeconfig({ kubeconfig: file, env: {}, context: "b" });
  assert.deepEqual(
    [chosen.contextName, chosen.server, chosen.namespace],
    ["b", "https://b.example:6443", "default"],
  );
});

test("relative paths resolve against the directory of the file that defines the entry", async (t) => {
  const dir = await tempDir(t);
  await put(join(dir, "certs", "ca.crt"), pem.ca);
  await put(join(dir, "other", "pki", "client.crt"), pem.cert);
  await put(join(dir, "other", "pki", "client.key"), pem.key);
  const main = await put(
    join(dir, "config"),
    kubeconfig({
      current: "x",
      clusters: { c: { ...server("c"), "certificate-authority": "certs/ca.crt" } },
      contexts: { x: { cluster: "c", user: "u" } },
    }),
  );
  const other = await put(
    join(dir, "other", "config"),
    kubeconfig({
      users: { u: { "client-certificate": "pki/client.crt", "client-key": "./pki/client.key" } },
    }),
  );
  const conn = await loadKubeconfig({ kubeconfig: [main, other], env: {} });
  assert.equal(conn.tls.ca, pem.ca);
  assert.deepEqual((await conn.credentials.get()).clientCertificate, { cert: pem.cert, key: pem.key });
});

test("an empty file merges as an empty config", async (t) => {
  const dir = await tempDir(t);
  const empty = await put(join(dir, "empty"), "");
  const real = await put(
    join(dir, "real"),
    kubeconfig({
      current: "x",
      clusters: { c: { ...server("c"), "certificate-authority-data": b64(pem.ca) } },
      contexts: { x: { cluster: "c" } },
    }),
  );
  const conn = await loadKubeconfig({ kubeconfig: [empty, real], env: {} });
  assert.equal(conn.tls.ca, pem.ca);
});
