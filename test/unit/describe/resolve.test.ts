import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resourceType } from "../../../src/api/index.ts";
import type { ServedResource } from "../../../src/client/index.ts";
import { InvalidTargetError, UnknownResourceError } from "../../../src/describe/index.ts";
import { parseTarget, resolveResource } from "../../../src/describe/internal/resolve.ts";

function served(apiVersion: string, kind: string, plural: string, shortNames: string[] = []): ServedResource {
  const slash = apiVersion.indexOf("/");
  return {
    type: resourceType(apiVersion, kind, plural, true),
    group: slash < 0 ? "" : apiVersion.slice(0, slash),
    version: apiVersion.slice(slash + 1),
    singular: kind.toLowerCase(),
    shortNames,
    verbs: ["get", "list"],
  };
}

// Discovery's order: the core group first, then groups by priority, preferred versions first.
const resources = [
  served("v1", "Event", "events", ["ev"]),
  served("apps/v1", "Deployment", "deployments", ["deploy"]),
  served("events.k8s.io/v1", "Event", "events"),
  served("proxy.kubeloop.dev/v1", "MyProxy", "myproxies"),
  served("proxy.kubeloop.dev/v1alpha1", "MyProxy", "myproxies"),
];

const resolved = (resource: string) => resolveResource(resources, resource).type.apiVersion;

describe("parseTarget", () => {
  it("splits <kind>/<name>", () => {
    assert.deepEqual(parseTarget("deployments.apps/web"), { resource: "deployments.apps", name: "web" });
  });

  it("rejects anything else, naming the form to use", () => {
    for (const target of ["web", "deployment/", "/web", "a/b/c"]) {
      assert.throws(() => parseTarget(target), InvalidTargetError);
    }
    assert.throws(() => parseTarget("web"), /give it as <kind>\/<name>, e\.g\. deployment\/web/);
  });
});

describe("resolveResource", () => {
  it("accepts the plural, singular, kind in any case and short names, as kubectl does", () => {
    for (const name of ["deployments", "deployment", "Deployment", "DEPLOYMENT", "deploy"]) {
      assert.equal(resolved(name), "apps/v1", name);
    }
    assert.equal(resolved("MyProxy"), "proxy.kubeloop.dev/v1");
    assert.equal(resolved("myproxy"), "proxy.kubeloop.dev/v1");
  });

  it("takes the first match in discovery's order, unless a group or version.group says otherwise", () => {
    assert.equal(resolved("events"), "v1");
    assert.equal(resolved("events.events.k8s.io"), "events.k8s.io/v1");
    assert.equal(resolved("myproxies.v1alpha1.proxy.kubeloop.dev"), "proxy.kubeloop.dev/v1alpha1");
    assert.equal(resolved("deployments.apps"), "apps/v1");
  });

  it("rejects a name no resource has, or a group that does not serve it", () => {
    assert.throws(() => resolveResource(resources, "deploymnt"), UnknownResourceError);
    assert.throws(
      () => resolveResource(resources, "deployments.batch"),
      (err: unknown) => err instanceof UnknownResourceError && err.resource === "deployments.batch",
    );
  });
});
