import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { ConfigMap, keyOf, Secret } from "../../../src/api/index.ts";
import { controller } from "../../../src/controller/index.ts";
import {
  declarationsOf,
  declarationWarnings,
  declaredPermissions,
  manifestsOf,
  permissionsOf,
} from "../../../src/generate/index.ts";
import { defineOperator } from "../../../src/operator/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { Widget } from "../schema/fixtures.ts";

/** An operator whose setup uses the host's cache as real ones do: an index, a scope, a map reading the store. */
const widgets = defineOperator({
  name: "widgets",
  kinds: [Widget],
  watchNamespace: "team",
  permissions: [{ type: Secret, verbs: ["get"] }],
  setup(host) {
    const store = host.cache.informer(Widget).store;
    host.cache.informer(Widget).addIndexer("config", (w) => [keyOf(w)]);
    controller(host)
      .for(Widget)
      .owns(ConfigMap, { scope: { ...host.cache.scopeFor(ConfigMap), labelSelector: "app=widgets" } })
      .watches(Secret, (secret) => store.byIndex("config", keyOf(secret)).map(keyOf))
      .reconcile(async () => undefined);
    controller(host, "audit")
      .for(ConfigMap)
      .reconcile(async () => undefined);
  },
});

describe("declarationsOf", () => {
  it("records what setup declares, on a cache scoped like the running operator's, without a cluster", async () => {
    const [first, second, ...more] = await declarationsOf(widgets);
    assert.equal(more.length, 0);
    assert.equal(first?.name, "widget");
    assert.equal(first?.primary.type, Widget);
    assert.deepEqual(first?.owns[0]?.scope, { namespace: "team", labelSelector: "app=widgets" });
    assert.deepEqual(
      first?.watches.map((kind) => kind.type),
      [Secret],
    );
    assert.equal(second?.name, "audit");
    assert.equal(second?.primary.type, ConfigMap);
  });

  it("derives the operator's permissions from the declarations and its extra permissions", async () => {
    const verbs = (await permissionsOf(widgets)).map(
      (p) => `${p.type.plural}${p.subresource ? `/${p.subresource}` : ""}: ${p.verbs.join(",")}`,
    );
    assert.ok(verbs.includes("widgets/status: get,patch"));
    assert.ok(verbs.includes("configmaps: get,list,watch,create,patch"));
    assert.ok(verbs.includes("secrets: get,list,watch"));
    assert.equal(verbs.at(-1), "secrets: get", "the operator's own permissions come last");
  });
});

describe("manifestsOf", () => {
  it("writes the operator's manifests, computed when generating, into extras.yaml", async () => {
    let calls = 0;
    const binding = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "widgets-policy" },
    };
    const shipping = defineOperator({
      ...widgets.definition,
      manifests: () => {
        calls++;
        return [binding];
      },
    });
    const files = await manifestsOf(shipping);
    assert.equal(calls, 1);
    assert.match(files.get("extras.yaml") ?? "", /kind: ValidatingAdmissionPolicyBinding\n/);
    assert.ok(!(await manifestsOf(widgets)).has("extras.yaml"), "none without manifests");
  });
});

describe("declaredPermissions", () => {
  it("grants a declared controller its kinds, events and, when asked, leader election", async () => {
    const [declared] = await declarationsOf(widgets);
    assert.ok(declared);
    const granted = declaredPermissions(declared, { leaderElection: { namespace: "ops" } });
    const kinds = granted.map((p) => `${p.type.plural}${p.namespace ? ` in ${p.namespace}` : ""}`);
    assert.deepEqual([...new Set(kinds)], ["widgets", "configmaps", "secrets", "events", "leases in ops"]);
  });
});

describe("declarationWarnings", () => {
  it("has nothing to say about an operator whose declarations cover its kinds", async () => {
    assert.deepEqual(await declarationWarnings(widgets), []);
  });

  it("points at a controller that declares only its primary kind while the operator lists no permissions", async () => {
    const bare = defineOperator({
      name: "bare",
      kinds: [Widget],
      setup: (host) =>
        void controller(host)
          .for(Widget)
          .reconcile(async () => undefined),
    });
    const [warning, ...more] = await declarationWarnings(bare);
    assert.equal(more.length, 0);
    assert.match(warning ?? "", /controller widget declares no \.owns\(\) or \.watches\(\) besides Widget/);
    assert.match(
      warning ?? "",
      /declare them with \.owns\(Kind\) or \.watches\(Kind, map\), or in the operator's permissions/,
    );
    const permitted = defineOperator({ ...bare.definition, permissions: [{ type: Secret, verbs: ["get"] }] });
    assert.deepEqual(
      await declarationWarnings(permitted),
      [],
      "its reconciler's extra kinds are in permissions",
    );
  });

  it("says when a .watches() grants cluster-wide read, and shows the namespaced watch, which the RBAC honours", async () => {
    const watching = (scope?: { namespace: string }) =>
      defineOperator({
        name: "watching",
        kinds: [Widget],
        setup: (host) =>
          void controller(host)
            .for(Widget)
            .owns(ConfigMap)
            .watches(ConfigMap, () => [])
            .watches(Secret, () => [], scope ? { scope } : {})
            .reconcile(async () => undefined),
      });
    const [warning, ...more] = await declarationWarnings(watching());
    assert.equal(more.length, 0, "an owned kind's read is granted anyway: only Secret");
    assert.match(
      warning ?? "",
      /^\.watches\(Secret\) \(controller widget\) let the operator read every such object of the cluster/,
    );
    assert.match(warning ?? "", /\.watches\(Kind, map, \{ scope: \{ namespace: "<namespace>" \} \}\)/);
    assert.match(warning ?? "", /watchNamespace/);

    const scoped = watching({ namespace: "vault" });
    assert.deepEqual(await declarationWarnings(scoped), []);
    const secrets = (await permissionsOf(scoped)).filter((p) => p.type === Secret);
    assert.deepEqual(secrets, [{ type: Secret, verbs: ["get", "list", "watch"], namespace: "vault" }]);
  });

  it("names a kind the operator ships a CRD for that nothing declares", async () => {
    const orphan = defineOperator({
      name: "orphan",
      kinds: [Widget],
      setup: (host) =>
        void controller(host)
          .for(ConfigMap)
          .owns(Secret)
          .reconcile(async () => undefined),
    });
    const [warning, ...more] = await declarationWarnings(orphan);
    assert.equal(more.length, 0);
    assert.match(
      warning ?? "",
      /kind Widget \(example\.kubeloop\.dev\) ships a CRD, but no controller reconciles, owns or watches it/,
    );
  });

  it("names the refinements a kind's CRD cannot carry, and the CEL rule or webhook that can", async () => {
    const Site = defineKind({
      group: "example.com",
      version: "v1",
      kind: "Site",
      scope: "Namespaced",
      spec: z.object({ url: z.string().refine((url) => url.startsWith("https://")) }),
    });
    const sites = defineOperator({
      name: "sites",
      kinds: [Site],
      setup: (host) =>
        void controller(host)
          .for(Site)
          .owns(ConfigMap)
          .reconcile(async () => undefined),
    });
    const [warning, ...more] = await declarationWarnings(sites);
    assert.equal(more.length, 0);
    assert.match(
      warning ?? "",
      /^kind Site: the refinements \(\.refine\(\), \.superRefine\(\)\) at \.spec\.url cannot/,
    );
    assert.match(
      warning ?? "",
      /controller checks them before each reconcile \(condition reason SpecInvalid/,
    );
    assert.match(warning ?? "", /withRules\(field, \{ rule, message \}\).*validating webhook/);
  });
});
