/**
 * Issue 5 acceptance, part 2: every manifest `operatorManifests` generates — Namespace, CRDs,
 * ServiceAccount, RBAC and Deployment, and the kustomization tying them together — passes a
 * server-side dry run (full validation and admission, nothing persisted) on the real apiserver.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import {
  ClusterRole,
  ClusterRoleBinding,
  ConfigMap,
  Deployment,
  Role,
  RoleBinding,
  Secret,
  ServiceAccount,
} from "../../../src/api/index.ts";
import { NotFoundError } from "../../../src/client/index.ts";
import { controllerPermissions, operatorManifests, userRoles } from "../../../src/generate/index.ts";
import { eventually, kubectl, testClient, testNamespace } from "../support.ts";
import { Gadget, installCrds, Sprocket } from "./kinds.ts";

/** The files that hold Kubernetes objects, in apply order, with the kinds each must contain. */
const objectFiles: [string, string[]][] = [
  ["namespace.yaml", ["Namespace"]],
  ["crds.yaml", ["CustomResourceDefinition"]],
  ["serviceaccount.yaml", ["ServiceAccount"]],
  [
    "rbac.yaml",
    // The operator's roles, then metrics-auth (ClusterRole and binding), metrics-reader, and the
    // editor and viewer roles of the kind.
    [
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "ClusterRole",
      "ClusterRoleBinding",
      "ClusterRole",
      "ClusterRole",
      "ClusterRole",
    ],
  ],
  ["deployment.yaml", ["Deployment"]],
  ["metrics-service.yaml", ["Service"]],
];

/** Writes the generated files into a fresh directory, removed when the test ends. */
async function writeManifests(t: import("node:test").TestContext, files: Map<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), "kubeloop-manifests-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const [file, text] of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  return dir;
}

/** Kinds of the objects a `kubectl apply -o json` printed (one object or a List). */
function kindsOf(stdout: string): string[] {
  const printed = JSON.parse(stdout) as { kind: string; items?: { kind: string }[] };
  return printed.kind === "List" ? (printed.items ?? []).map((item) => item.kind) : [printed.kind];
}

test("every generated operator manifest passes a server-side dry run", async (t) => {
  // Namespaced objects (ServiceAccount, Role, RoleBinding, Deployment) are validated inside their
  // namespace, and a dry-run create of the Namespace does not make it exist for them. So the
  // operator's namespace is created for real (as the test namespace, deleted afterwards), and then
  // every file is dry-run, namespace.yaml included (a no-op update of an existing object).
  const ns = await testNamespace(t);
  const name = `gadget-operator-${randomBytes(3).toString("hex")}`;
  const files = operatorManifests({
    name,
    namespace: ns,
    image: "ghcr.io/kubeloop/gadget-operator:0.1.0",
    kinds: [Gadget],
    permissions: controllerPermissions({ primary: Gadget, owns: [ConfigMap, Deployment], watches: [Secret] }),
  });
  assert.deepEqual(
    [...files.keys()],
    [
      ...objectFiles.map(([file]) => file),
      "kustomization.yaml",
      // For a Prometheus, apart from the main kustomization (test/e2e/generate/monitoring.test.ts).
      ...[
        "dashboard.json",
        "alerts.yaml",
        "servicemonitor.yaml",
        "prometheusrule.yaml",
        "kustomization.yaml",
      ].map((file) => `monitoring/${file}`),
      "Dockerfile",
      "Dockerfile.dockerignore",
    ],
  );
  const dir = await writeManifests(t, files);

  for (const [file, kinds] of objectFiles) {
    const { stdout } = await kubectl(["apply", "--dry-run=server", "-o", "json", "-f", join(dir, file)]);
    assert.deepEqual(kindsOf(stdout).sort(), [...kinds].sort(), `${file} objects`);
  }
  const all = await kubectl(["apply", "--dry-run=server", "-k", dir]);
  assert.equal(
    all.stdout.trim().split("\n").length,
    14,
    `kustomization applies every object:\n${all.stdout}`,
  );
  assert.match(all.stdout, new RegExp(`deployment\\.apps/${name} created \\(server dry run\\)`));

  const client = await testClient();
  const notPersisted = [
    () => client.get(ServiceAccount, name, { namespace: ns }),
    () => client.get(Deployment, name, { namespace: ns }),
    () => client.get(Role, name, { namespace: ns }),
    () => client.get(ClusterRole, name),
    () => client.get(ClusterRoleBinding, name),
  ];
  for (const read of notPersisted) await assert.rejects(read(), NotFoundError, "a dry run persists nothing");
});

test("the server-side dry run rejects a broken manifest, so a pass above means something", async (t) => {
  const ns = await testNamespace(t);
  const files = operatorManifests({
    name: "broken-operator",
    namespace: ns,
    image: "ghcr.io/kubeloop/broken:0.1.0",
    permissions: controllerPermissions({ primary: Gadget }),
  });
  const broken = (files.get("deployment.yaml") ?? "").replace("replicas: 1", "replicas: -1");
  assert.notEqual(broken, files.get("deployment.yaml"));
  const dir = await writeManifests(t, new Map([["deployment.yaml", broken]]));
  const result = await kubectl(["apply", "--dry-run=server", "-f", join(dir, "deployment.yaml")], {
    allowFail: true,
  });
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /spec\.replicas: Invalid value: -1: must be greater than or equal to 0/);
});

test("the generated editor and viewer roles reach whoever holds edit or view in a namespace", async (t) => {
  const ns = await testNamespace(t);
  await installCrds([Sprocket]);
  const client = await testClient();
  for (const role of userRoles("sprockets-e2e", [Sprocket])) {
    await client.apply(ClusterRole, role, { force: true });
  }
  const bindings: [string, string][] = [
    ["ada", "view"],
    ["bob", "edit"],
  ];
  for (const [user, role] of bindings) {
    await client.create(RoleBinding, {
      apiVersion: RoleBinding.apiVersion,
      kind: RoleBinding.kind,
      metadata: { name: `${user}-${role}`, namespace: ns },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
    });
  }
  const resource = `${Sprocket.plural}.${Sprocket.group}`;
  const can = async (user: string, verb: string) =>
    (
      await kubectl(["auth", "can-i", verb, resource, "-n", ns, "--as", user], { allowFail: true })
    ).stdout.trim();
  // kube-controller-manager aggregates the labelled roles into view/edit/admin in the background.
  await eventually(
    async () => (await can("ada", "list")) === "yes" && (await can("bob", "create")) === "yes",
    {
      what: "the viewer role aggregated into view and the editor role into edit",
    },
  );
  assert.equal(await can("ada", "create"), "no");
  assert.equal(await can("ada", "delete"), "no");
  assert.equal(await can("bob", "delete"), "yes");
});
