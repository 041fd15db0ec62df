/**
 * The fault-injecting proxy against a real apiserver: the run's cluster for faults, watches and
 * counting, and a cluster of its own for RBAC (its CA issues the users' certificates). The HTTP
 * and watch helpers at the top serve every test here, which is why this file stays whole.
 */
import assert from "node:assert/strict";
import { request as httpsRequest } from "node:https";
import { type TestContext, test } from "node:test";
import { Agent, request } from "undici";
import { startCluster } from "../../../src/cluster/index.ts";
import {
  type FaultProxy,
  type RequestRecord,
  startProxy,
  upstreamFromKubeconfig,
} from "../../../src/testing/proxy/index.ts";
import { eventually, kubeconfigPath, kubectl, testNamespace } from "../support.ts";

interface Body {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { retryAfterSeconds?: number };
  metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
  status?: { userInfo?: { username?: string; groups?: string[] } };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Body;
}

interface WatchEvent {
  type: string;
  object: Body;
  /** When the test process received it. */
  at: number;
}

interface Watcher {
  events: WatchEvent[];
  state: "open" | "ended" | "failed";
}

type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

interface Harness {
  proxy: FaultProxy;
  call: Call;
  watch: (path: string) => Promise<Watcher>;
}

/** A proxy in front of the run's cluster, and an admin HTTPS client that goes through it. */
async function proxyForRun(t: TestContext): Promise<Harness> {
  const upstream = upstreamFromKubeconfig(kubeconfigPath());
  const proxy = await startProxy({ upstream });
  const agent = new Agent({ connect: { ca: proxy.caPem, cert: upstream.cert, key: upstream.key } });
  t.after(async () => {
    await proxy.stop();
    await agent.destroy();
  });
  const call: Call = async (method, path, body) => {
    const res = await request(`${proxy.url}${path}`, {
      method: method as "GET",
      dispatcher: agent,
      headers: { "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, body: text ? (JSON.parse(text) as Body) : {} };
  };
  return { proxy, call, watch: (path) => openWatch(t, `${proxy.url}${path}`, agent) };
}

/** Opens a watch and collects its events in the background until it ends or fails. */
async function openWatch(t: TestContext, url: string, agent: Agent): Promise<Watcher> {
  const res = await request(url, { dispatcher: agent, bodyTimeout: 0 });
  assert.equal(res.statusCode, 200, "the watch is accepted");
  const watcher: Watcher = { events: [], state: "open" };
  t.after(() => res.body.destroy());
  void (async () => {
    let partial = "";
    try {
      for await (const chunk of res.body) {
        const lines = (partial + String(chunk)).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines.filter(Boolean)) {
          watcher.events.push({ ...(JSON.parse(line) as { type: string; object: Body }), at: Date.now() });
        }
      }
      watcher.state = "ended";
    } catch {
      watcher.state = "failed";
    }
  })();
  return watcher;
}

const configMap = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: {} });
const annotate = (ns: string, name: string, step: string) =>
  kubectl(["-n", ns, "annotate", "configmap", name, `step=${step}`, "--overwrite"]);
const steps = (w: Watcher) => w.events.map((e) => e.object.metadata?.annotations?.step);
const watchRecord = (proxy: FaultProxy): RequestRecord | undefined =>
  proxy.requests().find((r) => r.verb === "watch" && r.events !== undefined);

/** Creates ConfigMap `a` directly on the apiserver and watches the namespace's ConfigMaps through the proxy from then on. */
async function watchConfigMaps(h: Harness, ns: string): Promise<Watcher> {
  await kubectl(["-n", ns, "create", "configmap", "a"]);
  const list = await h.call("GET", `/api/v1/namespaces/${ns}/configmaps`);
  const rv = list.body.metadata?.resourceVersion;
  return h.watch(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`);
}

test("kubectl gets, lists and creates through the proxy kubeconfig, as the admin it came from", async (t) => {
  const { proxy } = await proxyForRun(t);
  const ns = await testNamespace(t);
  const kubeconfig = proxy.kubeconfig();
  await kubectl(["-n", ns, "create", "configmap", "settings", "--from-literal=mode=fast"], { kubeconfig });
  const got = JSON.parse(
    (await kubectl(["-n", ns, "get", "configmap", "settings", "-o", "json"], { kubeconfig })).stdout,
  );
  assert.equal((got as Body).data?.mode, "fast");
  const listed = await kubectl(["-n", ns, "get", "configmaps", "-o", "name"], { kubeconfig });
  assert.match(listed.stdout, /configmap\/settings/);
  assert.deepEqual(proxy.counts().byResource.configmaps, { create: 1, get: 1, list: 1 });
  assert.equal(proxy.mutatingCount(), 1);
  const records = proxy.requests().filter((r) => r.resource === "configmaps");
  assert.deepEqual(
    records.map((r) => [r.verb, r.status, r.caller]),
    [
      ["create", 201, "kubeloop-admin"],
      ["get", 200, "kubeloop-admin"],
      ["list", 200, "kubeloop-admin"],
    ],
  );
});

test("upgraded connections (exec, port-forward) are refused with a 501 Status", async (t) => {
  const { proxy } = await proxyForRun(t);
  const status = await new Promise<number | undefined>((resolve, reject) => {
    const req = httpsRequest(`${proxy.url}/api/v1/namespaces/default/pods/p/exec`, {
      ca: proxy.caPem,
      headers: { connection: "Upgrade", upgrade: "websocket" },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on("upgrade", () => reject(new Error("the proxy upgraded the connection")));
    req.on("error", reject);
    req.end();
  });
  assert.equal(status, 501);
});

test("counts by verb and resource are exact for a known sequence of requests, and reset to zero", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  h.proxy.resetCounts();
  assert.equal((await h.call("POST", base, configMap("c1"))).status, 201);
  assert.equal((await h.call("POST", base, configMap("c2"))).status, 201);
  await h.call("GET", `${base}/c1`);
  await h.call("GET", `${base}/c1`);
  const c2 = await h.call("GET", `${base}/c2`);
  const list = await h.call("GET", base);
  assert.equal((await h.call("PATCH", `${base}/c1`, { data: { k: "v" } })).status, 200);
  assert.equal((await h.call("PUT", `${base}/c2`, { ...c2.body, data: { k: "w" } })).status, 200);
  assert.equal((await h.call("DELETE", `${base}/c1`)).status, 200);
  await h.watch(`${base}?watch=1&resourceVersion=${list.body.metadata?.resourceVersion}`);
  const byVerb = { create: 2, get: 3, list: 1, patch: 1, update: 1, delete: 1, watch: 1 };
  assert.deepEqual(h.proxy.counts(), { total: 10, byVerb, byResource: { configmaps: byVerb } });
  assert.equal(h.proxy.mutatingCount(), 5);
  h.proxy.resetCounts();
  await h.call("GET", base);
  assert.deepEqual(h.proxy.counts(), {
    total: 1,
    byVerb: { list: 1 },
    byResource: { configmaps: { list: 1 } },
  });
  assert.equal(h.proxy.mutatingCount(), 0, "reads alone are not mutating");
  assert.deepEqual(
    h.proxy.requests().map((r) => r.verb),
    ["list"],
  );
});

test("injected 429 and 500 answers carry a Kubernetes Status; 429 carries Retry-After, which kubectl obeys", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  await kubectl(["-n", ns, "create", "configmap", "a"]);
  const path = `/api/v1/namespaces/${ns}/configmaps/a`;
  h.proxy.inject({ verb: "get", resource: "configmaps", times: 1 }, { status: 429, retryAfterSeconds: 2 });
  const limited = await h.call("GET", path);
  assert.equal(limited.status, 429);
  assert.equal(limited.headers["retry-after"], "2");
  assert.equal(limited.body.kind, "Status");
  assert.equal(limited.body.reason, "TooManyRequests");
  assert.equal(limited.body.code, 429);
  assert.equal(limited.body.details?.retryAfterSeconds, 2);
  assert.equal((await h.call("GET", path)).status, 200, "the rule applied once only");

  h.proxy.resetCounts();
  h.proxy.inject({ verb: "get", resource: "configmaps", times: 2 }, { status: 429 });
  await kubectl(["-n", ns, "get", "configmap", "a"], { kubeconfig: h.proxy.kubeconfig() });
  const statuses = h.proxy
    .requests()
    .filter((r) => r.resource === "configmaps")
    .map((r) => r.status);
  assert.deepEqual(statuses, [429, 429, 200], "kubectl retried after each Retry-After");

  h.proxy.inject({ verb: "list", resource: "configmaps" }, { status: 500, message: "etcd is on fire" });
  const failing = await h.call("GET", `/api/v1/namespaces/${ns}/configmaps`);
  assert.equal(failing.status, 500);
  assert.equal(failing.body.reason, "InternalError");
  assert.equal(failing.headers["retry-after"], undefined);
  const kubectlFailing = await kubectl(["-n", ns, "get", "configmaps"], {
    kubeconfig: h.proxy.kubeconfig(),
    allowFail: true,
  });
  assert.notEqual(kubectlFailing.code, 0);
  assert.match(kubectlFailing.stderr, /etcd is on fire/);
});

test("injected latency delays the answer by at least that long", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  await kubectl(["-n", ns, "create", "configmap", "a"]);
  h.proxy.inject({ verb: "get", resource: "configmaps" }, { latencyMs: 700 });
  const started = performance.now();
  const answer = await h.call("GET", `/api/v1/namespaces/${ns}/configmaps/a`);
  const elapsed = performance.now() - started;
  assert.equal(answer.status, 200);
  assert.ok(elapsed >= 700, `took ${elapsed.toFixed(0)} ms`);
  assert.deepEqual(h.proxy.requests().at(-1)?.faults, ["latency"]);
});

test("a connection reset surfaces as an error, before or after the response headers", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  await kubectl(["-n", ns, "create", "configmap", "a"]);
  h.proxy.inject({ verb: "create", resource: "configmaps" }, { reset: "before-headers" });
  const created = await kubectl(["-n", ns, "create", "configmap", "lost"], {
    kubeconfig: h.proxy.kubeconfig(),
    allowFail: true,
  });
  assert.notEqual(created.code, 0, "kubectl create fails");
  const lost = await kubectl(["-n", ns, "get", "configmap", "lost"], { allowFail: true });
  assert.match(lost.stderr, /NotFound/, "the request never reached the apiserver");
  await assert.rejects(h.call("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("raw")));

  h.proxy.inject({ verb: "watch" }, { reset: "after-headers" });
  const watcher = await h.watch(`/api/v1/namespaces/${ns}/configmaps?watch=1`);
  await eventually(() => watcher.state === "failed", { what: "the watch to fail after its headers" });
});

test("a blackholed request gets no answer until its rule is removed, and fails when the proxy stops", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  await kubectl(["-n", ns, "create", "configmap", "a"]);
  const path = `/api/v1/namespaces/${ns}/configmaps/a`;
  const blackholed = () =>
    h.proxy.requests().find((r) => r.faults.includes("blackhole") && r.status === undefined);
  const rule = h.proxy.inject({ verb: "get", resource: "configmaps" }, { blackhole: true });
  let settled = false;
  const pending = h.call("GET", path).finally(() => {
    settled = true;
  });
  await eventually(blackholed, { what: "the proxy to hold the request" });
  assert.equal(settled, false);
  rule.remove();
  assert.equal((await pending).status, 200, "released once the rule is gone");

  h.proxy.inject({ verb: "get", resource: "configmaps" }, { blackhole: true });
  const failed = assert.rejects(h.call("GET", path));
  await eventually(blackholed, { what: "the proxy to hold the second request" });
  await h.proxy.stop();
  await failed;
});

test("a watch sees events, none of the changes made while dropEvents is in place, then new ones after removal", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  const watcher = await watchConfigMaps(h, ns);
  await annotate(ns, "a", "1");
  await eventually(() => steps(watcher).includes("1"), { what: "the first change" });

  const drop = h.proxy.inject(
    { verb: "watch", resource: "configmaps", namespace: ns },
    { dropEvents: "all" },
  );
  await annotate(ns, "a", "2");
  await annotate(ns, "a", "3");
  await kubectl(["-n", ns, "create", "configmap", "b"]);
  await eventually(() => (watchRecord(h.proxy)?.events?.dropped ?? 0) >= 3, { what: "three dropped events" });
  assert.deepEqual(steps(watcher), ["1"], "no change made under the rule arrived");
  assert.equal(watchRecord(h.proxy)?.events?.forwarded, 1);

  drop.remove();
  await annotate(ns, "a", "4");
  await eventually(() => steps(watcher).includes("4"), { what: "a change after removal" });
  assert.deepEqual(steps(watcher), ["1", "4"]);
  assert.equal(watcher.state, "open");
});

test("duplicateEvents delivers each event twice", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  const watcher = await watchConfigMaps(h, ns);
  h.proxy.inject({ verb: "watch" }, { duplicateEvents: "all" });
  await annotate(ns, "a", "1");
  await eventually(() => watcher.events.length >= 2, { what: "two copies" });
  const [first, second] = watcher.events;
  assert.equal(first?.type, "MODIFIED");
  assert.deepEqual(second?.object, first?.object);
  assert.equal(watchRecord(h.proxy)?.events?.duplicated, 1);
});

test("silence keeps the watch open without events; events flow on the same connection once lifted", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  const watcher = await watchConfigMaps(h, ns);
  const silence = h.proxy.inject({ verb: "watch", resource: "configmaps" }, { silence: true });
  await annotate(ns, "a", "1");
  await annotate(ns, "a", "2");
  await eventually(() => (watchRecord(h.proxy)?.events?.silenced ?? 0) >= 2, { what: "two silenced events" });
  assert.deepEqual(watcher.events, []);
  assert.equal(watcher.state, "open");
  assert.equal(watchRecord(h.proxy)?.durationMs, undefined, "the proxy still holds the stream open");

  silence.remove();
  await annotate(ns, "a", "3");
  await eventually(() => steps(watcher).includes("3"), { what: "events after the silence" });
  assert.deepEqual(steps(watcher), ["3"]);
  assert.equal(watcher.state, "open");
});

test("killWatches ends every open watch, by reset or cleanly", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  const first = await h.watch(`/api/v1/namespaces/${ns}/configmaps?watch=1`);
  const second = await h.watch(`/api/v1/namespaces/${ns}/secrets?watch=1`);
  assert.equal(h.proxy.killWatches(), 2);
  await eventually(() => first.state === "failed" && second.state === "failed", {
    what: "both watches reset",
  });
  const third = await h.watch(`/api/v1/namespaces/${ns}/configmaps?watch=1`);
  assert.equal(h.proxy.killWatches({ mode: "end" }), 1);
  await eventually(() => third.state === "ended", { what: "a clean end" });
  assert.equal(h.proxy.killWatches(), 0);
});

test("delayEventsMs holds events back, and endStream ends the stream cleanly after them", async (t) => {
  const h = await proxyForRun(t);
  const ns = await testNamespace(t);
  const watcher = await watchConfigMaps(h, ns);
  h.proxy.inject({ verb: "watch" }, { delayEventsMs: 800, endStream: { afterEvents: 1 } });
  const changed = Date.now();
  await annotate(ns, "a", "1");
  await eventually(() => watcher.state === "ended", { what: "the stream to end" });
  assert.deepEqual(steps(watcher), ["1"]);
  const delay = (watcher.events[0]?.at ?? 0) - changed;
  assert.ok(delay >= 800, `arrived ${delay} ms after the change`);
});

test("impersonation keeps the caller's RBAC: certificates by user and group, bearer tokens as they are", async (t) => {
  const cluster = await startCluster({ report: () => {}, components: { scheduler: false, kwok: false } });
  t.after(() => cluster.stop());
  const proxy = await startProxy({ cluster });
  t.after(() => proxy.stop());
  const run = (kubeconfig: string, ...args: string[]) =>
    kubectl(["-n", "default", ...args], { kubeconfig, allowFail: true });
  const whoami = async (kubeconfig: string) =>
    (JSON.parse((await run(kubeconfig, "auth", "whoami", "-o", "json")).stdout) as Body).status?.userInfo;

  assert.equal((await run(proxy.kubeconfig(), "get", "configmaps")).code, 0, "admin may list");
  const alice = proxy.kubeconfig(await cluster.userKubeconfig("alice"));
  const denied = await run(alice, "get", "configmaps");
  assert.notEqual(denied.code, 0);
  assert.match(denied.stderr, /User "alice" cannot list resource "configmaps"/);
  await cluster.kubectl([
    "-n",
    "default",
    "create",
    "rolebinding",
    "alice",
    "--clusterrole=view",
    "--user=alice",
  ]);
  await eventually(async () => (await run(alice, "get", "configmaps")).code === 0, {
    what: "alice's binding",
  });

  const bob = proxy.kubeconfig(await cluster.userKubeconfig("bob", ["readers"]));
  assert.deepEqual(await whoami(bob), { username: "bob", groups: ["readers", "system:authenticated"] });
  assert.notEqual((await run(bob, "get", "configmaps")).code, 0);
  await cluster.kubectl([
    "-n",
    "default",
    "create",
    "rolebinding",
    "readers",
    "--clusterrole=view",
    "--group=readers",
  ]);
  await eventually(async () => (await run(bob, "get", "configmaps")).code === 0, {
    what: "the group's binding",
  });

  await cluster.kubectl(["-n", "default", "create", "serviceaccount", "robot"]);
  const token = (await cluster.kubectl(["-n", "default", "create", "token", "robot"])).stdout.trim();
  const users = cluster.kubeconfig.users.map((u) => ({ name: u.name, user: { token } }));
  const robot = proxy.kubeconfig({ ...cluster.kubeconfig, users });
  assert.equal((await whoami(robot))?.username, "system:serviceaccount:default:robot");
  const robotDenied = await run(robot, "get", "secrets");
  assert.match(robotDenied.stderr, /"system:serviceaccount:default:robot" cannot list resource "secrets"/);
  assert.ok(proxy.requests().some((r) => r.caller === "(bearer)" && r.status === 403));
});
