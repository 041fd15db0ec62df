import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { Deployment, type DeploymentObject, type PodSpec } from "../../../src/api/index.ts";
import {
  controllerPermissions,
  deploymentManifest,
  dockerfile,
  isLocalImage,
  OPERATOR_NODE_FLAGS,
  operatorManifests,
  POD_NAME_ENV,
  POD_NAMESPACE_ENV,
  POD_UID_ENV,
} from "../../../src/generate/index.ts";
import { Widget } from "../schema/fixtures.ts";

const options = {
  name: "widgets",
  namespace: "widgets-system",
  image: "ghcr.io/example/widgets:1.0.0",
  kinds: [Widget],
  permissions: controllerPermissions({ primary: Widget, owns: [Deployment] }),
};
const files = operatorManifests(options);
const docs = (file: string) => parseAllDocuments(files.get(file) ?? "").map((doc) => doc.toJS());

/** The pod spec of a Deployment's template; fails the test when it has none. */
function podSpec(deployment: DeploymentObject): PodSpec {
  const pod = deployment.spec?.template.spec;
  assert.ok(pod, "the Deployment has a pod template");
  return pod;
}

describe("deploymentManifest", () => {
  const deployment = deploymentManifest(options);
  const pod = podSpec(deployment);
  const container = pod.containers[0];

  it("runs the image as the operator's service account, selecting its own labels", () => {
    assert.equal(container?.image, options.image);
    assert.equal(pod.serviceAccountName, "widgets");
    const selected = Object.entries(deployment.spec?.selector.matchLabels ?? {});
    assert.ok(selected.length > 0);
    for (const [key, value] of selected)
      assert.equal(deployment.spec?.template.metadata?.labels?.[key], value);
    assert.equal(deployment.spec?.replicas, 1);
  });

  it("probes /healthz and /readyz on port 8081 and serves secure metrics on 8443", () => {
    assert.deepEqual(container?.livenessProbe, {
      httpGet: { path: "/healthz", port: 8081 },
      initialDelaySeconds: 5,
      periodSeconds: 10,
    });
    assert.deepEqual(container?.readinessProbe?.httpGet, {
      path: "/readyz",
      port: 8081,
    });
    assert.deepEqual(container?.ports, [
      { name: "metrics", containerPort: 8443, protocol: "TCP" },
      { name: "health", containerPort: 8081, protocol: "TCP" },
    ]);
    assert.deepEqual(container?.args, [
      "--metrics-bind-address=:8443",
      "--metrics-secure",
      "--health-probe-bind-address=:8081",
    ]);
  });

  it("passes extra arguments after the endpoint flags", () => {
    const args = podSpec(deploymentManifest({ ...options, args: ["--zap-devel"] })).containers[0]?.args;
    assert.deepEqual(args?.slice(-2), ["--health-probe-bind-address=:8081", "--zap-devel"]);
  });

  it("uses other ports when asked", () => {
    const custom = podSpec(deploymentManifest({ ...options, healthPort: 9440, metricsPort: 9090 }))
      .containers[0];
    assert.deepEqual(custom?.livenessProbe?.httpGet, {
      path: "/healthz",
      port: 9440,
    });
    assert.equal(custom?.ports?.[0]?.containerPort, 9090);
    assert.deepEqual(custom?.args, [
      "--metrics-bind-address=:9090",
      "--metrics-secure",
      "--health-probe-bind-address=:9440",
    ]);
  });

  it("is locked down: non-root, read-only root, no escalation, no capabilities, RuntimeDefault seccomp", () => {
    assert.deepEqual(container?.securityContext, {
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    assert.deepEqual(pod.securityContext, { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    assert.deepEqual(container?.volumeMounts, [{ name: "tmp", mountPath: "/tmp" }]);
  });

  it("requests resources and passes the pod name, namespace and uid from the downward API", () => {
    assert.deepEqual(container?.resources?.requests, { cpu: "100m", memory: "128Mi" });
    assert.deepEqual(container?.env?.slice(0, 3), [
      { name: POD_NAME_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: POD_NAMESPACE_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
      { name: POD_UID_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
    ]);
  });
});

describe("operatorManifests", () => {
  it("returns the files in apply order", () => {
    assert.deepEqual(
      [...files.keys()],
      [
        "namespace.yaml",
        "crds.yaml",
        "serviceaccount.yaml",
        "rbac.yaml",
        "deployment.yaml",
        "metrics-service.yaml",
        "kustomization.yaml",
        "monitoring/dashboard.json",
        "monitoring/alerts.yaml",
        "monitoring/servicemonitor.yaml",
        "monitoring/prometheusrule.yaml",
        "monitoring/kustomization.yaml",
        "Dockerfile",
        "Dockerfile.dockerignore",
      ],
    );
  });

  it("lists every YAML manifest in the kustomization", () => {
    const [kustomization] = docs("kustomization.yaml");
    assert.deepEqual(kustomization.resources, [
      "namespace.yaml",
      "crds.yaml",
      "serviceaccount.yaml",
      "rbac.yaml",
      "deployment.yaml",
      "metrics-service.yaml",
    ]);
  });

  it("creates the namespace, the service account and the CRDs", () => {
    assert.deepEqual(docs("namespace.yaml"), [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "widgets-system" } },
    ]);
    assert.deepEqual(docs("serviceaccount.yaml")[0].metadata, {
      name: "widgets",
      namespace: "widgets-system",
    });
    assert.equal(docs("crds.yaml")[0].metadata.name, "widgets.example.kubeloop.dev");
  });

  it("adds lease permissions in the operator's namespace for leader election", () => {
    const rbac = docs("rbac.yaml");
    assert.deepEqual(
      rbac.slice(0, 4).map((doc) => doc.kind),
      ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
    );
    assert.equal(rbac[2].metadata.namespace, "widgets-system");
    assert.equal(rbac[2].rules[0].resources[0], "leases");
    const single = operatorManifests({ ...options, leaderElection: false });
    assert.ok(!single.get("rbac.yaml")?.includes("leases"));
  });

  it("shards across replicas when asked: the container's --shards and --shard-key, the Leases listed and a stopped replica's membership deleted", () => {
    const sharded = operatorManifests({ ...options, replicas: 3, sharding: { shards: 16, key: "uid" } });
    const deployment = parseAllDocuments(sharded.get("deployment.yaml") ?? "")[0]?.toJS();
    assert.equal(deployment.spec.replicas, 3);
    assert.deepEqual(deployment.spec.template.spec.containers[0].args.slice(-2), [
      "--shards=16",
      "--shard-key=uid",
    ]);
    const role = parseAllDocuments(sharded.get("rbac.yaml") ?? "")
      .map((doc) => doc.toJS())
      .find((doc) => doc.kind === "Role");
    assert.deepEqual(role.rules[0], {
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      verbs: ["create", "delete", "get", "list", "update"],
    });
  });

  it("scopes RBAC to the watched namespace when there is one, but for the cluster-scoped reviews of metrics", () => {
    const scoped = operatorManifests({ ...options, watchNamespace: "widgets-system" });
    const names = parseAllDocuments(scoped.get("rbac.yaml") ?? "").map((doc) => {
      const { kind, metadata } = doc.toJS();
      return `${kind}/${metadata.name}`;
    });
    assert.deepEqual(names, [
      "Role/widgets",
      "RoleBinding/widgets",
      "ClusterRole/widgets-metrics-auth",
      "ClusterRoleBinding/widgets-metrics-auth",
      "ClusterRole/widgets-metrics-reader",
      "ClusterRole/widgets-widget-editor",
      "ClusterRole/widgets-widget-viewer",
    ]);
  });

  it("gives users an editor and a viewer role per kind, aggregated to admin/edit and view, as kubebuilder scaffolds", () => {
    const [editor, viewer] = docs("rbac.yaml").filter((doc) => /-(editor|viewer)$/.test(doc.metadata.name));
    assert.deepEqual(editor.metadata.labels, {
      "app.kubernetes.io/managed-by": "kubeloop",
      "app.kubernetes.io/part-of": "widgets",
      "rbac.authorization.k8s.io/aggregate-to-admin": "true",
      "rbac.authorization.k8s.io/aggregate-to-edit": "true",
    });
    assert.deepEqual(editor.rules, [
      {
        apiGroups: ["example.kubeloop.dev"],
        resources: ["widgets"],
        verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      },
      { apiGroups: ["example.kubeloop.dev"], resources: ["widgets/status"], verbs: ["get"] },
    ]);
    assert.equal(viewer.metadata.labels["rbac.authorization.k8s.io/aggregate-to-view"], "true");
    assert.equal(viewer.metadata.labels["rbac.authorization.k8s.io/aggregate-to-edit"], undefined);
    assert.deepEqual(viewer.rules[0].verbs, ["get", "list", "watch"]);
  });

  it("lets the operator review tokens and access for its secure metrics, as kubebuilder's metrics_auth_role", () => {
    const [role, binding] = docs("rbac.yaml").filter((doc) => doc.metadata.name === "widgets-metrics-auth");
    assert.deepEqual(role.rules, [
      { apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] },
      { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
    ]);
    assert.equal(binding.kind, "ClusterRoleBinding");
    assert.deepEqual(binding.roleRef, {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "widgets-metrics-auth",
    });
    assert.deepEqual(binding.subjects, [
      { kind: "ServiceAccount", name: "widgets", namespace: "widgets-system" },
    ]);
  });

  it("offers a metrics-reader ClusterRole for scrapers, bound to no one", () => {
    const rbac = docs("rbac.yaml");
    const reader = rbac.find((doc) => doc.metadata.name === "widgets-metrics-reader");
    assert.deepEqual(reader, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "widgets-metrics-reader" },
      rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
    });
    assert.ok(!rbac.some((doc) => doc.roleRef?.name === "widgets-metrics-reader"));
  });

  it("puts a Service named https on port 8443 in front of the metrics port", () => {
    assert.deepEqual(docs("metrics-service.yaml"), [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: {
          name: "widgets-metrics",
          namespace: "widgets-system",
          labels: { "app.kubernetes.io/name": "widgets" },
        },
        spec: {
          selector: { "app.kubernetes.io/name": "widgets" },
          ports: [{ name: "https", port: 8443, targetPort: "metrics" }],
        },
      },
    ]);
  });

  it("omits crds.yaml without kinds", () => {
    assert.ok(!operatorManifests({ ...options, kinds: [] }).has("crds.yaml"));
  });

  it("writes the extras after the CRDs into extras.yaml, listed in the kustomization, granting nothing for them", () => {
    const policy = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "widgets-policy" },
    };
    const extended = operatorManifests({ ...options, extras: [policy] });
    assert.deepEqual([...extended.keys()].slice(0, 3), ["namespace.yaml", "crds.yaml", "extras.yaml"]);
    assert.deepEqual(
      parseAllDocuments(extended.get("extras.yaml") ?? "").map((doc) => doc.toJS()),
      [policy],
    );
    const [kustomization] = parseAllDocuments(extended.get("kustomization.yaml") ?? "").map((d) => d.toJS());
    assert.deepEqual(kustomization.resources.slice(0, 3), ["namespace.yaml", "crds.yaml", "extras.yaml"]);
    assert.equal(extended.get("rbac.yaml"), files.get("rbac.yaml"));
    assert.ok(!operatorManifests({ ...options, extras: [] }).has("extras.yaml"));
  });
});

describe("dockerfile", () => {
  const text = files.get("Dockerfile") ?? "";

  it("bundles in one node:24-slim stage and runs the bundle alone, without node_modules, in another", () => {
    assert.equal(text.match(/^FROM node:24-slim/gm)?.length, 2);
    const [build = "", run = ""] = text.split(/^FROM /m).slice(1);
    assert.match(build, /^RUN npm ci\nCOPY \. \.\nRUN npx kubeloop build$/m);
    assert.deepEqual(
      run.split("\n").filter((line) => /^(COPY|RUN) /.test(line)),
      ["COPY --from=build /app/dist ./dist"],
    );
    assert.match(run, /^CMD \["node", "--max-semi-space-size=1", "dist\/operator\.mjs"\]$/m);
  });

  it("runs node with the young generation sized for a small container (OPERATOR_NODE_FLAGS)", () => {
    assert.deepEqual(OPERATOR_NODE_FLAGS, ["--max-semi-space-size=1"]);
    const cmd = /^CMD (.*)$/m.exec(text)?.[1] ?? "[]";
    assert.deepEqual(JSON.parse(cmd), ["node", ...OPERATOR_NODE_FLAGS, "dist/operator.mjs"]);
  });

  it("exposes the secure metrics and health ports", () => {
    assert.match(text, /^EXPOSE 8443 8081$/m);
  });

  it("runs as a numeric non-root user", () => {
    assert.match(text, /^USER 1000:1000$/m);
  });

  it("runs the configured entry point", () => {
    assert.match(
      dockerfile({ entrypoint: "dist/operator.js" }),
      /^CMD \["node", "--max-semi-space-size=1", "dist\/operator\.js"\]$/m,
    );
  });

  it("copies the packages installed from inside the project before npm ci", () => {
    const vendored = dockerfile({ localPackages: ["vendor/kubeloop-0.1.0.tgz"] }).split("\n");
    const copies = vendored.flatMap((line, i) =>
      line === "COPY vendor/kubeloop-0.1.0.tgz ./vendor/kubeloop-0.1.0.tgz" ? [i] : [],
    );
    const installs = vendored.flatMap((line, i) => (line.startsWith("RUN npm ci") ? [i] : []));
    assert.equal(copies.length, 1);
    assert.equal(installs.length, 1);
    assert.ok((copies[0] ?? 0) < (installs[0] ?? 0), "copied before it installs");
  });

  it("keeps installed and built output, manifests, version control and env files out of the build context", () => {
    const ignored = (files.get("Dockerfile.dockerignore") ?? "").split("\n");
    for (const entry of ["node_modules", "dist", "config", ".git", ".env*"])
      assert.ok(ignored.includes(entry), entry);
  });
});

describe("imagePullPolicy", () => {
  it("is IfNotPresent for an image built and loaded locally, and the default for a registry's", () => {
    const policy = (image: string) => {
      const [deployment] = parseAllDocuments(
        operatorManifests({ ...options, image }).get("deployment.yaml") ?? "",
      );
      const spec = deployment?.toJS() as {
        spec: { template: { spec: { containers: { imagePullPolicy?: string }[] } } };
      };
      return spec.spec.template.spec.containers[0]?.imagePullPolicy;
    };
    assert.equal(policy("widgets:latest"), "IfNotPresent");
    assert.equal(policy("widgets"), "IfNotPresent");
    assert.equal(policy("ghcr.io/example/widgets:1.0.0"), undefined);
    assert.equal(isLocalImage("localhost:5000/widgets"), false, "pushed to a local registry: pulled");
  });
});
