import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import type { ObjectOf, ResourceType } from "../../../src/api/index.ts";
import { KubeloopError } from "../../../src/errors/index.ts";
import { defineKind, SpecValidationError, withRules } from "../../../src/schema/index.ts";
import { Widget } from "./fixtures.ts";

type WidgetObject = ObjectOf<typeof Widget>;

describe("defineKind handle", () => {
  it("is a frozen ResourceType with apiVersion group/version, plural and scope", () => {
    const type: ResourceType = Widget;
    assert.equal(type.apiVersion, "example.kubeloop.dev/v1");
    assert.equal(type.kind, "Widget");
    assert.equal(type.plural, "widgets");
    assert.equal(type.namespaced, true);
    assert.ok(Object.isFrozen(Widget));
  });

  it("is cluster-scoped for scope Cluster", () => {
    const kind = defineKind({
      group: "example.com",
      version: "v1",
      kind: "Zone",
      scope: "Cluster",
      spec: z.object({}),
    });
    assert.equal(kind.namespaced, false);
    assert.equal(kind.singular, "zone");
    assert.equal(kind.listKind, "ZoneList");
  });
});

describe("parseSpec", () => {
  const valid = { image: "nginx:1", mode: "Active", owner: "team-a" };

  it("returns the typed spec with defaults applied", () => {
    const spec = Widget.parseSpec(valid);
    assert.equal(spec.replicas, 1);
    assert.equal(spec.tier, "standard");
  });

  it("throws SpecValidationError naming the kind and the failing paths", () => {
    assert.throws(
      () => Widget.parseSpec({ ...valid, replicas: 11, ports: [{ name: "http", port: 0 }] }),
      (err: unknown) => {
        assert.ok(err instanceof SpecValidationError);
        assert.ok(err instanceof KubeloopError);
        assert.equal(err.code, "KL_SCHEMA_INVALID");
        assert.equal(err.kindName, "Widget");
        assert.ok(err.issues.some((issue) => issue.startsWith(".spec.replicas:")));
        assert.ok(err.issues.some((issue) => issue.startsWith(".spec.ports[0].port:")));
        assert.match(err.message, /^Widget spec is invalid/);
        return true;
      },
    );
  });

  it("safeParseSpec reports without throwing", () => {
    assert.equal(Widget.safeParseSpec(valid).success, true);
    assert.equal(Widget.safeParseSpec({ ...valid, mode: "Off" }).success, false);
  });
});

describe("inferred object type", () => {
  it("types spec and status fields from the schemas", () => {
    const widget: WidgetObject = {
      apiVersion: Widget.apiVersion,
      kind: Widget.kind,
      metadata: { name: "w" },
      spec: Widget.parseSpec({ image: "nginx:1", mode: "Standby", owner: "me", replicas: 0 }),
      status: {
        readyReplicas: 0,
        observedGeneration: 1,
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "Ok",
            message: "",
            lastTransitionTime: "2024-01-01T00:00:00Z",
          },
        ],
      },
    };
    const replicas: number = widget.spec.replicas;
    const mode: "Active" | "Standby" = widget.spec.mode;
    // @ts-expect-error replicas is a number, not a string
    const wrong: string = widget.spec.replicas;
    // @ts-expect-error the spec has no field "size"
    widget.spec.size;
    // @ts-expect-error status.readyReplicas is a number
    widget.status = { readyReplicas: "1" };
    assert.deepEqual([replicas, mode, typeof wrong], [0, "Standby", "number"]);
  });
});

describe("markers", () => {
  it("withRules appends to rules already declared on the field", () => {
    const field = withRules(withRules(z.string(), { rule: "self != ''" }), { rule: "size(self) < 10" });
    assert.deepEqual(
      (field.meta()?.["x-kubernetes-validations"] as { rule: string }[] | undefined)?.map(
        (rule) => rule.rule,
      ),
      ["self != ''", "size(self) < 10"],
    );
  });
});
