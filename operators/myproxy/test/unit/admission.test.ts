import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, ResourceType } from "kubeloop";
import type { AdmissionContext } from "kubeloop/webhook";
import { acceptedRival, admitRoute } from "../../admission.ts";
import type { ProxyRouteObject } from "../../api.ts";
import { route } from "./fixtures.ts";

/** `r` with its `Accepted` condition set to `status`. */
function withAccepted(r: ProxyRouteObject, status: "True" | "False"): ProxyRouteObject {
  const condition = { type: "Accepted", status, reason: "Test", message: "", lastTransitionTime: "" };
  return { ...r, status: { conditions: [condition] } };
}

/** An admission context whose client lists `routes` (and records the namespace it was asked for). */
function contextWith(routes: ProxyRouteObject[], asked: (string | undefined)[] = []): AdmissionContext {
  const list = async <T extends KubeObject>(_type: ResourceType<T>, opts: { namespace?: string } = {}) => {
    asked.push(opts.namespace);
    return { items: routes as unknown as T[] };
  };
  return { client: { list }, signal: new AbortController().signal } as unknown as AdmissionContext;
}

const web = { host: "a.example.com", path: "/x", service: "web", port: 80 };
const accepted = withAccepted(route("first", web), "True");

describe("acceptedRival", () => {
  it("finds an accepted route of another name with the same MyProxy, host and path", () => {
    assert.equal(acceptedRival(route("second", web), [accepted])?.metadata.name, "first");
  });

  it("ignores the route itself, routes not accepted, and other hosts, paths and proxies", () => {
    const others = [
      withAccepted(route("second", web), "True"),
      withAccepted(route("rejected", web), "False"),
      route("pending", web),
      withAccepted(route("host", { ...web, host: "b.example.com" }), "True"),
      withAccepted(route("path", { ...web, path: "/y" }), "True"),
      { ...accepted, spec: { ...accepted.spec, proxy: "other" } },
    ];
    assert.equal(acceptedRival(route("second", web), others), undefined);
  });
});

describe("admitRoute", () => {
  it("denies a new route with a hazard, each field at fault a cause", async () => {
    const verdict = await admitRoute(
      route("bad", { ...web, host: "10.0.0.7", path: "/a/../b" }),
      undefined,
      contextWith([]),
    );
    assert.equal(verdict?.allowed, false);
    assert.deepEqual(
      verdict?.causes.map((c) => c.field),
      ["spec.host", "spec.path"],
    );
    assert.match(
      verdict?.message ?? "",
      /^spec\.host must be a host name, not an IP address.*; spec\.path must not hold/,
    );
  });

  it("denies a new route taking an accepted route's host and path, naming it, from a live list of its namespace", async () => {
    const asked: (string | undefined)[] = [];
    const second = route("second", web);
    const verdict = await admitRoute(second, undefined, contextWith([accepted], asked));
    assert.deepEqual(asked, [second.metadata.namespace], "one list, of the route's namespace alone");
    assert.equal(verdict?.allowed, false);
    assert.equal(
      verdict?.message,
      "host a.example.com path /x of MyProxy edge is already served by the accepted ProxyRoute first",
    );
    assert.deepEqual(verdict?.causes, [
      { field: "spec.path", message: "already served by the accepted ProxyRoute first" },
    ]);
  });

  it("denies an update that moves a route onto an accepted route's host and path", async () => {
    const old = route("second", { ...web, path: "/y" });
    const verdict = await admitRoute(route("second", web), old, contextWith([accepted]));
    assert.equal(verdict?.allowed, false);
  });

  it("admits an update that keeps the host and path, though another accepted route claims them", async () => {
    const old = route("second", web);
    const changed = route("second", { ...web, service: "api" });
    assert.equal(await admitRoute(changed, old, contextWith([accepted])), undefined);
  });

  it("admits an update of a route whose stored hazard it leaves as it is, and denies a new one", async () => {
    const old = route("legacy", { ...web, path: "/a//b" });
    const relabelled = { ...old, metadata: { ...old.metadata, labels: { team: "x" } } };
    assert.equal(await admitRoute(relabelled, old, contextWith([])), undefined);
    const worse = route("legacy", { ...web, host: "10.0.0.7", path: "/a//b" });
    const verdict = await admitRoute(worse, old, contextWith([]));
    assert.deepEqual(
      verdict?.causes.map((c) => c.field),
      ["spec.host"],
    );
  });

  it("admits a safe route with no rival", async () => {
    assert.equal(
      await admitRoute(route("second", { ...web, path: "/y" }), undefined, contextWith([accepted])),
      undefined,
    );
  });
});
