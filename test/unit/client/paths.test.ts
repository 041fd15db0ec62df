import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, Deployment, Namespace, resourceType } from "../../../src/api/index.ts";
import { resourcePath } from "../../../src/client/internal/paths.ts";

const ClusterRole = resourceType("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", false);

describe("resourcePath", () => {
  it("puts the core group under /api and named groups under /apis", () => {
    assert.equal(resourcePath(ConfigMap), "/api/v1/configmaps");
    assert.equal(resourcePath(Deployment), "/apis/apps/v1/deployments");
  });

  it("scopes a namespaced collection and object to their namespace", () => {
    assert.equal(resourcePath(ConfigMap, { namespace: "ns" }), "/api/v1/namespaces/ns/configmaps");
    assert.equal(
      resourcePath(Deployment, { namespace: "ns", name: "web" }),
      "/apis/apps/v1/namespaces/ns/deployments/web",
    );
  });

  it("lists a namespaced kind across all namespaces without a namespace", () => {
    assert.equal(resourcePath(Deployment, {}), "/apis/apps/v1/deployments");
  });

  it("ignores a namespace for cluster-scoped kinds", () => {
    assert.equal(resourcePath(Namespace, { namespace: "ns", name: "team" }), "/api/v1/namespaces/team");
    assert.equal(
      resourcePath(ClusterRole, { namespace: "ns", name: "admin" }),
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin",
    );
  });

  it("appends a subresource after the object name", () => {
    assert.equal(
      resourcePath(Deployment, { namespace: "ns", name: "web", subresource: "status" }),
      "/apis/apps/v1/namespaces/ns/deployments/web/status",
    );
    assert.equal(
      resourcePath(ClusterRole, { name: "admin", subresource: "status" }),
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin/status",
    );
  });

  it("drops a subresource without an object name", () => {
    assert.equal(
      resourcePath(ConfigMap, { namespace: "ns", subresource: "status" }),
      "/api/v1/namespaces/ns/configmaps",
    );
  });

  it("encodes names and namespaces", () => {
    assert.equal(
      resourcePath(ConfigMap, { namespace: "a b", name: "x/y?z" }),
      "/api/v1/namespaces/a%20b/configmaps/x%2Fy%3Fz",
    );
  });
});
