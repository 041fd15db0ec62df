import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, beforeEach, describe, it } from "node:test";
import { pino } from "pino";
import { Counter, Registry } from "prom-client";
import { Agent, request } from "undici";
import type { UserInfo } from "../../../src/api/authentication.k8s.io/v1.ts";
import {
  type KubeObject,
  type ResourceType,
  type SubjectAccessReviewObject,
  TokenReview,
  type TokenReviewObject,
} from "../../../src/api/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { resolveEndpoints, startEndpoints } from "../../../src/endpoints/endpoints.ts";
import type { ReviewClient } from "../../../src/endpoints/internal/request-review.ts";
import { MetricsCertificateError } from "../../../src/manager/index.ts";
import { createCertificateAuthority, issueCertificate } from "../../../src/tls/index.ts";

const alice: UserInfo = { username: "alice", uid: "1", groups: ["system:authenticated"] };
const bob: UserInfo = { username: "bob", uid: "2", groups: ["system:authenticated"] };

/**
 * A client that answers reviews like an apiserver would: tokens `alice-token` and `bob-token`
 * name alice and bob, and only alice may `get /metrics`. It counts what it is asked, and fails
 * every review while `failing` is set.
 */
function fakeApiserver() {
  const asked = { tokens: [] as string[], access: [] as SubjectAccessReviewObject["spec"][] };
  const state = { failing: false };
  const users: Record<string, UserInfo> = { "alice-token": alice, "bob-token": bob };
  const create = async (type: ResourceType, obj: KubeObject): Promise<KubeObject> => {
    if (state.failing) throw new Error("connection refused");
    if (type === TokenReview) {
      const { token } = (obj as TokenReviewObject).spec;
      asked.tokens.push(token);
      const user = users[token];
      return {
        ...obj,
        status: user ? { authenticated: true, user } : { authenticated: false },
      } as KubeObject;
    }
    const { spec } = obj as SubjectAccessReviewObject;
    asked.access.push(spec);
    const allowed = spec.user === "alice" && spec.nonResourceAttributes?.path === "/metrics";
    return { ...obj, status: { allowed } } as KubeObject;
  };
  return { client: { create } as unknown as ReviewClient, asked, state };
}

/** Log lines written at warn level and above. */
function capturingLogger() {
  const lines: { msg: string; err?: { message: string } }[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

function registry(): Registry {
  const registry = new Registry();
  new Counter({ name: "widgets_total", help: "widgets seen", registers: [registry] }).inc(3);
  return registry;
}

const insecure = new Agent({ connect: { rejectUnauthorized: false } });
after(() => insecure.close());

async function get(url: string, token?: string): Promise<{ status: number; body: string }> {
  const res = await request(url, {
    dispatcher: insecure,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, body: await res.body.text() };
}

describe("secure metrics", () => {
  let apiserver: ReturnType<typeof fakeApiserver>;
  let logs: ReturnType<typeof capturingLogger>;
  let clock: FakeClock;
  let url: string;
  let healthPort: number | undefined;
  let servers: Server[] = [];

  beforeEach(async () => {
    for (const server of servers) server.close();
    apiserver = fakeApiserver();
    logs = capturingLogger();
    clock = new FakeClock();
    const resolved = resolveEndpoints({ metrics: { port: 0, secure: true }, health: { port: 0 } }, false);
    const running = await startEndpoints(resolved, {
      name: "widgets",
      registry: registry(),
      checks: { healthz: { ping: () => true }, readyz: { ready: () => true } },
      client: apiserver.client,
      clock,
      logger: logs.logger,
    });
    servers = running.servers;
    url = `https://127.0.0.1:${running.ports.metrics}/metrics`;
    healthPort = running.ports.health;
  });
  after(() => {
    for (const server of servers) server.close();
  });

  it("answers 401 to a request without a bearer token, asking nobody", async () => {
    assert.deepEqual(await get(url), { status: 401, body: "Unauthorized" });
    assert.deepEqual(await get(url, ""), { status: 401, body: "Unauthorized" });
    assert.deepEqual(apiserver.asked.tokens, []);
  });

  it("answers 401 when the TokenReview does not authenticate the token", async () => {
    assert.deepEqual(await get(url, "forged"), { status: 401, body: "Unauthorized" });
    assert.deepEqual(apiserver.asked.tokens, ["forged"]);
    assert.deepEqual(apiserver.asked.access, []);
  });

  it("answers 403 when the SubjectAccessReview denies get on /metrics", async () => {
    assert.deepEqual(await get(url, "bob-token"), { status: 403, body: "Authorization denied for user bob" });
    // As sent: JSON, where an absent `extra` is left out.
    assert.deepEqual(JSON.parse(JSON.stringify(apiserver.asked.access)), [
      {
        user: "bob",
        uid: "2",
        groups: ["system:authenticated"],
        nonResourceAttributes: { path: "/metrics", verb: "get" },
      },
    ]);
  });

  it("serves the metrics over HTTPS to an allowed user", async () => {
    const { status, body } = await get(url, "alice-token");
    assert.equal(status, 200);
    assert.match(body, /^widgets_total 3$/m);
  });

  it("reuses the apiserver's answers for a minute, then asks again", async () => {
    for (let i = 0; i < 3; i++) assert.equal((await get(url, "alice-token")).status, 200);
    assert.equal((await get(url, "bob-token")).status, 403);
    assert.equal((await get(url, "bob-token")).status, 403);
    assert.deepEqual(apiserver.asked.tokens, ["alice-token", "bob-token"]);
    assert.equal(apiserver.asked.access.length, 2);
    clock.advance(60_001);
    assert.equal((await get(url, "alice-token")).status, 200);
    assert.deepEqual(apiserver.asked.tokens, ["alice-token", "bob-token", "alice-token"]);
    assert.equal(apiserver.asked.access.length, 3);
  });

  it("answers 500 and logs when the apiserver cannot be asked, caches no failure, and keeps serving", async () => {
    apiserver.state.failing = true;
    assert.deepEqual(await get(url, "alice-token"), { status: 500, body: "Authentication failed" });
    assert.equal(logs.lines[0]?.msg, "/metrics: Authentication failed");
    assert.equal(logs.lines[0]?.err?.message, "connection refused");
    apiserver.state.failing = false;
    assert.equal((await get(url, "alice-token")).status, 200);
  });

  it("never guards the health probes, which stay plain HTTP", async () => {
    const res = await request(`http://127.0.0.1:${healthPort}/readyz`);
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), "ok");
  });
});

describe("resolveEndpoints", () => {
  it("in a cluster: secure metrics on 0.0.0.0:8443, probes on 0.0.0.0:8081, no live page", () => {
    assert.deepEqual(resolveEndpoints({}, true), {
      metrics: { host: "0.0.0.0", port: 8443, secure: true },
      health: { host: "0.0.0.0", port: 8081 },
      livePage: false,
    });
  });

  it("outside a cluster: plain metrics and probes on loopback only, with the live page", () => {
    assert.deepEqual(resolveEndpoints({}, false), {
      metrics: { host: "127.0.0.1", port: 8080, secure: false },
      health: { host: "127.0.0.1", port: 8081 },
      livePage: true,
    });
  });

  it("turns the live page on or off as asked, and never without the health endpoint that serves it", () => {
    assert.equal(resolveEndpoints({ livePage: true }, true).livePage, true);
    assert.equal(resolveEndpoints({ livePage: false }, false).livePage, false);
    assert.equal(resolveEndpoints({ livePage: true, health: false }, false).livePage, undefined);
  });

  it("takes what is given, picks the port from `secure`, and leaves out what is off", () => {
    assert.deepEqual(resolveEndpoints({ metrics: { secure: false }, health: false }, true), {
      metrics: { host: "0.0.0.0", port: 8080, secure: false },
    });
    assert.deepEqual(resolveEndpoints({ metrics: { secure: true, certDir: "/certs" } }, false).metrics, {
      host: "127.0.0.1",
      port: 8443,
      secure: true,
      certDir: "/certs",
    });
    assert.deepEqual(resolveEndpoints({ metrics: false, health: { host: "::1", port: 9440 } }, false), {
      health: { host: "::1", port: 9440 },
      livePage: true,
    });
  });
});

describe("the metrics serving certificate", () => {
  const context = () => ({
    name: "widgets",
    registry: registry(),
    checks: { healthz: {}, readyz: {} },
    client: fakeApiserver().client,
    clock: new FakeClock(),
    logger: pino({ level: "silent" }),
  });

  it("is read from certDir (tls.crt and tls.key), and clients trusting its CA verify it", async (t) => {
    const ca = await createCertificateAuthority("metrics-test-ca");
    const pair = await issueCertificate(ca, { commonName: "metrics", hosts: ["127.0.0.1"], usage: "server" });
    const dir = await mkdtemp(join(tmpdir(), "kubeloop-metrics-certs-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, "tls.crt"), pair.certPem);
    await writeFile(join(dir, "tls.key"), pair.keyPem);
    const resolved = resolveEndpoints(
      { metrics: { port: 0, secure: true, certDir: dir }, health: false },
      false,
    );
    const running = await startEndpoints(resolved, context());
    t.after(() => {
      for (const server of running.servers) server.close();
    });
    const trusting = new Agent({ connect: { ca: ca.certPem } });
    t.after(() => trusting.close());
    const res = await request(`https://127.0.0.1:${running.ports.metrics}/metrics`, { dispatcher: trusting });
    assert.equal(res.statusCode, 401, "TLS verified against the CA; the request reached the guard");
    await res.body.dump();
  });

  it("fails with MetricsCertificateError naming the file and the fix when certDir lacks it", async () => {
    const resolved = resolveEndpoints({ metrics: { port: 0, secure: true, certDir: "/nonexistent" } }, false);
    await assert.rejects(startEndpoints(resolved, context()), (err: unknown) => {
      assert.ok(err instanceof MetricsCertificateError);
      assert.equal(err.code, "KL_METRICS_CERTIFICATE");
      assert.match(err.message, /\/nonexistent\/tls\.(crt|key) \(ENOENT/);
      assert.match(err.message, /--metrics-cert-path/);
      return true;
    });
  });

  it("fails with MetricsCertificateError when the files are not a certificate and its key", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "kubeloop-metrics-certs-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, "tls.crt"), "not a certificate");
    await writeFile(join(dir, "tls.key"), "not a key");
    const resolved = resolveEndpoints({ metrics: { port: 0, secure: true, certDir: dir } }, false);
    await assert.rejects(startEndpoints(resolved, context()), MetricsCertificateError);
  });
});
