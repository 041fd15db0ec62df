/**
 * The Client's verbs, end to end through its real interceptors and transport, with undici's
 * `request` stubbed (Client has no seam to inject a Dispatch; see undici-stub.ts).
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import {
  ConfigMap,
  type ConfigMapObject,
  Deployment,
  type DeploymentObject,
  Namespace,
  resourceType,
} from "../../../src/api/index.ts";
import {
  type ApiRequest,
  Client,
  type ClientOptions,
  ConflictError,
  InvalidError,
  KindNotFoundError,
  NotFoundError,
  type RequestObservation,
} from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { FakeCredentials, fakeConnection, flush, snapshot } from "./support.ts";
import { pathOf, queryOf, type SentRequest, type StubAnswer, stubUndici } from "./undici-stub.ts";

function cm(name: string, namespace?: string): ConfigMapObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { a: "1" } };
}

function clientWith(
  t: TestContext,
  answer: (request: SentRequest, index: number) => StubAnswer | Promise<StubAnswer>,
  options: ClientOptions = {},
) {
  const sent = stubUndici(t, answer);
  const clock = new FakeClock();
  const client = new Client(fakeConnection(), { clock, ...options });
  return { client, sent, clock };
}

const bodyOf = (request: SentRequest | undefined): Record<string, unknown> =>
  JSON.parse(request?.body ?? "null") as Record<string, unknown>;

describe("Client.get / create / update", () => {
  it("gets an object from the default namespace and keeps its type metadata", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: cm("a", "team-a") }));
    const got = await client.get(ConfigMap, "a");
    assert.equal(sent[0]?.method, "GET");
    assert.equal(pathOf(sent[0] as SentRequest), "/prefix/api/v1/namespaces/team-a/configmaps/a");
    assert.deepEqual(got, cm("a", "team-a"));
    assert.equal(client.defaultNamespace, "team-a");
  });

  it("stamps apiVersion and kind when the answer lacks them", async (t) => {
    const { client } = clientWith(t, () => ({ status: 200, body: { metadata: { name: "web" } } }));
    const got = await client.get(Deployment, "web", { namespace: "ns" });
    assert.equal(got.apiVersion, "apps/v1");
    assert.equal(got.kind, "Deployment");
  });

  it("does not put cluster-scoped kinds in a namespace", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: {} }));
    await client.get(Namespace, "team", { namespace: "ignored" });
    assert.equal(pathOf(sent[0] as SentRequest), "/prefix/api/v1/namespaces/team");
  });

  it("throws the typed error of a failure answer", async (t) => {
    const { client } = clientWith(t, () => ({
      status: 404,
      body: { kind: "Status", code: 404, reason: "NotFound", message: 'configmaps "a" not found' },
    }));
    await assert.rejects(client.get(ConfigMap, "a", { namespace: "ns" }), (err: unknown) => {
      assert.ok(err instanceof NotFoundError);
      assert.deepEqual(err.request.path, "/api/v1/namespaces/ns/configmaps/a");
      return true;
    });
  });

  it("creates in the object's namespace with the field manager and write options", async (t) => {
    const { client, sent } = clientWith(t, (r) => ({ status: 201, body: JSON.parse(r.body ?? "{}") }), {
      fieldManager: "widgets",
    });
    await client.create(ConfigMap, cm("a", "ns"), { dryRun: true, fieldValidation: "Strict" });
    const request = sent[0] as SentRequest;
    assert.equal(request.method, "POST");
    assert.equal(pathOf(request), "/prefix/api/v1/namespaces/ns/configmaps");
    assert.deepEqual(queryOf(request), { fieldManager: "widgets", dryRun: "All", fieldValidation: "Strict" });
    assert.equal(request.headers["content-type"], "application/json");
    assert.deepEqual(bodyOf(request), cm("a", "ns"));
  });

  it("updates by name with PUT and reports conflicts as ConflictError", async (t) => {
    const { client, sent } = clientWith(t, () => ({
      status: 409,
      body: { code: 409, reason: "Conflict", message: "the object has been modified" },
    }));
    await assert.rejects(client.update(ConfigMap, cm("a", "ns")), ConflictError);
    assert.equal(sent[0]?.method, "PUT");
    assert.equal(pathOf(sent[0] as SentRequest), "/prefix/api/v1/namespaces/ns/configmaps/a");
    assert.deepEqual(queryOf(sent[0] as SentRequest), { fieldManager: "kubeloop" });
  });
});

describe("Client.list", () => {
  it("follows continue tokens and stamps apiVersion and kind on every item", async (t) => {
    const pages = [
      { items: [{ metadata: { name: "a" } }], metadata: { resourceVersion: "5", continue: "token-1" } },
      { items: [{ metadata: { name: "b" } }], metadata: { resourceVersion: "6", continue: "token-2" } },
      { items: [{ metadata: { name: "c" } }], metadata: { resourceVersion: "7", continue: "" } },
    ];
    const { client, sent } = clientWith(t, (_r, i) => ({ status: 200, body: pages[i] }));
    const list = await client.list(ConfigMap, {
      namespace: "ns",
      labelSelector: "app=web",
      limit: 1,
      resourceVersion: "0",
      resourceVersionMatch: "NotOlderThan",
    });
    assert.deepEqual(list, {
      items: ["a", "b", "c"].map((name) => ({ metadata: { name }, apiVersion: "v1", kind: "ConfigMap" })),
      resourceVersion: "7",
    });
    assert.deepEqual(
      sent.map((r) => queryOf(r)),
      [
        { labelSelector: "app=web", limit: "1", resourceVersion: "0", resourceVersionMatch: "NotOlderThan" },
        { labelSelector: "app=web", limit: "1", continue: "token-1" },
        { labelSelector: "app=web", limit: "1", continue: "token-2" },
      ],
    );
    assert.ok(sent.every((r) => pathOf(r) === "/prefix/api/v1/namespaces/ns/configmaps"));
  });

  it("lists across namespaces with a default page size of 500", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: { metadata: {} } }));
    const list = await client.list(ConfigMap);
    assert.deepEqual(list, { items: [], resourceVersion: "" });
    assert.equal(pathOf(sent[0] as SentRequest), "/prefix/api/v1/configmaps");
    assert.deepEqual(queryOf(sent[0] as SentRequest), { limit: "500" });
  });

  it("sends a shard selector and returns the shardInfo the server echoed, on every page", async (t) => {
    const selector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
    const shardInfo = { selector };
    const pages = [
      { items: [{ metadata: { name: "a" } }], metadata: { resourceVersion: "5", continue: "t", shardInfo } },
      { items: [{ metadata: { name: "b" } }], metadata: { resourceVersion: "6", shardInfo } },
    ];
    const { client, sent } = clientWith(t, (_r, i) => ({ status: 200, body: pages[i] }));
    const list = await client.list(ConfigMap, { shardSelector: selector, limit: 1 });
    assert.deepEqual(list.shardInfo, shardInfo);
    assert.deepEqual(
      sent.map((r) => queryOf(r).shardSelector),
      [selector, selector],
    );
  });

  it("returns no shardInfo where the server ignored the selector (the feature gate off)", async (t) => {
    const { client } = clientWith(t, () => ({
      status: 200,
      body: { items: [], metadata: { resourceVersion: "1" } },
    }));
    const page = await client.listPage(ConfigMap, {
      shardSelector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
    });
    assert.equal("shardInfo" in page, false);
  });

  it("asks for PartialObjectMetadataList when listing metadata only", async (t) => {
    const { client, sent } = clientWith(t, () => ({
      status: 200,
      body: { kind: "PartialObjectMetadataList", items: [{ metadata: { name: "a" } }], metadata: {} },
    }));
    const page = await client.listPage(ConfigMap, { metadataOnly: true });
    assert.match(
      sent[0]?.headers.accept as string,
      /^application\/json;as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1/,
    );
    assert.equal(page.items[0]?.kind, "ConfigMap");
    assert.equal(page.continue, undefined);
  });
});

describe("Client.apply / patch", () => {
  it("applies with application/apply-patch+yaml, the field manager and force", async (t) => {
    const { client, sent } = clientWith(t, (r) => ({ status: 200, body: JSON.parse(r.body ?? "{}") }));
    const applied = await client.apply(
      ConfigMap,
      { metadata: { name: "a", namespace: "ns" }, data: { k: "v" } } as unknown as ConfigMapObject,
      { fieldManager: "widgets", force: true },
    );
    const request = sent[0] as SentRequest;
    assert.equal(request.method, "PATCH");
    assert.equal(request.headers["content-type"], "application/apply-patch+yaml");
    assert.equal(pathOf(request), "/prefix/api/v1/namespaces/ns/configmaps/a");
    assert.deepEqual(queryOf(request), { fieldManager: "widgets", force: "true" });
    assert.deepEqual(bodyOf(request), {
      metadata: { name: "a", namespace: "ns" },
      data: { k: "v" },
      apiVersion: "v1",
      kind: "ConfigMap",
    });
    assert.equal(applied.kind, "ConfigMap");
  });

  it("applies without force by default, with the client's field manager", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: {} }), { fieldManager: "op" });
    await client.apply(ConfigMap, cm("a"));
    assert.deepEqual(queryOf(sent[0] as SentRequest), { fieldManager: "op" });
    assert.equal(pathOf(sent[0] as SentRequest), "/prefix/api/v1/namespaces/team-a/configmaps/a");
  });

  it("applies the status subresource", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: {} }));
    await client.status.apply(Deployment, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
    });
    assert.equal(
      pathOf(sent[0] as SentRequest),
      "/prefix/apis/apps/v1/namespaces/team-a/deployments/web/status",
    );
    assert.equal(sent[0]?.headers["content-type"], "application/apply-patch+yaml");
  });

  for (const [type, contentType] of [
    ["merge", "application/merge-patch+json"],
    ["json", "application/json-patch+json"],
    ["strategic", "application/strategic-merge-patch+json"],
  ] as const) {
    it(`sends a ${type} patch as ${contentType}`, async (t) => {
      const { client, sent } = clientWith(t, () => ({ status: 200, body: {} }));
      const patch = type === "json" ? [{ op: "add", path: "/data/b", value: "2" }] : { data: { b: "2" } };
      await client.patch(ConfigMap, "a", patch, { type, namespace: "ns" });
      const request = sent[0] as SentRequest;
      assert.equal(request.method, "PATCH");
      assert.equal(request.headers["content-type"], contentType);
      assert.equal(pathOf(request), "/prefix/api/v1/namespaces/ns/configmaps/a");
      assert.deepEqual(JSON.parse(request.body ?? ""), patch);
      assert.deepEqual(queryOf(request), { fieldManager: "kubeloop" });
    });
  }

  it("patches and updates the status subresource", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: {} }));
    await client.status.patch(Deployment, "web", { status: {} }, { type: "merge", namespace: "ns" });
    const web = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" } };
    await client.status.update(Deployment, web as unknown as DeploymentObject);
    await client.status.get(Deployment, "web", { namespace: "ns" });
    assert.deepEqual(
      sent.map((r) => [r.method, pathOf(r)]),
      [
        ["PATCH", "/prefix/apis/apps/v1/namespaces/ns/deployments/web/status"],
        ["PUT", "/prefix/apis/apps/v1/namespaces/team-a/deployments/web/status"],
        ["GET", "/prefix/apis/apps/v1/namespaces/ns/deployments/web/status"],
      ],
    );
  });
});

describe("Client.delete", () => {
  it("sends DeleteOptions with propagation policy, preconditions and grace period", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: cm("a", "ns") }));
    const last = await client.delete(ConfigMap, "a", {
      namespace: "ns",
      propagationPolicy: "Foreground",
      preconditions: { uid: "u-1", resourceVersion: "42" },
      gracePeriodSeconds: 0,
      dryRun: true,
    });
    const request = sent[0] as SentRequest;
    assert.equal(request.method, "DELETE");
    assert.equal(pathOf(request), "/prefix/api/v1/namespaces/ns/configmaps/a");
    assert.deepEqual(queryOf(request), { dryRun: "All" });
    assert.deepEqual(bodyOf(request), {
      apiVersion: "v1",
      kind: "DeleteOptions",
      propagationPolicy: "Foreground",
      preconditions: { uid: "u-1", resourceVersion: "42" },
      gracePeriodSeconds: 0,
    });
    assert.deepEqual(last, cm("a", "ns"));
  });

  it("returns undefined when the server answers with a Status", async (t) => {
    const { client } = clientWith(t, () => ({
      status: 200,
      body: { kind: "Status", apiVersion: "v1", status: "Success", details: { name: "a" } },
    }));
    assert.equal(await client.delete(ConfigMap, "a"), undefined);
  });

  it("throws NotFoundError for a missing object", async (t) => {
    const { client } = clientWith(t, () => ({ status: 404, body: { code: 404, reason: "NotFound" } }));
    await assert.rejects(client.delete(ConfigMap, "a"), NotFoundError);
  });
});

describe("Client.watchStream and request", () => {
  it("opens a streaming watch with its query, leaving the body unread", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: '{"type":"ADDED"}\n' }));
    const res = await client.watchStream(ConfigMap, {
      namespace: "ns",
      resourceVersion: "10",
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
      metadataOnly: true,
    });
    const request = sent[0] as SentRequest;
    assert.equal(pathOf(request), "/prefix/api/v1/namespaces/ns/configmaps");
    assert.deepEqual(queryOf(request), {
      watch: "1",
      resourceVersion: "10",
      allowWatchBookmarks: "true",
      timeoutSeconds: "300",
    });
    assert.equal(request.bodyTimeout, 0);
    assert.match(request.headers.accept as string, /as=PartialObjectMetadata;/);
    assert.equal(await res.body.text(), '{"type":"ADDED"}\n');
  });

  it("throws the typed error when the watch is refused", async (t) => {
    const { client } = clientWith(t, () => ({
      status: 422,
      body: { code: 422, reason: "Invalid", message: "sendInitialEvents is forbidden" },
    }));
    await assert.rejects(client.watchStream(ConfigMap, { sendInitialEvents: true }), InvalidError);
  });

  describe("a 404 for a collection: the kind is not served", () => {
    const Widget = resourceType("example.com/v1alpha1", "Widget", "widgets", true);
    /** An apiserver that serves example.com/v1 (with Widget) but not v1alpha1: 404 page not found. */
    const answer = (request: SentRequest): StubAnswer => {
      const path = pathOf(request);
      if (path === "/prefix/api") return { status: 200, body: { items: [] } };
      if (path === "/prefix/apis") {
        const resources = [{ resource: "widgets", scope: "Namespaced", responseKind: { kind: "Widget" } }];
        return {
          status: 200,
          body: { items: [{ metadata: { name: "example.com" }, versions: [{ version: "v1", resources }] }] },
        };
      }
      return { status: 404, body: "404 page not found\n" };
    };
    const explained = (err: unknown) => {
      assert.ok(err instanceof KindNotFoundError, String(err));
      assert.equal(err.kind, "example.com/v1alpha1/Widget");
      assert.match(err.message, /serves Widget in example\.com\/v1 but not in v1alpha1/);
      assert.ok(err.cause instanceof NotFoundError);
      return true;
    };

    it("list rejects with the KindNotFoundError discovery explains", async (t) => {
      const { client } = clientWith(t, answer);
      await assert.rejects(client.list(Widget, { namespace: "ns" }), explained);
    });

    it("watchStream rejects with it too", async (t) => {
      const { client } = clientWith(t, answer);
      await assert.rejects(client.watchStream(Widget, { namespace: "ns" }), explained);
    });

    it("a 404 discovery cannot explain stays a NotFoundError", async (t) => {
      const { client } = clientWith(t, answer);
      const Served = resourceType("example.com/v1", "Widget", "widgets", true);
      await assert.rejects(
        client.list(Served),
        (err) => err instanceof NotFoundError && !(err instanceof KindNotFoundError),
      );
    });
  });

  it("sends raw requests and parses their JSON, or returns text that is not JSON", async (t) => {
    const { client } = clientWith(t, (_r, i) => ({ status: 200, body: i === 0 ? { ok: true } : "plain" }));
    assert.deepEqual(await client.request({ method: "GET", verb: "get", path: "/version" }), { ok: true });
    assert.equal(await client.request({ method: "GET", verb: "get", path: "/healthz" }), "plain");
  });
});

describe("Client: warnings, metrics, retries and credentials", () => {
  it("reports each Warning header to onWarning, without the code, agent and quotes", async (t) => {
    const warnings: [string, ApiRequest][] = [];
    const { client } = clientWith(
      t,
      () => ({
        status: 200,
        body: {},
        headers: {
          warning: [
            '299 - "unknown field \\"spec.colour\\""',
            '299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+"',
          ],
        },
      }),
      { onWarning: (warning, request) => warnings.push([warning, request]) },
    );
    await client.create(ConfigMap, cm("a", "ns"));
    assert.deepEqual(
      warnings.map(([w]) => w),
      ['unknown field "spec.colour"', "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+"],
    );
    assert.equal(warnings[0]?.[1].verb, "create");
  });

  it("reports a single Warning header", async (t) => {
    const warnings: string[] = [];
    const { client } = clientWith(
      t,
      () => ({ status: 200, body: {}, headers: { warning: '299 - "careful"' } }),
      {
        onWarning: (warning) => warnings.push(warning),
      },
    );
    await client.get(ConfigMap, "a");
    assert.deepEqual(warnings, ["careful"]);
  });

  it("observes every attempt, and retries a throttled request after Retry-After", async (t) => {
    const seen: RequestObservation[] = [];
    const { client, clock, sent } = clientWith(
      t,
      (_r, i) =>
        i === 0 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200, body: cm("a") },
      { metrics: { request: (o) => seen.push(o) } },
    );
    const got = client.get(ConfigMap, "a");
    await flush();
    assert.equal(sent.length, 1);
    clock.advance(1_000);
    assert.equal((await got).metadata.name, "a");
    assert.deepEqual(
      seen.map((o) => [o.verb, o.code]),
      [
        ["get", "429"],
        ["get", "200"],
      ],
    );
  });

  it("resends once with refreshed credentials after a 401", async (t) => {
    const credentials = new FakeCredentials(snapshot("old"));
    credentials.rotateTo = snapshot("new");
    const sent = stubUndici(t, (r) =>
      r.headers.authorization === "Bearer new" ? { status: 200, body: cm("a") } : { status: 401, body: {} },
    );
    const client = new Client(fakeConnection(credentials), { clock: new FakeClock() });
    assert.equal((await client.get(ConfigMap, "a")).metadata.name, "a");
    assert.deepEqual(
      sent.map((r) => r.headers.authorization),
      ["Bearer old", "Bearer new"],
    );
  });

  it("limits nothing by default, as controller-runtime since 0.21: the apiserver's priority and fairness paces clients", async (t) => {
    const { client, sent } = clientWith(t, () => ({ status: 200, body: {} }));
    const all = Promise.all(Array.from({ length: 100 }, (_, i) => client.get(ConfigMap, `c${i}`)));
    await flush();
    assert.equal(sent.length, 100, "every request sent at once, none waiting for a token");
    await all;
  });

  it("spaces requests beyond the burst at qps", async (t) => {
    const { client, clock, sent } = clientWith(t, () => ({ status: 200, body: {} }), { qps: 5, burst: 2 });
    const all = Promise.all([1, 2, 3].map((i) => client.get(ConfigMap, `c${i}`)));
    await flush();
    assert.equal(sent.length, 2);
    clock.advance(200);
    await all;
    assert.equal(sent.length, 3);
  });
});
