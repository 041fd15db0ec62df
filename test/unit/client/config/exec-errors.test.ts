import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import {
  ExecCredentialError,
  KubeconfigError,
  KubeconfigUnsupportedError,
  loadKubeconfig,
} from "../../../../src/client/config/index.ts";
import { FakeClock } from "../../../../src/clock/index.ts";
import {
  corruptPem,
  execCredential,
  FakePlugin,
  type PluginBehaviour,
  pem,
  put,
  singleUser,
  tempDir,
  until,
} from "./helpers.ts";

async function setup(t: TestContext, behaviour: PluginBehaviour, exec: Record<string, unknown> = {}) {
  const dir = await tempDir(t);
  await new FakePlugin(dir).install(behaviour);
  const execConfig = { apiVersion: "client.authentication.k8s.io/v1", command: "./plugin", ...exec };
  const file = await put(join(dir, "config"), singleUser({ exec: execConfig }));
  const clock = new FakeClock(0);
  const load = () =>
    loadKubeconfig({ kubeconfig: file, env: { PATH: process.env.PATH }, clock, execTimeoutMs: 5_000 });
  return { file, clock, load };
}

/** Runs the plugin through `get()` and returns the error it fails with. */
async function failure(t: TestContext, behaviour: PluginBehaviour, exec: Record<string, unknown> = {}) {
  const { load, file } = await setup(t, behaviour, exec);
  const err = await (await load()).credentials.get().catch((e: unknown) => e);
  assert.ok(err instanceof ExecCredentialError, String(err));
  assert.equal(err.code, "KL_EXEC_CREDENTIAL");
  assert.ok(
    err.message.startsWith(`exec plugin "${err.command}" of users["u"] in kubeconfig ${file}: `),
    err.message,
  );
  return err;
}

test("a non-zero exit reports the code and what the plugin wrote to stderr", async (t) => {
  const err = await failure(t, { exit: 3, stderr: "token expired, run `login`\n" });
  assert.match(err.message, /: exited with code 3; it said:\ntoken expired, run `login`$/);
});

test("output that is not JSON is reported with its beginning", async (t) => {
  const err = await failure(t, { stdout: "Please open https://login.example in a browser" });
  assert.match(
    err.message,
    /printed output that is not JSON \(it began "Please open https:\/\/login\.example/,
  );
});

test("an ExecCredential of the wrong shape or version is rejected", async (t) => {
  const kind = await failure(t, { stdout: JSON.stringify({ apiVersion: "x", kind: "Other", status: {} }) });
  assert.match(kind.message, /printed an invalid ExecCredential: kind: expected "ExecCredential"/);
  const version = await failure(t, {
    credential: execCredential({ token: "t" }, "client.authentication.k8s.io/v1beta1"),
  });
  assert.match(
    version.message,
    /printed apiVersion "client.authentication.k8s.io\/v1beta1" but the kubeconfig asks for/,
  );
});

test("a status without usable credentials is rejected", async (t) => {
  const empty = await failure(t, { credential: execCredential({}) });
  assert.match(empty.message, /printed neither status\.token nor status\.clientCertificateData/);
  const half = await failure(t, { credential: execCredential({ clientCertificateData: pem.cert }) });
  assert.match(half.message, /printed only one of status\.clientCertificateData and status\.clientKeyData/);
  const notPem = await failure(t, {
    credential: execCredential({ clientCertificateData: "abc", clientKeyData: pem.key }),
  });
  assert.match(notPem.message, /status\.clientCertificateData that does not hold a PEM certificate/);
  const corrupt = await failure(t, {
    credential: execCredential({ clientCertificateData: pem.cert, clientKeyData: corruptPem.key }),
  });
  assert.match(
    corrupt.message,
    /status\.clientKeyData that holds a PEM private key that cannot be parsed \(/,
  );
  const mismatched = await failure(t, {
    credential: execCredential({ clientCertificateData: pem.cert, clientKeyData: pem.key2 }),
  });
  assert.match(
    mismatched.message,
    /status\.clientKeyData that is not the private key of the client certificate/,
  );
  const badTime = await failure(t, {
    credential: execCredential({ token: "t", expirationTimestamp: "soon" }),
  });
  assert.match(badTime.message, /status\.expirationTimestamp "soon", not an RFC 3339 time/);
});

test("a plugin that does not finish in time is killed and reported", async (t) => {
  const { load, clock } = await setup(t, { hang: true });
  const pending = (await load()).credentials.get();
  await until(() => clock.pending > 0);
  clock.advance(5_000);
  await assert.rejects(pending, (err: unknown) => {
    assert.ok(err instanceof ExecCredentialError);
    assert.match(err.message, /did not finish within 5000 ms and was killed\. It runs without a terminal/);
    return true;
  });
});

test("a command that cannot be started names the cause and the installHint", async (t) => {
  const err = await failure(
    t,
    {},
    { command: "kubeloop-no-such-plugin", installHint: "Install it with: brew install x" },
  );
  assert.equal(err.command, "kubeloop-no-such-plugin");
  assert.match(
    err.message,
    /could not be started \(ENOENT\); check that it is installed and on PATH\nInstall it with/,
  );
});

test("aborting get() stops the wait", async (t) => {
  const { load, clock } = await setup(t, { hang: true });
  const creds = (await load()).credentials;
  const controller = new AbortController();
  const pending = creds.get(controller.signal);
  controller.abort(new Error("shutting down"));
  await assert.rejects(pending, /shutting down/);
  await until(() => clock.pending > 0);
  clock.advance(5_000);
});

test("interactiveMode Always is refused at load time", async (t) => {
  const { load, file } = await setup(t, {}, { interactiveMode: "Always" });
  await assert.rejects(load(), (err: unknown) => {
    assert.ok(err instanceof KubeconfigUnsupportedError);
    assert.ok(err.message.startsWith(`kubeconfig ${file}: users["u"].user.exec.interactiveMode is Always`));
    assert.match(err.message, /set interactiveMode to IfAvailable or Never/);
    return true;
  });
});

test("exec apiVersion v1alpha1 is refused", async (t) => {
  const { load } = await setup(t, {}, { apiVersion: "client.authentication.k8s.io/v1alpha1" });
  await assert.rejects(load(), (err: unknown) => {
    assert.ok(err instanceof KubeconfigError);
    assert.match(
      err.message,
      /users\["u"\]\.user\.exec\.apiVersion is "client\.authentication\.k8s\.io\/v1alpha1"; use/,
    );
    return true;
  });
});
