/**
 * The cluster objects that make the apiserver call declared webhooks: a
 * ValidatingWebhookConfiguration and a MutatingWebhookConfiguration with one entry per admission
 * webhook, and the `conversion` stanza of each CRD a conversion is declared for. The manager
 * applies them with the CA it serves with (local runs, self-managed certificates) and
 * `kubeloop generate` writes them; both take them from here, so the two never differ.
 */
import {
  CustomResourceDefinition,
  type CustomResourceDefinitionObject,
  groupOf,
  type LabelSelector,
  MutatingWebhookConfiguration,
  type MutatingWebhookConfigurationObject,
  resourceOf,
  ValidatingWebhookConfiguration,
  type ValidatingWebhookConfigurationObject,
} from "../api/index.ts";
import type { AdmissionWebhook } from "./admission.ts";
import type { ConversionWebhook } from "./conversion.ts";
import { admissionsOf, conversionsOf, type Webhook } from "./server.ts";

type ValidatingEntry = NonNullable<ValidatingWebhookConfigurationObject["webhooks"]>[number];

/** How the apiserver reaches a webhook: a `clientConfig` of a webhook configuration or CRD. */
export type WebhookClientConfig = ValidatingEntry["clientConfig"];

/**
 * Where the apiserver reaches the webhook server: a base URL (a local run: the apiserver calls
 * `https://127.0.0.1:<port>`), or the operator's Service in a cluster.
 */
export type WebhookEndpoint =
  | { readonly url: string }
  | { readonly service: { readonly name: string; readonly namespace: string; readonly port?: number } };

/** Options of {@link admissionConfigurations} and {@link conversionPatches}. */
export interface ConfigurationOptions {
  /** Name of the configurations (both kinds), e.g. the operator's name. */
  readonly name: string;
  readonly endpoint: WebhookEndpoint;
  /** The CA of the serving certificate (PEM), written as `caBundle`; absent when something else injects it. */
  readonly caPem?: string;
  /**
   * Namespaces no admission webhook is called for, whatever its declaration says: kube-system and
   * the operator's own (a webhook that is down must not block what could bring it back).
   */
  readonly excludedNamespaces: readonly string[];
  /**
   * Selectors every admitted namespace must match as well as each webhook's own: a
   * namespace-scoped operator's namespace (its cache sees no other), a test session's.
   */
  readonly namespaceSelectors?: readonly LabelSelector[];
  /** Annotations of every object made, e.g. cert-manager's `cert-manager.io/inject-ca-from`. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** The label the apiserver sets on every namespace, naming it. */
const namespaceNameLabel = "kubernetes.io/metadata.name";

/**
 * The name of an operator's webhook configurations: its own, or `<name>-<namespace>` for an
 * operator watching one namespace (its admission is limited to it, and another copy of the
 * operator may watch another namespace).
 */
export function configurationNameOf(operator: string, watchNamespace?: string): string {
  return watchNamespace === undefined ? operator : `${operator}-${watchNamespace}`;
}

/** The selector of the namespace named `name` (by the label the apiserver sets on every namespace). */
export function namespaceNamed(name: string): LabelSelector {
  return { matchExpressions: [{ key: namespaceNameLabel, operator: "In", values: [name] }] };
}

/** The `clientConfig` of the webhook served at `path`. */
export function clientConfigOf(endpoint: WebhookEndpoint, path: string, caPem?: string): WebhookClientConfig {
  const caBundle = caPem === undefined ? {} : { caBundle: Buffer.from(caPem).toString("base64") };
  if ("url" in endpoint) return { url: `${endpoint.url}${path}`, ...caBundle };
  const { name, namespace, port = 443 } = endpoint.service;
  return { service: { name, namespace, path, port }, ...caBundle };
}

/**
 * The name of an admission webhook within its configuration, as the apiserver shows it when it
 * cannot call it: `v<kind>-<version>.<group>` (`m` for a defaulting one), a qualified name of at
 * least three parts as the apiserver requires.
 */
export function webhookName(webhook: AdmissionWebhook): string {
  const { apiVersion, kind } = webhook.resource;
  const group = groupOf(apiVersion);
  const domain = group.includes(".") ? group : `${group || "core"}.kubeloop.dev`;
  const prefix = webhook.type === "validating" ? "v" : "m";
  return `${prefix}${kind.toLowerCase()}-${apiVersion.split("/").at(-1)}.${domain}`;
}

/** A selector's terms as expressions: `{ a: "b" }` is `a In [b]`. */
function termsOf(selector: LabelSelector | undefined): NonNullable<LabelSelector["matchExpressions"]> {
  const labels = Object.entries(selector?.matchLabels ?? {});
  const fromLabels = labels.map(([key, value]) => ({ key, operator: "In", values: [value] }));
  return [...fromLabels, ...(selector?.matchExpressions ?? [])];
}

/** All the selectors' terms, ANDed: the exclusion, the options' selector and the webhook's own. */
function namespaceSelectorOf(webhook: AdmissionWebhook, options: ConfigurationOptions): LabelSelector {
  const exclusion = { key: namespaceNameLabel, operator: "NotIn", values: [...options.excludedNamespaces] };
  const terms = [...(options.namespaceSelectors ?? []), webhook.match.namespaceSelector].flatMap(termsOf);
  return { matchExpressions: [exclusion, ...terms] };
}

/**
 * The entry of `webhook` in its configuration, with the defaults: `failurePolicy: Fail`,
 * `matchPolicy: Equivalent` (a request through another version of the kind is sent too, converted),
 * CREATE and UPDATE, AdmissionReview v1.
 */
function entryOf(webhook: AdmissionWebhook, options: ConfigurationOptions): ValidatingEntry {
  const { resource, match } = webhook;
  return {
    name: webhookName(webhook),
    admissionReviewVersions: ["v1"],
    clientConfig: clientConfigOf(options.endpoint, webhook.path, options.caPem),
    failurePolicy: match.failurePolicy ?? "Fail",
    matchPolicy: "Equivalent",
    sideEffects: webhook.sideEffects,
    timeoutSeconds: webhook.timeoutSeconds,
    namespaceSelector: namespaceSelectorOf(webhook, options),
    ...(match.objectSelector ? { objectSelector: match.objectSelector } : {}),
    ...(match.matchConditions?.length ? { matchConditions: [...match.matchConditions] } : {}),
    rules: [
      {
        apiGroups: [groupOf(resource.apiVersion)],
        apiVersions: [resource.apiVersion.split("/").at(-1) as string],
        operations: [...(match.operations ?? ["CREATE", "UPDATE"])],
        resources: [resource.plural],
        scope: resource.namespaced ? "Namespaced" : "Cluster",
      },
    ],
  };
}

function metadataOf(options: ConfigurationOptions) {
  return { name: options.name, ...(options.annotations ? { annotations: { ...options.annotations } } : {}) };
}

/**
 * The ValidatingWebhookConfiguration and MutatingWebhookConfiguration of the admission webhooks
 * among `webhooks`, both named `options.name`; a configuration with no webhook is left out.
 *
 * @example
 * ```ts
 * const [validatingConfig] = admissionConfigurations([widgetValidation], {
 *   name: "widgets",
 *   endpoint: { service: { name: "widgets-webhook-service", namespace: "widgets" } },
 *   excludedNamespaces: ["kube-system", "widgets"],
 * });
 * ```
 */
export function admissionConfigurations(
  webhooks: readonly Webhook[],
  options: ConfigurationOptions,
): (ValidatingWebhookConfigurationObject | MutatingWebhookConfigurationObject)[] {
  const admission = admissionsOf(webhooks);
  const validatingEntries = admission.filter((w) => w.type === "validating").map((w) => entryOf(w, options));
  const mutatingEntries = admission
    .filter((w) => w.type === "mutating")
    .map((w) => ({ ...entryOf(w, options), reinvocationPolicy: "Never" as const }));
  const configurations: (ValidatingWebhookConfigurationObject | MutatingWebhookConfigurationObject)[] = [];
  if (validatingEntries.length > 0) {
    const { apiVersion, kind } = ValidatingWebhookConfiguration;
    configurations.push({ apiVersion, kind, metadata: metadataOf(options), webhooks: validatingEntries });
  }
  if (mutatingEntries.length > 0) {
    const { apiVersion, kind } = MutatingWebhookConfiguration;
    configurations.push({ apiVersion, kind, metadata: metadataOf(options), webhooks: mutatingEntries });
  }
  return configurations;
}

/** The CRD name of a conversion's kind: `<plural>.<group>`. */
export function crdNameOf(webhook: ConversionWebhook): string {
  return resourceOf(webhook.resource);
}

/** The `spec.conversion` of a CRD converted by the webhook server: strategy Webhook, ConversionReview v1. */
export function conversionStanza(
  options: Pick<ConfigurationOptions, "endpoint" | "caPem">,
): NonNullable<CustomResourceDefinitionObject["spec"]["conversion"]> {
  return {
    strategy: "Webhook",
    webhook: {
      clientConfig: clientConfigOf(options.endpoint, "/convert", options.caPem),
      conversionReviewVersions: ["v1"],
    },
  };
}

/**
 * For each conversion among `webhooks`, the part of its CRD that makes the apiserver convert
 * through the webhook server: a partial object to server-side apply over the installed CRD.
 */
export function conversionPatches(
  webhooks: readonly Webhook[],
  options: Pick<ConfigurationOptions, "endpoint" | "caPem">,
): CustomResourceDefinitionObject[] {
  const { apiVersion, kind } = CustomResourceDefinition;
  return conversionsOf(webhooks).map((w) => ({
    apiVersion,
    kind,
    metadata: { name: crdNameOf(w) },
    spec: { conversion: conversionStanza(options) } as CustomResourceDefinitionObject["spec"],
  }));
}
