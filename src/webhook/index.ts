/**
 * @module webhook
 *
 * Admission and conversion webhooks, declared with their kind and served over HTTPS. A
 * validating webhook ({@link validating}) admits or denies with field causes and warnings; a
 * defaulting webhook ({@link defaulting}) returns the defaulted object and the framework answers
 * the JSON patch; a conversion ({@link conversion}) converts between a kind's versions through a
 * hub, losslessly when a spoke `lacks` fields (they travel in an annotation). Handlers get the
 * operation, `dryRun`, the user, a client that refuses writes when the webhook must have no side
 * effects, the cache and an `AbortSignal` for the timeout. The {@link WebhookServer} serves the
 * declarations at controller-runtime's paths (`/validate-<group>-<version>-<kind>`,
 * `/mutate-...`, `/convert`) on port 9443, answers AdmissionReview v1 and v1beta1 and
 * ConversionReview v1, reloads its certificate files when they change, and counts requests with
 * controller-runtime's metric names.
 *
 * The configurations that make the apiserver call them ({@link admissionConfigurations},
 * {@link conversionPatches}) are built here too, with safe defaults, for the manager (which
 * applies them with its own CA when it makes its certificate) and `kubeloop/generate` alike.
 *
 * {@link ManagerWebhooks} serves them for a manager (its `webhooks` option, or `defineOperator`'s):
 * on every replica, before its caches sync, with a certificate the replicas share or one from a
 * directory, the configurations applied with its CA (and taken back when a local run stops).
 *
 * Not for: running an operator's controllers (`kubeloop/manager`), nor CEL rules, which the CRD
 * checks without a webhook (`withRules` in `kubeloop/schema`): reach for a webhook when a check needs other
 * objects, a default is computed, or versions differ in shape.
 *
 * @example
 * ```ts
 * import { defaulting, Verdict, validating, WebhookServer } from "kubeloop/webhook";
 *
 * const widgetValidation = validating(Widget, async (widget, _old, ctx) => {
 *   const quotas = await ctx.cache.reader(ConfigMap);
 *   const limit = Number(quotas.get("widget-quota", widget.metadata.namespace)?.data?.replicas ?? 10);
 *   if (widget.spec.replicas > limit) {
 *     return Verdict.deny(`at most ${limit} replicas in this namespace`, {
 *       causes: [{ field: "spec.replicas", message: `must be at most ${limit}` }],
 *     });
 *   }
 * });
 * const widgetDefaults = defaulting(Widget, (widget) => {
 *   widget.metadata.labels = { ...widget.metadata.labels, "example.com/tier": "standard" };
 *   return widget;
 * });
 *
 * const server = new WebhookServer({
 *   webhooks: [widgetValidation, widgetDefaults],
 *   tls: { certFile: "certs/tls.crt", keyFile: "certs/tls.key" },
 *   client,
 *   cache,
 * });
 * await server.listen(); // https://:9443/validate-example-com-v1-widget, /mutate-example-com-v1-widget
 * ```
 */
export {
  type AdmissionAnswer,
  type AdmissionContext,
  type AdmissionMatch,
  type AdmissionOptions,
  type AdmissionWebhook,
  type Defaulter,
  defaulting,
  type MatchCondition,
  type SideEffects,
  type Validator,
  validating,
  type WebhookCache,
  webhookName,
} from "./admission.ts";
export {
  CA_FILE,
  type CertificateFiles,
  certificateFilesIn,
  type ServingTls,
  watchFiles,
  webhookCaSecretName,
  writeSelfManagedCertificates,
} from "./certificates.ts";
export {
  admissionConfigurations,
  type ConfigurationOptions,
  clientConfigOf,
  configurationNameOf,
  conversionPatches,
  conversionStanza,
  crdNameOf,
  type WebhookClientConfig,
  type WebhookEndpoint,
} from "./configuration.ts";
export {
  type ConversionOptions,
  type ConversionWebhook,
  conversion,
  type SpokeConversion,
  type VersionedKind,
} from "./conversion.ts";
export {
  CONVERSION_DATA_ANNOTATION,
  CONVERSION_SHOWN_ANNOTATION,
  restoreFields,
  stashFields,
} from "./conversion-data.ts";
export {
  BadWebhookRequestError,
  ConversionError,
  WebhookCaSecretError,
  WebhookConfigurationError,
  WebhookDeclarationError,
  WebhookListenError,
  WebhookNamespaceError,
  WebhookSideEffectError,
  WebhookTimeoutError,
} from "./errors.ts";
export type { WebhookLogger } from "./logger.ts";
export type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  ConversionResponse,
  ConversionReview,
  Operation,
  Status,
  StatusCause,
  UserInfo,
} from "./review.ts";
export {
  type AdmissionScope,
  checkNamespacesAdmitted,
  namespaceNamed,
  OPERATOR_LABEL,
  operatorLabels,
} from "./selectors.ts";
export {
  admissionsOf,
  conversionsOf,
  type Webhook,
  WebhookServer,
  type WebhookServerOptions,
} from "./server.ts";
export {
  type ManagerWebhookDeps,
  ManagerWebhooks,
  type WebhookServingOptions,
  webhookServiceName,
} from "./serving.ts";
export { shardLabelWebhook } from "./shard-label.ts";
export { type DenyOptions, type FieldCause, Verdict } from "./verdict.ts";
