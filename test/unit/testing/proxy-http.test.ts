import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse, stringify } from "yaml";
import { buildKubeconfig } from "../../../src/cluster/kubeconfig.ts";
import { hasCode } from "../../../src/errors/index.ts";
import {
  identifyCaller,
  identityHeaders,
  type PeerCertificate,
} from "../../../src/testing/proxy/identity.ts";
import { proxiedKubeconfig, upstreamFromKubeconfig } from "../../../src/testing/proxy/kubeconfig.ts";
import { kubeStatus, statusHeaders } from "../../../src/testing/proxy/status.ts";
import { endToEndHeaders } from "../../../src/testing/proxy/upstream.ts";

const alice: PeerCertificate = {
  authorized: true,
  presented: true,
  commonName: "alice",
  organizations: ["dev", "ops"],
};
const none: PeerCertificate = { authorized: false, presented: false, organizations: [] };

describe("proxy: caller identity", () => {
  it("impersonates a certificate caller: user from CN, one group per O", () => {
    const caller = identifyCaller({}, alice);
    assert.deepEqual(caller, { kind: "certificate", user: "alice", groups: ["dev", "ops"] });
    assert.deepEqual(identityHeaders(caller as never), {
      "impersonate-user": "alice",
      "impersonate-group": ["dev", "ops"],
    });
  });

  it("forwards a bearer caller as is, even with a certificate, and leaves anonymous callers anonymous", () => {
    assert.deepEqual(identifyCaller({ authorization: "Bearer t" }, alice), { kind: "bearer" });
    assert.deepEqual(identityHeaders({ kind: "bearer" }), {});
    assert.deepEqual(identifyCaller({}, none), { kind: "anonymous" });
  });

  it("refuses an unverified certificate, and impersonation it cannot pass on", () => {
    assert.equal((identifyCaller({}, { ...alice, authorized: false }) as { status: number }).status, 401);
    const asBob = identifyCaller({ "impersonate-user": "bob" }, alice);
    assert.equal(asBob.kind, "refused");
    assert.equal((asBob as { status: number }).status, 400);
  });
});

describe("proxy: HTTP plumbing", () => {
  it("builds Status answers the way the apiserver words them", () => {
    assert.deepEqual(kubeStatus(429, "slow down", { retryAfterSeconds: 2 }), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "slow down",
      reason: "TooManyRequests",
      details: { retryAfterSeconds: 2 },
      code: 429,
    });
    assert.equal(kubeStatus(500, "x").reason, "InternalError");
    assert.equal(kubeStatus(418, "x", { reason: "Teapot" }).reason, "Teapot");
    assert.deepEqual(statusHeaders("{}", 1.5), {
      "content-type": "application/json",
      "content-length": "2",
      "retry-after": "2",
    });
  });

  it("drops hop-by-hop headers and keeps repeated ones", () => {
    const kept = endToEndHeaders({
      Connection: "keep-alive, x-private",
      "keep-alive": "timeout=5",
      "x-private": "1",
      host: "127.0.0.1",
      "transfer-encoding": "chunked",
      accept: "application/json",
      "impersonate-group": ["a", "b"],
      authorization: ["Bearer t"],
    });
    assert.deepEqual(kept, {
      accept: "application/json",
      "impersonate-group": ["a", "b"],
      authorization: "Bearer t",
    });
  });
});

describe("proxy: kubeconfigs", () => {
  const doc = buildKubeconfig({
    name: "c",
    server: "https://10.0.0.1:6443",
    caPem: "CA",
    certPem: "CERT",
    keyPem: "KEY",
  });

  it("reads upstream credentials from a document or a file with relative paths", () => {
    assert.deepEqual(upstreamFromKubeconfig(doc), {
      server: "https://10.0.0.1:6443",
      ca: "CA",
      cert: "CERT",
      key: "KEY",
    });
    const dir = mkdtempSync(join(tmpdir(), "proxy-kc-"));
    for (const [name, content] of [
      ["ca.crt", "CA2"],
      ["c.crt", "CERT2"],
      ["c.key", "KEY2"],
    ]) {
      writeFileSync(join(dir, name as string), content as string);
    }
    const fileDoc = {
      ...doc,
      clusters: [{ name: "c", cluster: { server: "https://h", "certificate-authority": "ca.crt" } }],
      users: [{ name: "c", user: { "client-certificate": "c.crt", "client-key": "c.key" } }],
    };
    writeFileSync(join(dir, "config"), stringify(fileDoc));
    assert.deepEqual(upstreamFromKubeconfig(join(dir, "config")), {
      server: "https://h",
      ca: "CA2",
      cert: "CERT2",
      key: "KEY2",
    });
  });

  it("fails with KL_PROXY_CONFIG when the upstream has no client certificate", () => {
    const tokenOnly = { ...doc, users: [{ name: "c", user: { token: "t" } }] };
    assert.throws(
      () => upstreamFromKubeconfig(tokenOnly),
      (err) => hasCode(err, "KL_PROXY_CONFIG"),
    );
    assert.throws(
      () => upstreamFromKubeconfig("/nonexistent/kubeconfig"),
      (err) => hasCode(err, "KL_PROXY_CONFIG"),
    );
  });

  it("points every cluster at the proxy and keeps the credentials", () => {
    const source = {
      ...doc,
      clusters: [
        {
          name: "c",
          cluster: { server: "https://h", "tls-server-name": "kubernetes", "certificate-authority": "/x" },
        },
      ],
      users: [{ name: "c", user: { token: "t", tokenFile: "token" } }],
    };
    const dir = mkdtempSync(join(tmpdir(), "proxy-kc-"));
    writeFileSync(join(dir, "config"), stringify(source));
    const rewritten = parse(
      stringify(proxiedKubeconfig(join(dir, "config"), "https://127.0.0.1:9", "PROXY-CA")),
    );
    assert.deepEqual(rewritten.clusters, [
      {
        name: "c",
        cluster: {
          server: "https://127.0.0.1:9",
          "certificate-authority-data": Buffer.from("PROXY-CA").toString("base64"),
        },
      },
    ]);
    assert.deepEqual(rewritten.users, [{ name: "c", user: { token: "t", tokenFile: join(dir, "token") } }]);
    assert.equal(
      doc.clusters[0]?.cluster.server,
      "https://10.0.0.1:6443",
      "a document source is not changed",
    );
    proxiedKubeconfig(doc, "https://127.0.0.1:9", "PROXY-CA");
    assert.equal(doc.clusters[0]?.cluster.server, "https://10.0.0.1:6443");
  });
});
