import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { defineKind, KindDefinitionError, pluralize } from "../../../src/schema/index.ts";

const base = { group: "example.com", version: "v1", scope: "Namespaced", spec: z.object({}) } as const;

describe("pluralize", () => {
  const cases: [string, string][] = [
    ["LoadTest", "loadtests"],
    ["Policy", "policies"],
    ["Gateway", "gateways"],
    ["Ingress", "ingresses"],
    ["Box", "boxes"],
    ["Match", "matches"],
    ["Mesh", "meshes"],
    ["Proxy", "proxies"],
  ];
  for (const [kind, plural] of cases) {
    it(`${kind} → ${plural}`, () => assert.equal(pluralize(kind), plural));
  }

  it("is the default plural of a kind, and an explicit plural wins", () => {
    assert.equal(defineKind({ ...base, kind: "Policy" }).plural, "policies");
    assert.equal(defineKind({ ...base, kind: "Policy", plural: "policys" }).plural, "policys");
  });
});

describe("kind names", () => {
  const rejects = (options: Partial<Parameters<typeof defineKind>[0]>, match: RegExp) =>
    assert.throws(
      () => defineKind({ ...base, kind: "Widget", ...options }),
      (err: unknown) =>
        err instanceof KindDefinitionError && err.code === "KL_SCHEMA_KIND" && match.test(err.message),
    );

  it("rejects a group without a dot", () =>
    rejects({ group: "example" }, /group "example" is not a DNS subdomain/));
  it("rejects a kind that is not CamelCase", () =>
    rejects({ kind: "widget" }, /kind "widget" is not CamelCase/));
  it("rejects an upper-case plural", () => rejects({ plural: "Widgets" }, /plural "Widgets"/));
  it("rejects a bad short name", () => rejects({ shortNames: ["w_1"] }, /short name "w_1"/));
  it("rejects a bad version name", () => rejects({ version: "V1" }, /version "V1"/));
});
