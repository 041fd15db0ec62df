/** Serving certificate files are read again when they change: a TLS client sees the new certificate without a restart. */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { connect } from "node:tls";
import { ConfigMap } from "../../../src/api/index.ts";
import { eventually } from "../../../src/testing/eventually.ts";
import type { KeyPair } from "../../../src/tls/index.ts";
import { validating } from "../../../src/webhook/index.ts";
import { servingPair, startServer, testCa } from "./support.ts";

/** The fingerprint of the certificate the server at `port` presents, verified against the test CA. */
async function presented(port: number): Promise<string> {
  const ca = (await testCa()).certPem;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? "");
      socket.end();
    });
    socket.on("error", reject);
  });
}

const fingerprint = (pair: KeyPair) => new X509Certificate(pair.certPem).fingerprint256;

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kubeloop-webhook-certs-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `pair` as a Secret volume does: a new timestamped directory, then `..data` swapped to it. */
async function writeAsSecretVolume(dir: string, pair: KeyPair, generation: number): Promise<void> {
  const version = `..v${generation}`;
  await mkdir(join(dir, version));
  await writeFile(join(dir, version, "tls.crt"), pair.certPem);
  await writeFile(join(dir, version, "tls.key"), pair.keyPem);
  await symlink(version, join(dir, "..data_tmp"));
  await rename(join(dir, "..data_tmp"), join(dir, "..data"));
}

const webhooks = [validating(ConfigMap, () => {})];

describe("WebhookServer certificate files", () => {
  it("serves a rotated Secret volume's certificate without a restart", async (t) => {
    const dir = await tempDir(t);
    const [first, second] = await Promise.all([servingPair("first"), servingPair("second")]);
    await writeAsSecretVolume(dir, first, 1);
    await symlink("..data/tls.crt", join(dir, "tls.crt"));
    await symlink("..data/tls.key", join(dir, "tls.key"));
    const tls = { certFile: join(dir, "tls.crt"), keyFile: join(dir, "tls.key") };
    const { port, logger } = await startServer(t, webhooks, { tls });
    assert.equal(await presented(port), fingerprint(first));

    await writeAsSecretVolume(dir, second, 2);
    await eventually(async () => (await presented(port)) === fingerprint(second), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: "the rotated certificate",
    });
    assert.deepEqual(logger.infos.at(-1), "webhook server: serving certificate reloaded");
  });

  it("keeps serving the previous certificate while the new pair is half written", async (t) => {
    const dir = await tempDir(t);
    const [first, second] = await Promise.all([servingPair("first"), servingPair("second")]);
    const tls = { certFile: join(dir, "tls.crt"), keyFile: join(dir, "tls.key") };
    await writeFile(tls.certFile, first.certPem);
    await writeFile(tls.keyFile, first.keyPem);
    const { port, logger } = await startServer(t, webhooks, { tls });

    await writeFile(tls.certFile, second.certPem);
    await eventually(() => logger.errors.some((m) => m.includes("could not be loaded")), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: "the mismatched pair to be refused",
    });
    assert.equal(await presented(port), fingerprint(first));

    await writeFile(tls.keyFile, second.keyPem);
    await eventually(async () => (await presented(port)) === fingerprint(second), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: "the completed pair",
    });
  });
});
