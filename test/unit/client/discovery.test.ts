import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ApiRequest,
  Discovery,
  ForbiddenError,
  KindNotFoundError,
  ServerError,
} from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { response } from "./support.ts";

type Resource = {
  resource: string;
  scope: "Namespaced" | "Cluster";
  responseKind?: { kind: string };
  singularResource?: string;
  shortNames?: string[];
  verbs?: string[];
};

function group(name: string, versions: Record<string, Resource[]>) {
  return {
    metadata: { name },
    versions: Object.entries(versions).map(([version, resources]) => ({ version, resources })),
  };
}

const res = (
  resource: string,
  kind: string | undefined,
  scope: Resource["scope"] = "Namespaced",
): Resource => (kind ? { resource, scope, responseKind: { kind } } : { resource, scope });

/** A fake apiserver serving aggregated discovery from mutable `core` and `groups`. */
function fakeServer() {
  const state = {
    core: [
      group("", {
        v1: [
          res("configmaps", "ConfigMap"),
          res("namespaces", "Namespace", "Cluster"),
          res("bindings", undefined),
        ],
      }),
    ],
    groups: [
      group("apps", { v1: [res("deployments", "Deployment")] }),
      group("rbac.authorization.k8s.io", { v1: [res("clusterroles", "ClusterRole", "Cluster")] }),
    ],
    failWith: undefined as number | undefined,
    calls: [] as ApiRequest[],
  };
  const dispatch = async (request: ApiRequest) => {
    state.calls.push(request);
    if (state.failWith) return response(state.failWith, { code: state.failWith, reason: "Forbidden" });
    return response(200, {
      kind: "APIGroupDiscoveryList",
      items: request.path === "/api" ? state.core : state.groups,
    });
  };
  return { state, dispatch };
}

describe("Discovery", () => {
  it("asks /api and /apis for aggregated discovery", async () => {
    const { state, dispatch } = fakeServer();
    await new Discovery(dispatch, new FakeClock()).refresh();
    assert.deepEqual(state.calls.map((c) => [c.method, c.path, c.verb]).sort(), [
      ["GET", "/api", "get"],
      ["GET", "/apis", "get"],
    ]);
    for (const call of state.calls) {
      assert.match(
        call.headers?.accept ?? "",
        /^application\/json;g=apidiscovery\.k8s\.io;v=v2;as=APIGroupDiscoveryList/,
      );
    }
  });

  it("resolves core and group kinds with their plural and scope", async () => {
    const { dispatch } = fakeServer();
    const discovery = new Discovery(dispatch, new FakeClock());
    assert.deepEqual(
      { ...(await discovery.resolve("v1", "ConfigMap")) },
      { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
    );
    assert.deepEqual(
      { ...(await discovery.resolve("v1", "Namespace")) },
      { apiVersion: "v1", kind: "Namespace", plural: "namespaces", namespaced: false },
    );
    assert.deepEqual(
      { ...(await discovery.resolve("apps/v1", "Deployment")) },
      { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true },
    );
    assert.equal((await discovery.resolve("rbac.authorization.k8s.io/v1", "ClusterRole")).namespaced, false);
  });

  it("lists served resources in discovery's order, a group's preferred version first", async () => {
    const { state, dispatch } = fakeServer();
    state.groups.push(
      group("example.com", {
        v2: [
          {
            ...res("widgets", "Widget"),
            singularResource: "widget",
            shortNames: ["wd"],
            verbs: ["get", "list"],
          },
        ],
        v1: [res("widgets", "Widget")],
      }),
    );
    const served = await new Discovery(dispatch, new FakeClock()).resources();
    assert.deepEqual(
      served.map((r) => [r.type.apiVersion, r.type.kind, r.singular, r.shortNames, r.verbs]),
      [
        ["v1", "ConfigMap", "configmap", [], []],
        ["v1", "Namespace", "namespace", [], []],
        ["apps/v1", "Deployment", "deployment", [], []],
        ["rbac.authorization.k8s.io/v1", "ClusterRole", "clusterrole", [], []],
        ["example.com/v2", "Widget", "widget", ["wd"], ["get", "list"]],
        ["example.com/v1", "Widget", "widget", [], []],
      ],
    );
  });

  it("answers from the cache without a request once loaded", async () => {
    const { state, dispatch } = fakeServer();
    const discovery = new Discovery(dispatch, new FakeClock());
    await discovery.resolve("v1", "ConfigMap");
    assert.equal(state.calls.length, 2);
    await discovery.resolve("apps/v1", "Deployment");
    await discovery.resolve("v1", "ConfigMap");
    assert.equal(state.calls.length, 2);
  });

  it("does not confuse versions of a group", async () => {
    const { dispatch } = fakeServer();
    const discovery = new Discovery(dispatch, new FakeClock());
    await assert.rejects(discovery.resolve("apps/v1beta1", "Deployment"), KindNotFoundError);
  });

  it("refreshes on a miss, so a CRD installed later is found", async () => {
    const { state, dispatch } = fakeServer();
    const clock = new FakeClock();
    const discovery = new Discovery(dispatch, clock, 2_000);
    await discovery.resolve("v1", "ConfigMap");
    state.groups.push(group("example.com", { v1: [res("widgets", "Widget")] }));
    clock.advance(2_000);
    const widget = await discovery.resolve("example.com/v1", "Widget");
    assert.equal(widget.plural, "widgets");
    assert.equal(state.calls.length, 4);
  });

  it("refreshes at most once per minRefreshMs for kinds that stay unknown", async () => {
    const { state, dispatch } = fakeServer();
    const clock = new FakeClock();
    const discovery = new Discovery(dispatch, clock, 2_000);
    await assert.rejects(discovery.resolve("example.com/v1", "Widget"), (err: unknown) => {
      assert.ok(err instanceof KindNotFoundError);
      assert.equal(err.code, "KL_KIND_NOT_FOUND");
      assert.match(err.message, /Widget in example\.com\/v1/);
      return true;
    });
    assert.equal(state.calls.length, 2);
    clock.advance(1_999);
    await assert.rejects(discovery.resolve("example.com/v1", "Widget"), KindNotFoundError);
    await assert.rejects(discovery.resolve("example.com/v1", "Gadget"), KindNotFoundError);
    assert.equal(state.calls.length, 2, "no refresh within minRefreshMs");
    clock.advance(1);
    await assert.rejects(discovery.resolve("example.com/v1", "Widget"), KindNotFoundError);
    assert.equal(state.calls.length, 4);
  });

  it("replaces the cached kinds on refresh, forgetting kinds that were removed", async () => {
    const { state, dispatch } = fakeServer();
    const clock = new FakeClock();
    const discovery = new Discovery(dispatch, clock, 0);
    await discovery.resolve("apps/v1", "Deployment");
    state.groups = [];
    await discovery.refresh();
    await assert.rejects(discovery.resolve("apps/v1", "Deployment"), KindNotFoundError);
  });

  it("shares one load between concurrent callers", async () => {
    const { state, dispatch } = fakeServer();
    const discovery = new Discovery(dispatch, new FakeClock());
    await Promise.all([
      discovery.resolve("v1", "ConfigMap"),
      discovery.resolve("apps/v1", "Deployment"),
      discovery.refresh(),
    ]);
    assert.equal(state.calls.length, 2);
  });

  it("throws the typed API error when discovery is refused, and tries again on the next resolve", async () => {
    const { state, dispatch } = fakeServer();
    const discovery = new Discovery(dispatch, new FakeClock());
    state.failWith = 403;
    await assert.rejects(discovery.resolve("v1", "ConfigMap"), ForbiddenError);
    state.failWith = undefined;
    assert.equal((await discovery.resolve("v1", "ConfigMap")).plural, "configmaps");
  });

  it("turns a failure with a body that is not JSON into the typed error", async () => {
    const dispatch = async () => response(503, "upstream connect error or disconnect/reset before headers");
    const discovery = new Discovery(dispatch, new FakeClock());
    await assert.rejects(discovery.resolve("v1", "ConfigMap"), (err: unknown) => {
      assert.ok(err instanceof ServerError, String(err));
      assert.match(err.message, /GET \/apis?: upstream connect error/);
      return true;
    });
  });

  it("names the versions the server serves of the group of a kind it does not serve", async () => {
    const { state, dispatch } = fakeServer();
    state.groups.push(
      group("example.com", { v1: [res("widgets", "Widget")], v2: [res("gadgets", "Gadget")] }),
    );
    const discovery = new Discovery(dispatch, new FakeClock());
    await assert.rejects(discovery.resolve("example.com/v1alpha1", "Widget"), (err: unknown) => {
      assert.ok(err instanceof KindNotFoundError);
      assert.deepEqual(err.served, {
        groupVersions: ["example.com/v1", "example.com/v2"],
        kindVersions: ["example.com/v1"],
      });
      assert.match(err.message, /serves Widget in example\.com\/v1 but not in v1alpha1/);
      return true;
    });
    const sprocket = await discovery.notServed("example.com/v1", "Sprocket");
    assert.match(
      sprocket?.message ?? "",
      /serves example\.com\/v1, example\.com\/v2, but example\.com\/v1 has no kind Sprocket/,
    );
    const missing = await discovery.notServed("missing.io/v1", "Thing");
    assert.deepEqual(missing?.served, { groupVersions: [], kindVersions: [] });
  });

  it("notServed is undefined for a kind discovery serves, and keeps the 404 as the cause otherwise", async () => {
    const { state, dispatch } = fakeServer();
    const clock = new FakeClock();
    const discovery = new Discovery(dispatch, clock, 2_000);
    const notFound = new Error("404 page not found");
    const err = await discovery.notServed("example.com/v1", "Widget", notFound);
    assert.equal(err?.cause, notFound);
    state.groups.push(group("example.com", { v1: [res("widgets", "Widget")] }));
    clock.advance(2_000);
    assert.equal(
      await discovery.notServed("example.com/v1", "Widget"),
      undefined,
      "refreshed: the CRD is installed now",
    );
  });

  it("copes with groups without versions or resources", async () => {
    const { state, dispatch } = fakeServer();
    state.groups = [{ metadata: { name: "empty" }, versions: [] }, { versions: undefined } as never];
    const discovery = new Discovery(dispatch, new FakeClock());
    assert.equal((await discovery.resolve("v1", "ConfigMap")).kind, "ConfigMap");
  });
});
