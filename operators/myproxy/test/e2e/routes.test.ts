/**
 * ProxyRoutes: which are accepted and why not, the configuration built from the accepted ones, pods
 * rolled when it changes, and the CRD's structural validation.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, test } from "node:test";
import { Deployment } from "kubeloop";
import { CustomResourceDefinition } from "kubeloop/api";
import { crdFor } from "kubeloop/schema";
import { MyProxy, ProxyRoute } from "../../api.ts";
import { CONFIG_HASH_ANNOTATION } from "../../deployment.ts";
import {
  conditionOf,
  configOf,
  createProxy,
  createRoute,
  createService,
  eventually,
  getOrGone,
  installCrds,
  kubectl,
  livePods,
  routesIn,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

test("of three routes, one with a missing backend: the configuration holds the two others", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await createService(ns, "api", [{ port: 8080, name: "http" }]);
  await createService(ns, "web", [{ port: 80 }]);
  await createProxy(ns, "edge");
  await createRoute(ns, "api", {
    proxy: "edge",
    host: "api.example.com",
    path: "/v1",
    service: "api",
    port: "http",
  });
  await createRoute(ns, "web", { proxy: "edge", host: "www.example.com", service: "web", port: 80 });
  await createRoute(ns, "broken", {
    proxy: "edge",
    host: "www.example.com",
    path: "/old",
    service: "gone",
    port: 80,
  });

  const config = await eventually(
    async () => {
      const current = await configOf(ns, "edge");
      return routesIn(current).join() === "api,web" && current;
    },
    { what: "a configuration with the api and web routes" },
  );
  assert.match(config, /location \/v1 \{\n\s+proxy_pass http:\/\/api\..+\.svc\.cluster\.local:8080;/);
  assert.doesNotMatch(config, /gone|\/old/);

  for (const name of ["api", "web"]) {
    const route = await waitForCondition(ProxyRoute, ns, name, {
      type: "Ready",
      status: "True",
      reason: "Accepted",
    });
    assert.equal(conditionOf(route, "Accepted")?.status, "True");
  }
  const api = await getOrGone(ProxyRoute, ns, "api");
  assert.equal(api?.status?.upstream, `http://api.${ns}.svc.cluster.local:8080`);
  const broken = await waitForCondition(ProxyRoute, ns, "broken", {
    type: "Accepted",
    status: "False",
    reason: "BackendNotFound",
  });
  assert.equal(conditionOf(broken, "Accepted")?.message, `Service gone not found in namespace ${ns}`);
  assert.equal(conditionOf(broken, "Ready")?.status, "False");
  assert.equal(conditionOf(broken, "Reconciling")?.status, "True", "a missing backend may yet appear");
  assert.equal(broken.status?.upstream, undefined);
  const wait = await kubectl(["-n", ns, "wait", "--for=condition=Accepted=false", "proxyroute/broken"]);
  assert.equal(wait.code, 0);
  await eventually(async () => (await getOrGone(MyProxy, ns, "edge"))?.status?.acceptedRoutes === 2, {
    what: "two accepted routes counted on the MyProxy",
  });
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
});

test("a route taking an older route's host and path gets Conflict; the older one keeps serving", async (t) => {
  const ns = await testNamespace(t);
  // Without the admission webhook, which refuses such a route (admission.test.ts): as for a route
  // stored while it was not serving.
  await startOperator(t, ns, { webhooks: false });
  await createService(ns, "blue", [{ port: 80 }]);
  await createService(ns, "green", [{ port: 80 }]);
  await createProxy(ns, "edge");
  // The older route sorts last by name, so only its creation time can make it win.
  const older = await createRoute(ns, "zulu", {
    proxy: "edge",
    host: "app.example.com",
    service: "blue",
    port: 80,
  });
  await waitForCondition(ProxyRoute, ns, "zulu", { type: "Accepted", status: "True" });
  const created = older.metadata.creationTimestamp ?? "";
  await eventually(() => new Date().toISOString().slice(0, 19) > created.slice(0, 19), {
    what: "a creation time one second later",
  });
  await createRoute(ns, "alpha", { proxy: "edge", host: "app.example.com", service: "green", port: 80 });

  const younger = await waitForCondition(ProxyRoute, ns, "alpha", {
    type: "Accepted",
    status: "False",
    reason: "Conflict",
  });
  assert.match(
    conditionOf(younger, "Accepted")?.message ?? "",
    /already served by the older ProxyRoute zulu/,
  );
  assert.equal(conditionOf(younger, "Stalled")?.status, "True", "a conflict needs a human");
  assert.equal(conditionOf(await getOrGone(ProxyRoute, ns, "zulu"), "Accepted")?.status, "True");
  const config = await configOf(ns, "edge");
  assert.deepEqual(routesIn(config), ["zulu"]);
  assert.match(config ?? "", /proxy_pass http:\/\/blue\./);

  await (await testClient()).delete(ProxyRoute, "zulu", { namespace: ns });
  await waitForCondition(ProxyRoute, ns, "alpha", { type: "Accepted", status: "True" });
  await eventually(async () => routesIn(await configOf(ns, "edge")).join() === "alpha", {
    what: "the younger route in the configuration once the older is gone",
  });
  assert.match((await configOf(ns, "edge")) ?? "", /proxy_pass http:\/\/green\./);
});

test("an older route whose missing backend appears takes its host and path back from a younger one", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await createService(ns, "ready", [{ port: 80 }]);
  await createProxy(ns, "edge");
  await createRoute(ns, "first", { proxy: "edge", host: "app.example.com", service: "pending", port: 80 });
  await waitForCondition(ProxyRoute, ns, "first", {
    type: "Accepted",
    status: "False",
    reason: "BackendNotFound",
  });
  await createRoute(ns, "second", { proxy: "edge", host: "app.example.com", service: "ready", port: 80 });
  await waitForCondition(ProxyRoute, ns, "second", { type: "Accepted", status: "True" });
  await eventually(async () => routesIn(await configOf(ns, "edge")).join() === "second", {
    what: "the younger route serving while the older one's backend is missing",
  });

  await createService(ns, "pending", [{ port: 80 }]);

  await waitForCondition(ProxyRoute, ns, "first", { type: "Accepted", status: "True" });
  await waitForCondition(ProxyRoute, ns, "second", { type: "Accepted", status: "False", reason: "Conflict" });
  await eventually(async () => routesIn(await configOf(ns, "edge")).join() === "first", {
    what: "the older route in the configuration",
  });
});

test("creating a missing backend Service accepts its route, updates the configuration and rolls the pods", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  const client = await testClient();
  await createProxy(ns, "edge");
  await createRoute(ns, "late", { proxy: "edge", host: "late.example.com", service: "late", port: 80 });
  await waitForCondition(ProxyRoute, ns, "late", {
    type: "Accepted",
    status: "False",
    reason: "BackendNotFound",
  });
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
  const before = await client.get(Deployment, "edge", { namespace: ns });
  const oldHash = before.spec?.template.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
  const oldPods = await livePods(ns, "edge");
  const oldNames = oldPods.map((p) => p.metadata.name);
  const oldTemplate = new Set(oldPods.map((p) => p.metadata.labels?.["pod-template-hash"]));
  assert.deepEqual([oldNames.length, oldTemplate.size], [2, 1]);

  await createService(ns, "late", [{ port: 80 }]);
  await waitForCondition(ProxyRoute, ns, "late", { type: "Accepted", status: "True" });
  const config = await eventually(
    async () => {
      const current = await configOf(ns, "edge");
      return routesIn(current).join() === "late" && current;
    },
    { what: "the route in the configuration" },
  );
  const newHash = createHash("sha256").update(config).digest("hex");
  assert.notEqual(newHash, oldHash);
  const rolled = await eventually(
    async () => {
      const proxy = await getOrGone(MyProxy, ns, "edge");
      const live = (await livePods(ns, "edge")).map((p) => p.metadata.name).sort();
      const done = conditionOf(proxy, "Ready")?.status === "True" && proxy?.status?.configHash === newHash;
      return (
        done && live.length === 2 && JSON.stringify(proxy?.status?.podNames) === JSON.stringify(live) && live
      );
    },
    { what: "the pods rolled to the new configuration", timeoutMs: 60_000 },
  );
  assert.deepEqual(
    rolled.filter((name) => oldNames.includes(name)),
    [],
    "every pod was replaced",
  );
  const after = await client.get(Deployment, "edge", { namespace: ns });
  assert.equal(after.spec?.template.metadata?.annotations?.[CONFIG_HASH_ANNOTATION], newHash);
  const newTemplate = new Set(
    (await livePods(ns, "edge")).map((p) => p.metadata.labels?.["pod-template-hash"]),
  );
  assert.equal(newTemplate.size, 1);
  assert.ok(![...newTemplate].some((hash) => oldTemplate.has(hash)), "the pods run a new pod template");
});

test("a route naming a missing MyProxy reports ProxyNotFound until the MyProxy exists, and again once it is deleted", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await createService(ns, "web", [{ port: 80 }]);
  await createRoute(ns, "orphan", { proxy: "ghost", host: "ghost.example.com", service: "web", port: 80 });
  const orphan = await waitForCondition(ProxyRoute, ns, "orphan", {
    type: "Accepted",
    status: "False",
    reason: "ProxyNotFound",
  });
  assert.equal(conditionOf(orphan, "Accepted")?.message, `MyProxy ghost not found in namespace ${ns}`);

  await createProxy(ns, "ghost");
  await waitForCondition(ProxyRoute, ns, "orphan", { type: "Accepted", status: "True" });
  await (await testClient()).delete(MyProxy, "ghost", { namespace: ns });
  await waitForCondition(ProxyRoute, ns, "orphan", {
    type: "Accepted",
    status: "False",
    reason: "ProxyNotFound",
  });
});

test("the CRDs reject malformed routes and proxies", async (t) => {
  const ns = await testNamespace(t);
  const route = (spec: Record<string, unknown>) =>
    JSON.stringify({
      apiVersion: ProxyRoute.apiVersion,
      kind: "ProxyRoute",
      metadata: { name: "bad", namespace: ns },
      spec,
    });
  const valid = { proxy: "edge", host: "a.example.com", path: "/x", backend: { service: "web", port: 80 } };
  const cases: [string, string, RegExp][] = [
    ["a path without a leading slash", route({ ...valid, path: "x" }), /spec\.path/],
    ["a path that could break the configuration", route({ ...valid, path: "/a;b" }), /spec\.path/],
    ["a host that is no DNS name", route({ ...valid, host: "Bad_Host" }), /spec\.host/],
    ["a port out of range", route({ ...valid, backend: { service: "web", port: 70000 } }), /port must be/],
    [
      "a malformed port name",
      route({ ...valid, backend: { service: "web", port: "No Name" } }),
      /port must be/,
    ],
    [
      "too many replicas",
      JSON.stringify({
        apiVersion: MyProxy.apiVersion,
        kind: "MyProxy",
        metadata: { name: "big", namespace: ns },
        spec: { replicas: 21 },
      }),
      /spec\.replicas/,
    ],
    [
      "a name too long for the instance label of its children",
      JSON.stringify({
        apiVersion: MyProxy.apiVersion,
        kind: "MyProxy",
        metadata: { name: "x".repeat(64), namespace: ns },
        spec: {},
      }),
      /metadata\.name must be at most 63 characters: the MyProxy controller names its children after it/,
    ],
  ];
  for (const [what, manifest, error] of cases) {
    const result = await kubectl(["create", "-f", "-"], { input: manifest, allowFail: true });
    assert.notEqual(result.code, 0, `${what} was accepted`);
    assert.match(result.stderr, error, what);
  }
  const ok = await kubectl(["create", "-f", "-"], { input: route(valid), allowFail: true });
  assert.equal(ok.code, 0, ok.stderr);
});

test("a route the CRD should have refused (a loosened CRD) is rejected as InvalidSpec and never reaches nginx", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await createService(ns, "web", [{ port: 80 }]);
  await createProxy(ns, "edge");
  await createRoute(ns, "good", { proxy: "edge", host: "www.example.com", service: "web", port: 80 });
  const evil = "example.com; } server { listen 8081; location / { return 200 'pwned'; }";
  const client = await testClient();
  const strict = crdFor(ProxyRoute);
  const loose = structuredClone(strict);
  const host = loose.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec?.properties?.host;
  assert.ok(host?.pattern, "the CRD has a host pattern to loosen");
  delete host.pattern;
  t.after(() => client.apply(CustomResourceDefinition, strict, { force: true }));
  // Other test files re-apply the strict CRD as they start: loosen it again until the route is in.
  await eventually(
    async () => {
      await client.apply(CustomResourceDefinition, loose, { force: true });
      return createRoute(ns, "evil", { proxy: "edge", host: evil, service: "web", port: 80 });
    },
    { what: "the route with an unsafe host created under the loosened CRD" },
  );
  const rejected = await waitForCondition(ProxyRoute, ns, "evil", {
    type: "Accepted",
    status: "False",
    reason: "InvalidSpec",
  });
  assert.match(conditionOf(rejected, "Accepted")?.message ?? "", /^spec\.host is not allowed/);
  await waitForCondition(ProxyRoute, ns, "good", { type: "Accepted", status: "True" });
  const config = await configOf(ns, "edge");
  assert.deepEqual(routesIn(config), ["good"]);
  assert.doesNotMatch(config ?? "", /pwned|8081/);
});
