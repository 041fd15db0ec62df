/**
 * Issue 5 acceptance, part 3: RBAC derived from a controller's declaration is enough, and no more
 * than enough. The Sprocket operator's Role comes from `declaredPermissions(declared)`
 * and `rbacFor`; its Manager then runs in this process as the ServiceAccount (a TokenRequest token
 * in a kubeconfig), not as the admin, and every reconcile path must work: create and update the
 * child, write status, add and remove the finalizer, record events, hold the leader Lease. The
 * same credentials are refused anything outside the generated rules.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { type TestContext, test } from "node:test";
import { ConfigMap, Event, Lease, Node, Secret, type SecretObject } from "../../../src/api/index.ts";
import { Client, ForbiddenError, loadKubeconfig, NotFoundError } from "../../../src/client/index.ts";
import { declaredPermissions, type RbacObjects, rbacFor } from "../../../src/generate/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { eventually, testClient, testLogger, testNamespace } from "../support.ts";
import { applyRbac, createServiceAccount, serviceAccountKubeconfig } from "./credentials.ts";
import { installCrds, Sprocket, type SprocketObject } from "./kinds.ts";
import { type CleanupLog, configMapName, FINALIZER, sprocketController } from "./sprocket-operator.ts";

const OPERATOR = "sprocket-operator";

interface Operator {
  namespace: string;
  /** A manager authenticated as the ServiceAccount, with the Sprocket controller built on it. */
  manager: Manager;
  /** A kubeconfig authenticating as the ServiceAccount. */
  kubeconfig: string;
  rbac: RbacObjects;
  cleanups: CleanupLog;
}

/**
 * Creates the ServiceAccount and a manager running as it, builds the controller, derives the RBAC
 * from the controller's declaration, applies it as admin and waits until the apiserver honours it.
 */
async function setUpOperator(t: TestContext): Promise<Operator> {
  await installCrds([Sprocket]);
  const namespace = await testNamespace(t);
  const admin = await testClient();
  await createServiceAccount(admin, namespace, OPERATOR);
  const kubeconfig = await serviceAccountKubeconfig(t, admin, namespace, OPERATOR);
  const manager = await Manager.create({
    name: OPERATOR,
    config: { kubeconfig },
    namespace,
    metrics: { host: "127.0.0.1", port: 0 },
    health: { host: "127.0.0.1", port: 0 },
    logger: testLogger(),
    leaderElection: { namespace, retryPeriodMs: 500 },
  });
  t.after(() => manager.client.close());
  const cleanups: CleanupLog = [];
  const declared = sprocketController(manager, cleanups);
  // Its cleanup deletes the ConfigMap with the client itself, which no framework helper does: an
  // operator declares such calls as permissions of its own (`defineOperator({ permissions })`).
  const permissions = [
    ...declaredPermissions(declared, { leaderElection: { namespace } }),
    { type: ConfigMap, verbs: ["delete"] },
  ];
  const rbac = rbacFor(permissions, {
    name: OPERATOR,
    namespace,
    serviceAccount: { name: OPERATOR, namespace },
  });
  await applyRbac(t, admin, rbac);
  const asOperator = await serviceAccountClient(t, kubeconfig);
  await eventually(() => asOperator.list(Sprocket, { namespace }).then(() => true), {
    what: "the generated Role to take effect",
  });
  return { namespace, manager, kubeconfig, rbac, cleanups };
}

/** A standalone client for the ServiceAccount's kubeconfig. */
async function serviceAccountClient(t: TestContext, kubeconfig: string): Promise<Client> {
  const client = new Client(await loadKubeconfig({ kubeconfig }), { qps: Number.POSITIVE_INFINITY });
  t.after(() => client.close());
  return client;
}

/**
 * Starts the manager and returns its stop function. The test stops it itself, in a `finally`:
 * `t.after` hooks run in registration order, so one registered here would run only after the
 * namespace (and with it the ServiceAccount) had been deleted under the running manager.
 */
function start(manager: Manager): () => Promise<void> {
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  return async () => {
    stop.abort();
    await running;
  };
}

function sprocket(namespace: string, name: string, message: string): SprocketObject {
  return {
    apiVersion: Sprocket.apiVersion,
    kind: Sprocket.kind,
    metadata: { name, namespace },
    spec: { message },
  };
}

/** Reasons of the events the operator recorded in the namespace. */
async function eventReasons(namespace: string): Promise<string[]> {
  const events = await (await testClient()).list(Event, { namespace });
  return events.items.filter((e) => e.reportingController === OPERATOR).map((e) => e.reason ?? "");
}

test("the generated Role holds exactly what the controller declared and its cleanup's delete", async (t) => {
  const { rbac, namespace } = await setUpOperator(t);
  assert.deepEqual(
    rbac.roles.map((role) => [role.kind, role.metadata.namespace]),
    [["Role", namespace]],
  );
  assert.deepEqual(rbac.roles[0]?.rules, [
    {
      apiGroups: [""],
      resources: ["configmaps"],
      verbs: ["create", "delete", "get", "list", "patch", "watch"],
    },
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "update"] },
    { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
    {
      apiGroups: ["schema.e2e.kubeloop.dev"],
      resources: ["sprockets"],
      verbs: ["get", "list", "patch", "watch"],
    },
    { apiGroups: ["schema.e2e.kubeloop.dev"], resources: ["sprockets/finalizers"], verbs: ["update"] },
    {
      apiGroups: ["schema.e2e.kubeloop.dev"],
      resources: ["sprockets/status"],
      verbs: ["get", "patch"],
    },
  ]);
  assert.deepEqual(rbac.bindings[0]?.subjects, [{ kind: "ServiceAccount", name: OPERATOR, namespace }]);
});

test("every reconcile path works under the ServiceAccount with the derived Role", async (t) => {
  const operator = await setUpOperator(t);
  const stop = start(operator.manager);
  try {
    await reconcilePaths(t, operator);
  } finally {
    await stop();
  }
});

/** The subtests of the running operator, one per reconcile path, in the order they happen. */
async function reconcilePaths(t: TestContext, { namespace, manager, cleanups }: Operator): Promise<void> {
  const admin = await testClient();
  await t.test("authenticates as the ServiceAccount, not as the admin", async () => {
    const review = await manager.client.request<{ status: { userInfo: { username: string } } }>({
      method: "POST",
      verb: "create",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    });
    assert.equal(review.status.userInfo.username, `system:serviceaccount:${namespace}:${OPERATOR}`);
  });

  await t.test("takes the leader Lease and keeps renewing it", async () => {
    const held = await eventually(
      async () => {
        const lease = await admin.get(Lease, OPERATOR, { namespace });
        return manager.isLeader() && lease.spec?.holderIdentity ? lease : undefined;
      },
      { what: "the manager to lead" },
    );
    await eventually(
      async () => {
        const lease = await admin.get(Lease, OPERATOR, { namespace });
        return (
          lease.spec?.renewTime !== held.spec?.renewTime &&
          lease.spec?.holderIdentity === held.spec?.holderIdentity
        );
      },
      { what: "a Lease renewal" },
    );
  });

  const created = await admin.create(Sprocket, sprocket(namespace, "alpha", "hello"));
  const cmName = configMapName("alpha");

  await t.test("adds the finalizer and creates the owned ConfigMap", async () => {
    const cm = await eventually(() => admin.get(ConfigMap, cmName, { namespace }), { what: "the ConfigMap" });
    assert.deepEqual(cm.data, { message: "hello" });
    const owner = cm.metadata.ownerReferences?.[0];
    assert.equal(owner?.uid, created.metadata.uid);
    assert.equal(owner?.controller, true);
    assert.equal(owner?.blockOwnerDeletion, true);
    const stored = await admin.get(Sprocket, "alpha", { namespace });
    assert.deepEqual(stored.metadata.finalizers, [FINALIZER]);
  });

  await t.test("writes Ready and observedGeneration through the status subresource", async () => {
    const stored = await eventually(
      async () => {
        const s = await admin.get(Sprocket, "alpha", { namespace });
        return s.status?.observedGeneration === 1 ? s : undefined;
      },
      { what: "status for generation 1" },
    );
    assert.equal(stored.status?.configMap, cmName);
    const ready = stored.status?.conditions?.find((c) => c.type === "Ready");
    assert.equal(ready?.status, "True");
    assert.equal(ready?.reason, "ConfigMapInSync");
    assert.equal(ready?.observedGeneration, 1);
  });

  await t.test("updates the ConfigMap and status when the spec changes", async () => {
    await admin.patch(Sprocket, "alpha", { spec: { message: "world" } }, { type: "merge", namespace });
    await eventually(
      async () => (await admin.get(ConfigMap, cmName, { namespace })).data?.message === "world",
      { what: "the ConfigMap to follow the spec" },
    );
    await eventually(
      async () => {
        const s = await admin.get(Sprocket, "alpha", { namespace });
        return s.status?.observedGeneration === 2 && s.status.conditions?.[0]?.observedGeneration === 2;
      },
      { what: "status for generation 2" },
    );
  });

  await t.test("runs the cleanup and removes the finalizer on delete", async () => {
    await admin.delete(Sprocket, "alpha", { namespace });
    await eventually(
      () =>
        admin.get(Sprocket, "alpha", { namespace }).then(
          () => false,
          (err) => err instanceof NotFoundError,
        ),
      { what: "the Sprocket to be gone" },
    );
    // A reconcile queued before the finalizer's removal reached the cache may run the (idempotent)
    // cleanup once more; what matters is that it ran, and only for this object.
    assert.ok(cleanups.length >= 1, "the cleanup ran");
    assert.deepEqual(new Set(cleanups), new Set(["alpha"]));
    await assert.rejects(admin.get(ConfigMap, cmName, { namespace }), NotFoundError);
  });

  await t.test("records its events", async () => {
    await eventually(
      async () => {
        const reasons = await eventReasons(namespace);
        return ["ConfigMapCreated", "ConfigMapUpdated", "CleanedUp"].every((r) => reasons.includes(r));
      },
      { what: "ConfigMapCreated, ConfigMapUpdated and CleanedUp events" },
    );
  });

  await t.test("was never refused by the apiserver", async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${manager.ports.metrics}/metrics`)).text();
    assert.match(metrics, /rest_client_requests_total\{code="200",method="GET"[^}]*\} [1-9]/);
    assert.doesNotMatch(metrics, /rest_client_requests_total\{code="40[13]"/);
    const events = manager.recorder.stats;
    assert.equal(events.failed, 0, "no event write was given up");
    assert.ok(events.created >= 3, `events created: ${events.created}`);
  });
}

test("verbs outside the generated rules are forbidden, and the error names the fix", async (t) => {
  const { namespace, kubeconfig } = await setUpOperator(t);
  const admin = await testClient();
  const asOperator = await serviceAccountClient(t, kubeconfig);
  const user = `system:serviceaccount:${namespace}:${OPERATOR}`;
  const secretName = `keep-${randomBytes(3).toString("hex")}`;
  const secret: SecretObject = {
    apiVersion: Secret.apiVersion,
    kind: Secret.kind,
    metadata: { name: secretName, namespace },
    stringData: { password: "hunter2" },
  };
  await admin.create(Secret, secret);
  await admin.create(Sprocket, sprocket(namespace, "keep", "hello"));

  const refusals: [string, () => Promise<unknown>, RegExp][] = [
    [
      "delete a Secret",
      () => asOperator.delete(Secret, secretName, { namespace }),
      new RegExp(
        `User "${user}" cannot delete resource "secrets" in API group "" in the namespace "${namespace}"`,
      ),
    ],
    [
      "list Nodes",
      () => asOperator.list(Node),
      new RegExp(`User "${user}" cannot list resource "nodes" in API group "" at the cluster scope`),
    ],
    [
      "delete its own primary kind (no delete verb granted)",
      () => asOperator.delete(Sprocket, "keep", { namespace }),
      /cannot delete resource "sprockets" in API group "schema\.e2e\.kubeloop\.dev"/,
    ],
    [
      "list Sprockets outside its namespace",
      () => asOperator.list(Sprocket, { namespace: "default" }),
      /cannot list resource "sprockets" in API group "schema\.e2e\.kubeloop\.dev" in the namespace "default"/,
    ],
  ];
  for (const [what, attempt, message] of refusals) {
    await assert.rejects(
      attempt(),
      (err: unknown) => {
        assert.ok(err instanceof ForbiddenError, `${what}: expected ForbiddenError, got ${String(err)}`);
        assert.equal(err.code, "KL_FORBIDDEN");
        assert.match(err.message, message);
        assert.match(
          err.message,
          /the operator's ServiceAccount lacks this verb on this resource: declare the kind/,
        );
        return true;
      },
      what,
    );
  }
  assert.equal((await admin.get(Secret, secretName, { namespace })).metadata.name, secretName);
  assert.equal((await admin.get(Sprocket, "keep", { namespace })).metadata.name, "keep");
});
