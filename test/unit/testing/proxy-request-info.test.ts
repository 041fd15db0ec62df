import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeRequest } from "../../../src/testing/proxy/request-info.ts";

describe("proxy: describing requests", () => {
  const cases: [string, string, Record<string, string | undefined>][] = [
    [
      "GET",
      "/api/v1/namespaces/demo/configmaps/a",
      { verb: "get", resource: "configmaps", namespace: "demo", name: "a" },
    ],
    [
      "GET",
      "/api/v1/namespaces/demo/configmaps?limit=500",
      { verb: "list", resource: "configmaps", namespace: "demo" },
    ],
    ["GET", "/api/v1/configmaps?watch=true&resourceVersion=5", { verb: "watch", resource: "configmaps" }],
    ["GET", "/api/v1/namespaces/demo/pods?watch=1", { verb: "watch", resource: "pods", namespace: "demo" }],
    ["GET", "/api/v1/namespaces/demo/pods?watch=false", { verb: "list", resource: "pods" }],
    ["GET", "/api/v1/watch/namespaces/demo/pods", { verb: "watch", resource: "pods", namespace: "demo" }],
    [
      "POST",
      "/apis/apps/v1/namespaces/demo/deployments",
      { verb: "create", resource: "deployments", group: "apps" },
    ],
    [
      "PUT",
      "/apis/apps/v1/namespaces/demo/deployments/web/status",
      { verb: "update", subresource: "status" },
    ],
    ["PATCH", "/api/v1/namespaces/demo/configmaps/a", { verb: "patch", name: "a" }],
    ["DELETE", "/api/v1/namespaces/demo/configmaps/a", { verb: "delete", name: "a" }],
    ["DELETE", "/api/v1/namespaces/demo/configmaps", { verb: "deletecollection", resource: "configmaps" }],
    ["GET", "/api/v1/namespaces/demo", { verb: "get", resource: "namespaces", name: "demo" }],
    [
      "PUT",
      "/api/v1/namespaces/demo/finalize",
      { verb: "update", resource: "namespaces", subresource: "finalize" },
    ],
    ["GET", "/api/v1/nodes", { verb: "list", resource: "nodes", namespace: undefined, group: "" }],
    ["GET", "/version", { verb: "get", resource: undefined }],
    ["GET", "/apis/apps/v1", { verb: "get", resource: undefined }],
    ["OPTIONS", "/api/v1/nodes", { verb: "other" }],
  ];
  for (const [method, url, expected] of cases) {
    it(`${method} ${url}`, () => {
      const info = describeRequest(method, url) as unknown as Record<string, unknown>;
      for (const [field, value] of Object.entries(expected)) assert.equal(info[field], value, field);
    });
  }

  it("keeps the path and the query apart and upper-cases the method", () => {
    const info = describeRequest("get", "/api/v1/pods?watch=1&labelSelector=a%3Db");
    assert.equal(info.method, "GET");
    assert.equal(info.path, "/api/v1/pods");
    assert.equal(info.query, "watch=1&labelSelector=a%3Db");
  });
});
