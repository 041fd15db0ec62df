import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { KubeconfigError, loadKubeconfig } from "../../../../src/client/config/index.ts";
import { FakeClock } from "../../../../src/clock/index.ts";
import { b64, pem, put, singleUser, tempDir } from "./helpers.ts";

async function loadUser(t: TestContext, user: Record<string, unknown>, files: Record<string, string> = {}) {
  const dir = await tempDir(t);
  for (const [name, content] of Object.entries(files)) await put(join(dir, name), content);
  const file = await put(join(dir, "config"), singleUser(user));
  const clock = new FakeClock(Date.UTC(2030, 0, 1));
  const load = () => loadKubeconfig({ kubeconfig: file, env: {}, clock });
  return { dir, file, clock, load };
}

test("a context without a user is anonymous: no headers, no client certificate", async (t) => {
  const dir = await tempDir(t);
  const file = await put(join(dir, "config"), {
    "current-context": "x",
    clusters: [{ name: "c", cluster: { server: "https://c.example" } }],
    contexts: [{ name: "x", context: { cluster: "c" } }],
  });
  const auth = await (await loadKubeconfig({ kubeconfig: file, env: {} })).credentials.get();
  assert.deepEqual(auth.headers, {});
  assert.equal(auth.clientCertificate, undefined);
});

test("token becomes a bearer authorization header", async (t) => {
  const { load } = await loadUser(t, { token: "abc.def" });
  assert.deepEqual((await (await load()).credentials.get()).headers, { authorization: "Bearer abc.def" });
});

test("username and password become basic auth", async (t) => {
  const { load } = await loadUser(t, { username: "admin", password: "s3cret:x" });
  const auth = await (await load()).credentials.get();
  assert.equal(auth.headers.authorization, `Basic ${b64("admin:s3cret:x")}`);
});

test("tokenFile is read relative to the kubeconfig and re-read at most every 60 s or after invalidate()", async (t) => {
  const { dir, clock, load } = await loadUser(
    t,
    { tokenFile: "token", token: "ignored" },
    { token: "first\n" },
  );
  const creds = (await load()).credentials;
  const first = await creds.get();
  assert.equal(first.headers.authorization, "Bearer first");

  await writeFile(join(dir, "token"), "second");
  clock.advance(59_999);
  assert.equal(await creds.get(), first, "the same snapshot until the recheck interval passes");
  clock.advance(1);
  const second = await creds.get();
  assert.equal(second.headers.authorization, "Bearer second");
  assert.equal(second.identity, first.identity, "a new token does not change the TLS identity");

  await writeFile(join(dir, "token"), "third");
  creds.invalidate();
  assert.equal((await creds.get()).headers.authorization, "Bearer third");
});

test("an unchanged token file keeps the same snapshot after a re-read", async (t) => {
  const { clock, load } = await loadUser(t, { tokenFile: "token" }, { token: "same" });
  const creds = (await load()).credentials;
  const before = await creds.get();
  clock.advance(120_000);
  assert.equal(await creds.get(), before);
});

test("a token file that disappears after a good read keeps the last token", async (t) => {
  const { dir, clock, load } = await loadUser(t, { tokenFile: "token" }, { token: "kept" });
  const creds = (await load()).credentials;
  await rm(join(dir, "token"));
  clock.advance(60_000);
  assert.equal((await creds.get()).headers.authorization, "Bearer kept");
});

test("a missing token file fails at load time, naming the file and field", async (t) => {
  const { dir, file, load } = await loadUser(t, { tokenFile: "nope" });
  await assert.rejects(load(), (err: unknown) => {
    assert.ok(err instanceof KubeconfigError);
    assert.equal(
      err.message,
      `kubeconfig ${file}: users["u"].user.tokenFile names ${join(dir, "nope")}, which cannot be read (ENOENT)`,
    );
    return true;
  });
});

test("client certificate and key come from files or inline data", async (t) => {
  const files = await loadUser(
    t,
    { "client-certificate": "tls.crt", "client-key": "tls.key" },
    { "tls.crt": pem.cert, "tls.key": pem.key },
  );
  const fromFiles = await (await files.load()).credentials.get();
  assert.deepEqual(fromFiles.clientCertificate, { cert: pem.cert, key: pem.key });
  assert.deepEqual(fromFiles.headers, {});

  const inline = await loadUser(t, {
    "client-certificate-data": b64(pem.cert2),
    "client-key-data": b64(pem.key2),
  });
  const fromData = await (await inline.load()).credentials.get();
  assert.deepEqual(fromData.clientCertificate, { cert: pem.cert2, key: pem.key2 });
  assert.notEqual(fromData.identity, fromFiles.identity);
});

test("a client certificate together with a token sends both", async (t) => {
  const { load } = await loadUser(t, {
    token: "t",
    "client-certificate-data": b64(pem.cert),
    "client-key-data": b64(pem.key),
  });
  const auth = await (await load()).credentials.get();
  assert.equal(auth.headers.authorization, "Bearer t");
  assert.equal(auth.clientCertificate?.key, pem.key);
});

test("impersonation: as, repeated as-groups, as-uid and as-user-extra", async (t) => {
  const { load } = await loadUser(t, {
    token: "t",
    as: "jane",
    "as-groups": ["devs", "ops"],
    "as-uid": "42",
    "as-user-extra": { "scopes.example/id": ["a", "b"] },
  });
  assert.deepEqual((await (await load()).credentials.get()).headers, {
    authorization: "Bearer t",
    "impersonate-user": "jane",
    "impersonate-group": ["devs", "ops"],
    "impersonate-uid": "42",
    "impersonate-extra-scopes.example%2Fid": ["a", "b"],
  });
});

test("snapshots are frozen", async (t) => {
  const { load } = await loadUser(t, { token: "t", as: "jane", "as-groups": ["devs"] });
  const auth = await (await load()).credentials.get();
  assert.ok(
    Object.isFrozen(auth) &&
      Object.isFrozen(auth.headers) &&
      Object.isFrozen(auth.headers["impersonate-group"]),
  );
});
