import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, Deployment, Namespace, Pod } from "../../../src/api/index.ts";
import {
  controllerPermissions,
  leaderElectionPermissions,
  type PermissionRequest,
  RbacError,
  rbacFor,
  rulesFor,
} from "../../../src/generate/index.ts";
import { Widget } from "../schema/fixtures.ts";

const serviceAccount = { name: "widgets", namespace: "widgets-system" };

describe("rulesFor", () => {
  it("aggregates one rule per group and resource with sorted, deduplicated verbs", () => {
    const rules = rulesFor([
      { type: Pod, verbs: ["watch", "get"] },
      { type: Pod, verbs: ["list", "get"] },
      { type: Deployment, verbs: ["create"] },
      { type: ConfigMap, verbs: ["get"] },
    ]);
    assert.deepEqual(rules, [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
      { apiGroups: ["apps"], resources: ["deployments"], verbs: ["create"] },
    ]);
  });

  it("gives subresources their own rules", () => {
    const rules = rulesFor([
      { type: Widget, verbs: ["get"] },
      { type: Widget, subresource: "status", verbs: ["patch"] },
    ]);
    assert.deepEqual(
      rules.map((rule) => rule.resources?.[0]),
      ["widgets", "widgets/status"],
    );
  });

  it("is independent of request order", () => {
    const requests: PermissionRequest[] = controllerPermissions({
      primary: Widget,
      owns: [Deployment],
      watches: [Pod],
    });
    assert.deepEqual(rulesFor([...requests].reverse()), rulesFor(requests));
  });
});

describe("controllerPermissions", () => {
  const rules = rulesFor(
    controllerPermissions({
      primary: Widget,
      owns: [Deployment],
      watches: [Pod, Deployment],
      leaderElection: { namespace: "ns" },
    }),
  );
  const verbsOf = (group: string, resource: string) =>
    rules.find((rule) => rule.apiGroups?.[0] === group && rule.resources?.[0] === resource)?.verbs;

  it("grants watched kinds get/list/watch and owned kinds what ensureChild sends: create and patch, never update or delete", () => {
    assert.deepEqual(verbsOf("", "pods"), ["get", "list", "watch"]);
    assert.deepEqual(verbsOf("apps", "deployments"), ["create", "get", "list", "patch", "watch"]);
  });

  it("grants the primary kind patch (finalizers) and its status and finalizers subresources, never update", () => {
    assert.deepEqual(verbsOf("example.kubeloop.dev", "widgets"), ["get", "list", "patch", "watch"]);
    assert.deepEqual(verbsOf("example.kubeloop.dev", "widgets/status"), ["get", "patch"]);
    assert.deepEqual(verbsOf("example.kubeloop.dev", "widgets/finalizers"), ["update"]);
  });

  it("records events and, with leader election, uses leases", () => {
    assert.deepEqual(verbsOf("events.k8s.io", "events"), ["create", "patch"]);
    assert.deepEqual(verbsOf("coordination.k8s.io", "leases"), ["create", "get", "update"]);
    const without = rulesFor(controllerPermissions({ primary: Widget, events: false }));
    assert.ok(!without.some((rule) => rule.resources?.[0] === "events" || rule.resources?.[0] === "leases"));
  });
});

describe("rbacFor", () => {
  it("makes a ClusterRole and ClusterRoleBinding for a cluster-wide operator", () => {
    const { roles, bindings } = rbacFor(controllerPermissions({ primary: Widget }), {
      name: "widgets",
      serviceAccount,
    });
    assert.equal(roles.length, 1);
    assert.equal(roles[0]?.kind, "ClusterRole");
    assert.deepEqual(roles[0]?.metadata, { name: "widgets" });
    assert.equal(bindings[0]?.kind, "ClusterRoleBinding");
    assert.deepEqual(bindings[0]?.roleRef, {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "widgets",
    });
    assert.deepEqual(bindings[0]?.subjects, [
      { kind: "ServiceAccount", name: "widgets", namespace: "widgets-system" },
    ]);
  });

  it("makes a Role and RoleBinding in the namespace of a namespace-scoped operator", () => {
    const { roles, bindings } = rbacFor(
      controllerPermissions({ primary: Widget, leaderElection: { namespace: "team" } }),
      {
        name: "widgets",
        namespace: "team",
        serviceAccount,
      },
    );
    assert.deepEqual(
      roles.map((role) => [role.kind, role.metadata.namespace]),
      [["Role", "team"]],
    );
    assert.ok(roles[0]?.rules?.some((rule) => rule.resources?.[0] === "leases"));
    assert.deepEqual(bindings[0]?.roleRef.kind, "Role");
    assert.equal(bindings[0]?.metadata.namespace, "team");
  });

  it("confines namespace-bound requests of a cluster-wide operator to a Role there, after the ClusterRole", () => {
    const requests = [
      ...controllerPermissions({ primary: Widget }),
      ...leaderElectionPermissions("widgets-system"),
    ];
    const { roles, bindings } = rbacFor(requests, { name: "widgets", serviceAccount });
    assert.deepEqual(
      roles.map((role) => role.kind),
      ["ClusterRole", "Role"],
    );
    assert.ok(!roles[0]?.rules?.some((rule) => rule.resources?.[0] === "leases"));
    assert.deepEqual(roles[1]?.rules, [
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "update"] },
    ]);
    assert.deepEqual(
      bindings.map((binding) => binding.kind),
      ["ClusterRoleBinding", "RoleBinding"],
    );
  });

  it("rejects cluster-scoped kinds in a namespaced Role", () => {
    assert.throws(
      () => rbacFor([{ type: Namespace, verbs: ["get"] }], { name: "x", namespace: "team", serviceAccount }),
      (err: unknown) =>
        err instanceof RbacError &&
        err.code === "KL_GENERATE_RBAC" &&
        /namespaces .* cluster-scoped/.test(err.message),
    );
  });

  it("rejects wildcards, unknown verbs and empty verb lists", () => {
    const options = { name: "x", serviceAccount };
    assert.throws(() => rbacFor([{ type: Pod, verbs: ["*"] }], options), /wildcard, not least privilege/);
    assert.throws(() => rbacFor([{ type: Pod, verbs: ["read"] }], options), /not a Kubernetes verb/);
    assert.throws(() => rbacFor([{ type: Pod, verbs: [] }], options), /has no verbs/);
  });
});
