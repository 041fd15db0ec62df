/**
 * The webhook manifests `kubeloop generate` writes: the configurations with their defaults and
 * declared overrides, the Service, the CRD conversion stanza, cert-manager's objects and
 * annotations or the self-managed RBAC, and the Deployment's port, flags and certificate mount.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { ConfigMap } from "../../../src/api/index.ts";
import { operatorManifests, type WebhookCertificates } from "../../../src/generate/index.ts";
import { defaulting, validating, WebhookNamespaceError } from "../../../src/webhook/index.ts";
import { Thing, thingVersions } from "../webhook/support.ts";

const thingValidation = validating(Thing, () => undefined);
const mapDefaults = defaulting(ConfigMap, (cm) => cm, {
  failurePolicy: "Ignore",
  timeoutSeconds: 3,
  operations: ["CREATE"],
  objectSelector: { matchLabels: { "example.com/managed": "true" } },
  namespaceSelector: { matchLabels: { team: "a" } },
  matchConditions: [{ name: "not-system", expression: "!request.userInfo.username.startsWith('system:')" }],
});

// biome-ignore lint/suspicious/noExplicitAny: tests read any field of the parsed YAML
type Any = any;

function generate(certificates: WebhookCertificates, watchNamespace?: string): Map<string, Any[]> {
  const files = operatorManifests({
    name: "things",
    namespace: "things-system",
    ...(watchNamespace === undefined ? {} : { watchNamespace }),
    image: "things:latest",
    kinds: [Thing],
    permissions: [],
    webhooks: { webhooks: [thingValidation, mapDefaults, thingVersions], certificates },
  });
  const parsed = new Map<string, Any[]>();
  for (const [name, text] of files) {
    if (name.endsWith(".yaml"))
      parsed.set(
        name,
        parseAllDocuments(text).map((d) => d.toJS()),
      );
  }
  return parsed;
}

const byKind = (objects: Any[] | undefined, kind: string) => objects?.find((o) => o.kind === kind);

describe("generated webhook manifests", () => {
  it("configure the webhooks with safe defaults, at the Service's paths", () => {
    const webhooks = generate("cert-manager").get("webhooks.yaml");
    const validatingEntry = byKind(webhooks, "ValidatingWebhookConfiguration").webhooks[0];
    assert.deepEqual(validatingEntry, {
      name: "vthing-v1.example.com",
      admissionReviewVersions: ["v1"],
      clientConfig: {
        service: {
          name: "things-webhook-service",
          namespace: "things-system",
          path: "/validate-example-com-v1-thing",
          port: 443,
        },
      },
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      sideEffects: "None",
      timeoutSeconds: 10,
      // A kind of the operator's own: every namespace, the operator's included, and no object left out.
      rules: [
        {
          apiGroups: ["example.com"],
          apiVersions: ["v1"],
          operations: ["CREATE", "UPDATE"],
          resources: ["things"],
          scope: "Namespaced",
        },
      ],
    });
    assert.deepEqual(byKind(webhooks, "Service").spec.ports, [
      { name: "webhook", port: 443, protocol: "TCP", targetPort: "webhook-server" },
    ]);
  });

  it("take failurePolicy, operations, selectors and matchConditions from the declaration", () => {
    const mutating = byKind(generate("self").get("webhooks.yaml"), "MutatingWebhookConfiguration");
    const entry = mutating.webhooks[0];
    assert.equal(entry.name, "mconfigmap-v1.core.kubeloop.dev");
    assert.equal(entry.clientConfig.service.path, "/mutate--v1-configmap");
    assert.equal(entry.failurePolicy, "Ignore");
    assert.equal(entry.timeoutSeconds, 3);
    assert.equal(entry.reinvocationPolicy, "Never");
    assert.deepEqual(entry.rules[0].operations, ["CREATE"]);
    assert.deepEqual(entry.matchConditions, [
      { name: "not-system", expression: "!request.userInfo.username.startsWith('system:')" },
    ]);
    // A built-in kind: the declared selectors narrow the defaults, which leave out kube-system and
    // the operator's own objects (not its namespace).
    assert.deepEqual(entry.objectSelector, {
      matchExpressions: [
        { key: "kubeloop.dev/operator", operator: "NotIn", values: ["things"] },
        { key: "example.com/managed", operator: "In", values: ["true"] },
      ],
    });
    assert.deepEqual(entry.namespaceSelector, {
      matchExpressions: [
        { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
        { key: "team", operator: "In", values: ["a"] },
      ],
    });
  });

  it("with cert-manager: an Issuer, a Certificate, its Secret mounted, and CA injection asked for", () => {
    const files = generate("cert-manager");
    const webhooks = files.get("webhooks.yaml");
    const certificate = byKind(webhooks, "Certificate");
    assert.deepEqual(certificate.spec, {
      dnsNames: [
        "things-webhook-service.things-system.svc",
        "things-webhook-service.things-system.svc.cluster.local",
      ],
      issuerRef: { kind: "Issuer", name: "things-selfsigned-issuer" },
      secretName: "things-webhook-server-cert",
      secretTemplate: { labels: { "kubeloop.dev/operator": "things" } },
    });
    assert.deepEqual(byKind(webhooks, "Issuer").spec, { selfSigned: {} });
    const inject = { "cert-manager.io/inject-ca-from": "things-system/things-serving-cert" };
    assert.deepEqual(byKind(webhooks, "ValidatingWebhookConfiguration").metadata.annotations, inject);
    const crd = files.get("crds.yaml")?.[0];
    assert.deepEqual(crd.metadata.annotations, inject);
    assert.deepEqual(crd.spec.conversion, {
      strategy: "Webhook",
      webhook: {
        clientConfig: {
          service: {
            name: "things-webhook-service",
            namespace: "things-system",
            path: "/convert",
            port: 443,
          },
        },
        conversionReviewVersions: ["v1"],
      },
    });
    const pod = byKind(files.get("deployment.yaml"), "Deployment").spec.template.spec;
    const container = pod.containers[0];
    assert.ok(container.args.includes("--webhook-bind-address=:9443"));
    assert.ok(container.args.includes("--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs"));
    assert.deepEqual(container.ports.at(-1), {
      name: "webhook-server",
      containerPort: 9443,
      protocol: "TCP",
    });
    assert.deepEqual(container.volumeMounts.at(-1), {
      name: "webhook-certs",
      mountPath: "/tmp/k8s-webhook-server/serving-certs",
      readOnly: true,
    });
    assert.deepEqual(pod.volumes.at(-1), {
      name: "webhook-certs",
      secret: { secretName: "things-webhook-server-cert" },
    });
    assert.ok(!files.get("rbac.yaml")?.some((o) => o.metadata.name === "things-webhook-ca"));
  });

  it("self-managed: no cert-manager objects; the operator may patch its configurations and CRDs by name, and keep its replicas' CA", () => {
    const files = generate("self");
    const webhooks = files.get("webhooks.yaml") ?? [];
    assert.deepEqual(
      webhooks.map((o) => o.kind),
      ["Service", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"],
    );
    assert.equal(byKind(webhooks, "ValidatingWebhookConfiguration").metadata.annotations, undefined);
    assert.equal(files.get("crds.yaml")?.[0].metadata.annotations, undefined);
    const roles = files.get("rbac.yaml")?.filter((o) => o.metadata.name === "things-webhook-ca") ?? [];
    const role = byKind(roles, "ClusterRole");
    // The CA the replicas share: its Secret read by name, made by the first replica.
    const secretRole = byKind(roles, "Role");
    assert.equal(secretRole.metadata.namespace, "things-system");
    assert.deepEqual(secretRole.rules, [
      { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
      { apiGroups: [""], resources: ["secrets"], resourceNames: ["things-webhook-ca"], verbs: ["get"] },
    ]);
    assert.deepEqual(role.rules, [
      {
        apiGroups: ["admissionregistration.k8s.io"],
        resources: ["mutatingwebhookconfigurations"],
        resourceNames: ["things"],
        verbs: ["patch"],
      },
      {
        apiGroups: ["admissionregistration.k8s.io"],
        resources: ["validatingwebhookconfigurations"],
        resourceNames: ["things"],
        verbs: ["patch"],
      },
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        resourceNames: ["things.example.com"],
        verbs: ["patch"],
      },
    ]);
    const container = byKind(files.get("deployment.yaml"), "Deployment").spec.template.spec.containers[0];
    assert.ok(!container.args.some((arg: string) => arg.startsWith("--webhook-cert-path")));
    assert.ok(files.get("kustomization.yaml")?.[0].resources.includes("webhooks.yaml"));
  });

  it("of an operator watching one namespace admit that namespace only, under a name of their own", () => {
    const files = generate("self", "team-a");
    const configuration = byKind(files.get("webhooks.yaml"), "ValidatingWebhookConfiguration");
    assert.equal(configuration.metadata.name, "things-team-a");
    assert.deepEqual(configuration.webhooks[0].namespaceSelector.matchExpressions, [
      { key: "kubernetes.io/metadata.name", operator: "In", values: ["team-a"] },
    ]);
    const role = files
      .get("rbac.yaml")
      ?.find((o) => o.kind === "ClusterRole" && o.metadata.name === "things-webhook-ca");
    assert.deepEqual(role.rules[1].resourceNames, ["things-team-a"]);
  });

  it("label the operator's pods and webhook Service as its own, its Deployment's selector unchanged", () => {
    const files = generate("self");
    const deployment = byKind(files.get("deployment.yaml"), "Deployment");
    const own = { "kubeloop.dev/operator": "things" };
    assert.deepEqual(deployment.spec.selector, { matchLabels: { "app.kubernetes.io/name": "things" } });
    assert.deepEqual(deployment.spec.template.metadata.labels, {
      "app.kubernetes.io/name": "things",
      ...own,
    });
    assert.deepEqual(deployment.metadata.labels, deployment.spec.template.metadata.labels);
    const service = byKind(files.get("webhooks.yaml"), "Service");
    assert.deepEqual(service.metadata.labels, { "app.kubernetes.io/name": "things", ...own });
    assert.deepEqual(service.spec.selector, { "app.kubernetes.io/name": "things" });
  });

  it("expose the webhook port in the Dockerfile beside the metrics and health ports, as the container declares them", () => {
    const files = operatorManifests({
      name: "things",
      namespace: "things-system",
      image: "things:latest",
      permissions: [],
      webhooks: { webhooks: [thingValidation], certificates: "self" },
    });
    assert.match(files.get("Dockerfile") ?? "", /^EXPOSE 8443 8081 9443$/m);
  });

  it("are refused when a webhook would admit none of the namespaces the operator watches", () => {
    assert.throws(
      () => generate("self", "kube-system"),
      (err) =>
        err instanceof WebhookNamespaceError &&
        /mconfigmap-v1\.core\.kubeloop\.dev is sent no request from namespace kube-system/.test(err.message),
    );
  });
});
