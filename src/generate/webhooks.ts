/**
 * What an operator's webhooks need in a cluster: a Service in front of the webhook port, the
 * Validating/MutatingWebhookConfiguration and the CRDs' `conversion` stanzas pointing at it (from
 * `kubeloop/webhook`, as the manager makes them), and a serving certificate, either issued by
 * cert-manager (an Issuer, a Certificate, and `cert-manager.io/inject-ca-from` annotations for its
 * CA injector) or made by the manager itself (self-managed: it applies its CA to the
 * configurations and CRDs, which its RBAC lets it patch by name).
 */
import {
  CustomResourceDefinition,
  type KubeObject,
  MutatingWebhookConfiguration,
  Secret,
  Service,
  type ServiceObject,
  ValidatingWebhookConfiguration,
} from "../api/index.ts";
import type { PermissionRequest } from "../controller/index.ts";
import type { CrdObject } from "../schema/index.ts";
import {
  admissionConfigurations,
  configurationNameOf,
  conversionStanza,
  conversionsOf,
  crdNameOf,
  operatorLabels,
  type Webhook,
  type WebhookEndpoint,
  webhookCaSecretName,
} from "../webhook/index.ts";

/** Who makes the webhook serving certificate: cert-manager, or the manager itself. */
export type WebhookCertificates = "cert-manager" | "self";

/** The webhook server's port in the operator's container, as controller-runtime's. */
export const WEBHOOK_PORT = 9443;

/** Where the container mounts cert-manager's certificate Secret, as kubebuilder's scaffold. */
export const WEBHOOK_CERT_DIR = "/tmp/k8s-webhook-server/serving-certs";

/** The operator's webhooks and how their certificate is made. */
export interface OperatorWebhooks {
  readonly webhooks: readonly Webhook[];
  readonly certificates: WebhookCertificates;
}

/** What the webhook objects are made for. */
export interface WebhookManifestOptions extends OperatorWebhooks {
  /** The operator's name. */
  readonly name: string;
  /** The operator's namespace. */
  readonly namespace: string;
  /** The labels of the operator's pods. */
  readonly selector: Readonly<Record<string, string>>;
  /** The one namespace a namespace-scoped operator watches: admission is limited to it. */
  readonly watchNamespace?: string;
}

/** Names of the objects made for an operator. */
function namesOf(name: string) {
  return {
    service: `${name}-webhook-service`,
    issuer: `${name}-selfsigned-issuer`,
    certificate: `${name}-serving-cert`,
    secret: `${name}-webhook-server-cert`,
  };
}

/** The Secret cert-manager writes the serving certificate to, which the Deployment mounts. */
export function webhookSecretName(name: string): string {
  return namesOf(name).secret;
}

function endpointOf(options: WebhookManifestOptions): WebhookEndpoint {
  return { service: { name: namesOf(options.name).service, namespace: options.namespace } };
}

/** cert-manager's annotation asking its CA injector for the Certificate's CA; none when self-managed. */
function injectionAnnotations(options: WebhookManifestOptions): Record<string, string> | undefined {
  if (options.certificates !== "cert-manager") return undefined;
  return { "cert-manager.io/inject-ca-from": `${options.namespace}/${namesOf(options.name).certificate}` };
}

/**
 * The Service `<name>-webhook-service`: port 443 to the container's `webhook-server` port,
 * labelled as the operator's own.
 */
export function webhookServiceManifest(options: WebhookManifestOptions): ServiceObject {
  const { apiVersion, kind } = Service;
  return {
    apiVersion,
    kind,
    metadata: {
      name: namesOf(options.name).service,
      namespace: options.namespace,
      labels: { ...options.selector, ...operatorLabels(options.name) },
    },
    spec: {
      selector: { ...options.selector },
      ports: [{ name: "webhook", port: 443, protocol: "TCP", targetPort: "webhook-server" }],
    },
  };
}

/**
 * A self-signed Issuer and the Certificate of the webhook Service's DNS names, as kubebuilder
 * scaffolds them, its Secret labelled as the operator's own.
 */
function certManagerObjects(options: WebhookManifestOptions): KubeObject[] {
  const names = namesOf(options.name);
  const service = `${names.service}.${options.namespace}.svc`;
  const metadata = (name: string) => ({ name, namespace: options.namespace });
  return [
    {
      apiVersion: "cert-manager.io/v1",
      kind: "Issuer",
      metadata: metadata(names.issuer),
      spec: { selfSigned: {} },
    } as KubeObject,
    {
      apiVersion: "cert-manager.io/v1",
      kind: "Certificate",
      metadata: metadata(names.certificate),
      spec: {
        dnsNames: [service, `${service}.cluster.local`],
        issuerRef: { kind: "Issuer", name: names.issuer },
        secretName: names.secret,
        // The operator's own: its webhooks for Secrets must not block the Secret its pods mount.
        secretTemplate: { labels: operatorLabels(options.name) },
      },
    } as KubeObject,
  ];
}

/**
 * The objects of `webhooks.yaml`: the Service, the webhook configurations (named after the
 * operator, each webhook at the Service's path for it), and with cert-manager its Issuer and
 * Certificate.
 */
export function webhookManifests(options: WebhookManifestOptions): KubeObject[] {
  const annotations = injectionAnnotations(options);
  const configurations = admissionConfigurations(options.webhooks, {
    name: configurationNameOf(options.name, options.watchNamespace),
    operator: options.name,
    endpoint: endpointOf(options),
    ...(options.watchNamespace === undefined ? {} : { watchNamespace: options.watchNamespace }),
    ...(annotations ? { annotations } : {}),
  });
  const certificates = options.certificates === "cert-manager" ? certManagerObjects(options) : [];
  return [webhookServiceManifest(options), ...configurations, ...certificates];
}

/**
 * `crds` with the `conversion` stanza (strategy Webhook, ConversionReview v1, the Service's
 * `/convert`) on those a conversion is declared for, and cert-manager's annotation on them.
 */
export function withConversions(crds: readonly CrdObject[], options: WebhookManifestOptions): CrdObject[] {
  const converted = new Set(conversionsOf(options.webhooks).map(crdNameOf));
  const annotations = injectionAnnotations(options);
  return crds.map((crd) => {
    if (!converted.has(crd.metadata.name)) return crd;
    const metadata = annotations ? { ...crd.metadata, annotations: { ...annotations } } : crd.metadata;
    const conversion = conversionStanza({ endpoint: endpointOf(options) });
    return { ...crd, metadata, spec: { ...crd.spec, conversion } };
  });
}

/**
 * What a self-managed operator patches with its CA: its webhook configurations and the CRDs it
 * converts, by name; and the Secret of the CA its replicas share, in its namespace. Nothing with
 * cert-manager, whose CA injector does it.
 */
export function webhookCaPermissions(options: WebhookManifestOptions): PermissionRequest[] {
  if (options.certificates !== "self") return [];
  const patch = (type: PermissionRequest["type"], names: string[]): PermissionRequest[] =>
    names.length > 0 ? [{ type, verbs: ["patch"], resourceNames: names }] : [];
  const kinds = new Set(options.webhooks.map((w) => w.type));
  const name = configurationNameOf(options.name, options.watchNamespace);
  const configuration = (type: Webhook["type"]) => (kinds.has(type) ? [name] : []);
  // The replicas' shared CA: read by name, made by the first replica (create takes no name).
  const caSecret = { type: Secret, namespace: options.namespace };
  return [
    ...patch(ValidatingWebhookConfiguration, configuration("validating")),
    ...patch(MutatingWebhookConfiguration, configuration("mutating")),
    ...patch(CustomResourceDefinition, conversionsOf(options.webhooks).map(crdNameOf)),
    { ...caSecret, verbs: ["get"], resourceNames: [webhookCaSecretName(options.name)] },
    { ...caSecret, verbs: ["create"] },
  ];
}
