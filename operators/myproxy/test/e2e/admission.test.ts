/**
 * Issue 19: the ProxyRoute admission webhook, served by the operator's manager (self-managed CA,
 * a free port on 127.0.0.1, a ValidatingWebhookConfiguration admitting only the test's namespace)
 * and called by the apiserver. `kubectl apply` of a route nginx would get wrong, or of a route
 * taking an accepted route's host and path, is denied with the field at fault; a server-side dry run
 * is validated and leaves nothing behind; an accepted route can still be changed. What gets in
 * anyway is still reported by the controllers: a route stored while the webhook was not serving is
 * `InvalidSpec` (below), and a conflict arising later, when an older route's backend appears, is
 * `Conflict` (routes.test.ts, which runs with the webhook serving).
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { InvalidError } from "kubeloop";
import { ProxyRoute, type ProxyRouteObject } from "../../api.ts";
import {
  conditionOf,
  configOf,
  createProxy,
  createRoute,
  createService,
  getOrGone,
  installCrds,
  kubectl,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

const WEBHOOK = "vproxyroute-v1alpha1.proxy.kubeloop.dev";

/** A route of MyProxy `edge` to Service `web` port 80, as JSON for kubectl. */
function manifest(namespace: string, name: string, host: string, path: string): string {
  return JSON.stringify({
    apiVersion: ProxyRoute.apiVersion,
    kind: ProxyRoute.kind,
    metadata: { name, namespace },
    spec: { proxy: "edge", host, path, backend: { service: "web", port: 80 } },
  });
}

/** `kubectl apply` (with `args`) of a route; never throws. */
function apply(namespace: string, name: string, host: string, path: string, ...args: string[]) {
  return kubectl(["apply", ...args, "-f", "-"], {
    input: manifest(namespace, name, host, path),
    allowFail: true,
  });
}

/** A namespace with the operator (and its webhook) running, a Service `web` and a MyProxy `edge`. */
async function prepare(t: Parameters<typeof testNamespace>[0], webhooks = true): Promise<string> {
  const ns = await testNamespace(t);
  await startOperator(t, ns, { webhooks });
  await createService(ns, "web", [{ port: 80 }]);
  await createProxy(ns, "edge");
  return ns;
}

test("kubectl apply of a route nginx would get wrong is denied, naming the field and why", async (t) => {
  const ns = await prepare(t);
  const cases: [string, string, string, RegExp][] = [
    ["dots", "a.example.com", "/api/../admin", /spec\.path: must not hold a "\." or "\.\." segment/],
    ["encoded", "a.example.com", "/api/%2e%2e/admin", /spec\.path: must not hold a percent-encoding/],
    ["slashes", "a.example.com", "/api//admin", /spec\.path: must not hold an empty segment/],
    ["address", "10.0.0.7", "/", /spec\.host: must be a host name, not an IP address/],
    ["label", `${"a".repeat(64)}.example.com`, "/", /spec\.host: has a label longer than 63 characters/],
  ];
  for (const [name, host, path, error] of cases) {
    const denied = await apply(ns, name, host, path);
    assert.notEqual(denied.code, 0, `${name} was admitted`);
    assert.match(denied.stderr, new RegExp(`The ProxyRoute "${name}" is invalid: ${error.source}`), name);
    assert.equal(await getOrGone(ProxyRoute, ns, name), undefined, `${name} is not stored`);
  }
  const status = await (await testClient())
    .create(ProxyRoute, JSON.parse(manifest(ns, "dots", "a.example.com", "/a/../b")) as ProxyRouteObject)
    .catch((err: Error) => err);
  assert.ok(status instanceof InvalidError, String(status));
  assert.match(status.message, new RegExp(`admission webhook "${WEBHOOK}" denied the request: spec\\.path`));

  const safe = await apply(ns, "safe", "a.example.com", "/api/.well-known");
  assert.equal(safe.code, 0, safe.stderr);
  await waitForCondition(ProxyRoute, ns, "safe", { type: "Accepted", status: "True" });
});

test("a route taking an accepted route's host and path is denied naming it; the accepted one can still change", async (t) => {
  const ns = await prepare(t);
  assert.equal((await apply(ns, "first", "app.example.com", "/v1")).code, 0);
  await waitForCondition(ProxyRoute, ns, "first", { type: "Accepted", status: "True" });

  const taken = await apply(ns, "second", "app.example.com", "/v1");
  assert.notEqual(taken.code, 0, "the conflicting route was admitted");
  assert.match(
    taken.stderr,
    /The ProxyRoute "second" is invalid: spec\.path: already served by the accepted ProxyRoute first/,
  );
  assert.equal(await getOrGone(ProxyRoute, ns, "second"), undefined);
  // Moving another route onto it is denied too; the same host on another path is not a conflict.
  assert.equal((await apply(ns, "second", "app.example.com", "/v2")).code, 0);
  const moved = await apply(ns, "second", "app.example.com", "/v1");
  assert.match(moved.stderr, /spec\.path: already served by the accepted ProxyRoute first/);

  const changed = await apply(ns, "first", "app.example.com", "/v3");
  assert.equal(changed.code, 0, changed.stderr);
  const first = await waitForCondition(ProxyRoute, ns, "first", { type: "Accepted", status: "True" });
  assert.equal(first.spec.path, "/v3");
  assert.match((await configOf(ns, "edge")) ?? "", /location \/v3 \{/);
});

test("a server-side dry run is validated by the webhook and leaves nothing behind", async (t) => {
  const ns = await prepare(t);
  const invalid = await apply(ns, "dry", "a.example.com", "/a//b", "--dry-run=server");
  assert.notEqual(invalid.code, 0);
  assert.match(invalid.stderr, /The ProxyRoute "dry" is invalid: spec\.path: must not hold an empty segment/);
  const valid = await apply(ns, "dry", "a.example.com", "/a", "--dry-run=server");
  assert.equal(valid.code, 0, valid.stderr);
  assert.match(valid.stdout, /proxyroute\.proxy\.kubeloop\.dev\/dry created \(server dry run\)/);
  assert.equal(await getOrGone(ProxyRoute, ns, "dry"), undefined, "a dry run stores nothing");

  // On a stored route: a dry-run update is checked too, and changes neither spec nor status.
  await createRoute(ns, "real", {
    proxy: "edge",
    host: "a.example.com",
    path: "/a",
    service: "web",
    port: 80,
  });
  const before = await waitForCondition(ProxyRoute, ns, "real", { type: "Accepted", status: "True" });
  const unsafe = await apply(ns, "real", "a.example.com", "/a/..", "--dry-run=server");
  assert.match(unsafe.stderr, /spec\.path: must not hold a "\." or "\.\." segment/);
  const safe = await apply(ns, "real", "a.example.com", "/b", "--dry-run=server");
  assert.equal(safe.code, 0, safe.stderr);
  const after = await getOrGone(ProxyRoute, ns, "real");
  assert.equal(after?.metadata.resourceVersion, before.metadata.resourceVersion);
  assert.equal(after?.spec.path, "/a");
  assert.deepEqual(after?.status, before.status);
});

test("a route stored while the webhook was not serving is reported InvalidSpec, with the webhook's reason", async (t) => {
  const ns = await prepare(t, false);
  await createRoute(ns, "legacy", {
    proxy: "edge",
    host: "a.example.com",
    path: "/a//b",
    service: "web",
    port: 80,
  });
  const rejected = await waitForCondition(ProxyRoute, ns, "legacy", {
    type: "Accepted",
    status: "False",
    reason: "InvalidSpec",
  });
  assert.match(
    conditionOf(rejected, "Accepted")?.message ?? "",
    /^spec\.path must not hold an empty segment/,
  );
});
