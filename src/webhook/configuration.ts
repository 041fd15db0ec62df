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
  MutatingWebhookConfiguration,
  type MutatingWebhookConfigurationObject,
  resourceOf,
  ValidatingWebhookConfiguration,
  type ValidatingWebhookConfigurationObject,
} from "../api/index.ts";
import { type AdmissionWebhook, webhookName } from "./admission.ts";
import type { ConversionWebhook } from "./conversion.ts";
import {
  type AdmissionScope,
  checkNamespacesAdmitted,
  namespaceSelectorOf,
  objectSelectorOf,
} from "./selectors.ts";
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
export interface ConfigurationOptions extends AdmissionScope {
  /** Name of the configurations (both kinds), e.g. the operator's name. */
  readonly name: string;
  /**
   * The operator's name: its own objects (labelled {@link operatorLabels}) are not sent to its
   * webhooks for built-in kinds, so that a webhook that is down never blocks what brings it back.
   */
  readonly operator: string;
  readonly endpoint: WebhookEndpoint;
  /** The CA of the serving certificate (PEM), written as `caBundle`; absent when something else injects it. */
  readonly caPem?: string;
  /** Annotations of every object made, e.g. cert-manager's `cert-manager.io/inject-ca-from`. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * The name of an operator's webhook configurations: its own, or `<name>-<namespace>` for an
 * operator watching one namespace (its admission is limited to it, and another copy of the
 * operator may watch another namespace).
 */
export function configurationNameOf(operator: string, watchNamespace?: string): string {
  return watchNamespace === undefined ? operator : `${operator}-${watchNamespace}`;
}

/** The `clientConfig` of the webhook served at `path`. */
export function clientConfigOf(endpoint: WebhookEndpoint, path: string, caPem?: string): WebhookClientConfig {
  const caBundle = caPem === undefined ? {} : { caBundle: Buffer.from(caPem).toString("base64") };
  if ("url" in endpoint) return { url: `${endpoint.url}${path}`, ...caBundle };
  const { name, namespace, port = 443 } = endpoint.service;
  return { service: { name, namespace, path, port }, ...caBundle };
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
    ...selectorsOf(webhook, options),
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

/** The entry's namespace and object selectors, each left out when it selects everything. */
function selectorsOf(webhook: AdmissionWebhook, options: ConfigurationOptions) {
  const namespaceSelector = namespaceSelectorOf(webhook, options);
  const objectSelector = objectSelectorOf(webhook, options.operator);
  return { ...(namespaceSelector && { namespaceSelector }), ...(objectSelector && { objectSelector }) };
}

function metadataOf(options: ConfigurationOptions) {
  return { name: options.name, ...(options.annotations ? { annotations: { ...options.annotations } } : {}) };
}

/**
 * The ValidatingWebhookConfiguration and MutatingWebhookConfiguration of the admission webhooks
 * among `webhooks`, both named `options.name`; a configuration with no webhook is left out.
 * Throws {@link WebhookNamespaceError} when a webhook would be sent no request from the watched
 * namespaces (see {@link checkNamespacesAdmitted}).
 *
 * @example
 * ```ts
 * const [validatingConfig] = admissionConfigurations([widgetValidation], {
 *   name: "widgets",
 *   operator: "widgets",
 *   endpoint: { service: { name: "widgets-webhook-service", namespace: "widgets" } },
 * });
 * ```
 */
export function admissionConfigurations(
  webhooks: readonly Webhook[],
  options: ConfigurationOptions,
): (ValidatingWebhookConfigurationObject | MutatingWebhookConfigurationObject)[] {
  const admission = admissionsOf(webhooks);
  checkNamespacesAdmitted(admission, options);
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
