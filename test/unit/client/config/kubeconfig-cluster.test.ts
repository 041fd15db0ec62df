import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import {
  KubeconfigError,
  KubeconfigUnsupportedError,
  loadKubeconfig,
} from "../../../../src/client/config/index.ts";
import { b64, pem, put, singleUser, tempDir } from "./helpers.ts";

async function loadCluster(
  t: TestContext,
  cluster: Record<string, unknown>,
  files: Record<string, string> = {},
) {
  const dir = await tempDir(t);
  for (const [name, content] of Object.entries(files)) await put(join(dir, name), content);
  const file = await put(join(dir, "config"), singleUser({}, cluster));
  return { file, dir, load: () => loadKubeconfig({ kubeconfig: file, env: {} }) };
}

test("server keeps its path prefix and loses trailing slashes", async (t) => {
  const { load } = await loadCluster(t, { server: "https://rancher.example/k8s/clusters/c-1//" });
  assert.equal((await load()).server, "https://rancher.example/k8s/clusters/c-1");
});

test("without CA settings the TLS settings are the secure defaults", async (t) => {
  const { load } = await loadCluster(t, {});
  assert.deepEqual((await load()).tls, { insecure: false });
});

test("certificate-authority reads a file; certificate-authority-data decodes inline base64 and wins", async (t) => {
  const fromFile = await loadCluster(t, { "certificate-authority": "ca.crt" }, { "ca.crt": pem.ca });
  assert.equal((await fromFile.load()).tls.ca, pem.ca);

  const both = await loadCluster(
    t,
    { "certificate-authority": "ca.crt", "certificate-authority-data": b64(pem.ca2) },
    { "ca.crt": pem.ca },
  );
  assert.equal((await both.load()).tls.ca, pem.ca2);
});

test("base64 data may be wrapped over several lines", async (t) => {
  const wrapped = b64(pem.ca).replace(/(.{16})/g, "$1\n");
  const { load } = await loadCluster(t, { "certificate-authority-data": wrapped });
  assert.equal((await load()).tls.ca, pem.ca);
});

test("insecure-skip-tls-verify and tls-server-name reach the TLS settings", async (t) => {
  const { load } = await loadCluster(t, {
    "insecure-skip-tls-verify": true,
    "tls-server-name": "kubernetes.default",
  });
  assert.deepEqual((await load()).tls, { insecure: true, servername: "kubernetes.default" });
});

test("insecure-skip-tls-verify together with a CA is rejected", async (t) => {
  const { load, file } = await loadCluster(t, {
    "insecure-skip-tls-verify": true,
    "certificate-authority-data": b64(pem.ca),
  });
  await assert.rejects(load(), (err: unknown) => {
    assert.ok(err instanceof KubeconfigError);
    assert.equal(err.file, file);
    assert.match(
      err.message,
      /clusters\["c"\]\.cluster\.insecure-skip-tls-verify is true while a certificate-authority/,
    );
    return true;
  });
});

test("proxy-url is reported as not supported yet", async (t) => {
  const { load, file } = await loadCluster(t, { "proxy-url": "http://proxy.example:3128" });
  await assert.rejects(load(), (err: unknown) => {
    assert.ok(err instanceof KubeconfigUnsupportedError);
    assert.equal(err.code, "KL_KUBECONFIG_UNSUPPORTED");
    assert.equal(
      err.message.split(";")[0],
      `kubeconfig ${file}: clusters["c"].cluster.proxy-url is set (http://proxy.example:3128), but proxies are not supported yet`,
    );
    return true;
  });
});

test("a missing or malformed server is an error naming the field", async (t) => {
  const missing = await loadCluster(t, { server: null });
  await assert.rejects(
    missing.load(),
    /clusters\["c"\]\.cluster\.server is not set; set it to the API server's URL/,
  );
  const malformed = await loadCluster(t, { server: "c.example:6443" });
  await assert.rejects(
    malformed.load(),
    /clusters\["c"\]\.cluster\.server is "c\.example:6443", not an http\(s\) URL/,
  );
});

test("the identity differs between clusters and is equal for equal settings", async (t) => {
  const a = await (await loadCluster(t, {})).load();
  const again = await (await loadCluster(t, {})).load();
  const b = await (await loadCluster(t, { server: "https://other.example:6443" })).load();
  const c = await (await loadCluster(t, { "certificate-authority-data": b64(pem.ca) })).load();
  const [ia, iagain, ib, ic] = await Promise.all(
    [a, again, b, c].map(async (x) => (await x.credentials.get()).identity),
  );
  assert.equal(ia, iagain);
  assert.equal(new Set([ia, ib, ic]).size, 3);
});
