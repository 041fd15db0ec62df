/**
 * Which requests the apiserver sends an admission webhook: the namespace and object selectors of
 * its entry, and the refusal of a configuration that would send it none from the namespaces the
 * operator watches (which would leave invalid objects admitted while `/readyz` stays green).
 *
 * What is left out, and why: a webhook that is down (failurePolicy `Fail`) refuses what it is
 * sent, so it must not be sent what brings it back. For a kind Kubernetes serves itself (pods,
 * Deployments, Secrets, ...), that is the operator's own objects, labelled {@link OPERATOR_LABEL}
 * by `kubeloop generate` and by the manager (its Deployment and pods, its webhook Service, its
 * certificate Secrets), and kube-system, where the cluster's own components run. For a kind an
 * operator defines, nothing: its objects are never what runs the operator, as kubebuilder's
 * "webhook bootstrap problem" notes, so they are admitted through the webhook in every namespace,
 * the operator's own included.
 */
import { groupOf, type LabelSelector } from "../api/index.ts";
import { type AdmissionWebhook, webhookName } from "./admission.ts";
import { WebhookNamespaceError } from "./errors.ts";

/** One requirement of a label selector: `key In [values]` and the like. */
type Requirement = NonNullable<LabelSelector["matchExpressions"]>[number];

/**
 * The label of an operator's own objects (`kubeloop.dev/operator: <operator>`), which its
 * webhooks for built-in kinds are not sent: what brings the webhook back must not wait on it.
 */
export const OPERATOR_LABEL = "kubeloop.dev/operator";

/** The labels `kubeloop generate` and the manager put on an operator's own objects. */
export function operatorLabels(operator: string): Record<string, string> {
  return { [OPERATOR_LABEL]: operator };
}

/** The namespaces admission is limited to: the one the operator watches, and a selector of its own. */
export interface AdmissionScope {
  /** The one namespace the operator watches; every namespace without it. */
  readonly watchNamespace?: string;
  /** A selector every admitted namespace must match as well, e.g. a test session's (`webhookServer.namespaceSelector`). */
  readonly namespaceSelector?: LabelSelector;
}

/** The label the apiserver sets on every namespace, naming it. */
const NAME_LABEL = "kubernetes.io/metadata.name";

/** The selector of the namespace named `name` (by the label the apiserver sets on every namespace). */
export function namespaceNamed(name: string): LabelSelector {
  return { matchExpressions: [{ key: NAME_LABEL, operator: "In", values: [name] }] };
}

/**
 * Whether Kubernetes serves `webhook`'s kind itself: its group is the core group, has no dot
 * (`apps`, `batch`), or is one of Kubernetes' own (`*.k8s.io`, `*.kubernetes.io`), where only
 * approved APIs may live. The operator's own objects are of such kinds.
 */
function forBuiltInKind(webhook: AdmissionWebhook): boolean {
  const group = groupOf(webhook.resource.apiVersion);
  return !group.includes(".") || group.endsWith(".k8s.io") || group.endsWith(".kubernetes.io");
}

/** A selector's terms as requirements: `{ a: "b" }` is `a In [b]`. */
function requirementsOf(selector: LabelSelector | undefined): Requirement[] {
  const labels = Object.entries(selector?.matchLabels ?? {});
  const fromLabels = labels.map(([key, value]) => ({ key, operator: "In", values: [value] }));
  return [...fromLabels, ...(selector?.matchExpressions ?? [])];
}

/**
 * A requirement of a namespace selector and, when it can leave out a watched namespace, why it is
 * there and how to lift it for the namespaces `where` names.
 */
interface Term {
  readonly requirement: Requirement;
  readonly why?: string;
  readonly fix?: (where: string) => string;
}

function text({ key, operator, values }: Requirement): string {
  return `${key} ${operator}${values ? ` [${values.join(", ")}]` : ""}`;
}

/** Terms from the selector `source` declared: `fixed` is what to change. */
function declaredTerms(selector: LabelSelector | undefined, source: string, fixed: string): Term[] {
  return requirementsOf(selector).map((requirement) => ({
    requirement,
    why: `${source} wants ${text(requirement)}`,
    fix: (where) => `select ${where} in ${fixed}`,
  }));
}

/** The terms of `webhook`'s namespace selector, in order: kube-system's, the scope's, the declared. */
function namespaceTerms(webhook: AdmissionWebhook, scope: AdmissionScope): Term[] {
  const system: Term = {
    requirement: { key: NAME_LABEL, operator: "NotIn", values: ["kube-system"] },
    why: "webhooks for built-in kinds leave out kube-system, whose components must never wait on an operator",
    fix: () => "watch another namespace",
  };
  const watched = scope.watchNamespace === undefined ? undefined : namespaceNamed(scope.watchNamespace);
  return [
    ...(forBuiltInKind(webhook) ? [system] : []),
    ...requirementsOf(watched).map((requirement) => ({ requirement })),
    ...declaredTerms(
      scope.namespaceSelector,
      "webhookServer.namespaceSelector",
      "webhookServer.namespaceSelector",
    ),
    ...declaredTerms(
      webhook.match.namespaceSelector,
      "its namespaceSelector",
      "its namespaceSelector (or drop it)",
    ),
  ];
}

/** The namespace selector of `webhook`'s entry; none when it is sent requests from every namespace. */
export function namespaceSelectorOf(
  webhook: AdmissionWebhook,
  scope: AdmissionScope,
): LabelSelector | undefined {
  const terms = namespaceTerms(webhook, scope);
  return terms.length > 0 ? { matchExpressions: terms.map((t) => t.requirement) } : undefined;
}

/**
 * The object selector of `webhook`'s entry: the declared one and, for a built-in kind, none of
 * `operator`'s own objects.
 */
export function objectSelectorOf(webhook: AdmissionWebhook, operator: string): LabelSelector | undefined {
  const declared = webhook.match.objectSelector;
  if (!forBuiltInKind(webhook)) return declared;
  const notOwn = { key: OPERATOR_LABEL, operator: "NotIn", values: [operator] };
  return { matchExpressions: [notOwn, ...requirementsOf(declared)] };
}

/** Whether a namespace named `name` meets `requirement` on its name label (true for any other key). */
function admitsName(requirement: Requirement, name: string): boolean {
  if (requirement.key !== NAME_LABEL) return true;
  const listed = requirement.values?.includes(name) ?? false;
  const outcome: Record<string, boolean> = { In: listed, NotIn: !listed, Exists: true, DoesNotExist: false };
  return outcome[requirement.operator] ?? true;
}

/**
 * The terms that keep every namespace out, when the name label's requirements leave none (any
 * name not listed meets every `NotIn`; else one of the names some `In` lists must).
 */
function excludingAll(terms: readonly Term[]): Term[] {
  const onName = terms.filter((t) => t.requirement.key === NAME_LABEL);
  const candidates = onName.flatMap((t) =>
    t.requirement.operator === "In" ? (t.requirement.values ?? []) : [],
  );
  const unlisted = "\u0000 a name no selector lists";
  const admitted = [unlisted, ...candidates].some((n) => onName.every((t) => admitsName(t.requirement, n)));
  return admitted ? [] : onName;
}

/**
 * Throws {@link WebhookNamespaceError} when one of `webhooks` would be sent no request from the
 * namespaces the operator watches (`scope`): a namespaced kind whose selectors, as far as a
 * namespace's name decides them, leave out the watched namespace (or, watching every namespace,
 * all of them). Selectors on other labels are the user's to keep true.
 *
 * @example
 * ```ts
 * checkNamespacesAdmitted([widgetValidation], { watchNamespace: "team-a" });
 * ```
 */
export function checkNamespacesAdmitted(webhooks: readonly AdmissionWebhook[], scope: AdmissionScope): void {
  const namespace = scope.watchNamespace;
  const where =
    namespace === undefined
      ? "any namespace, though the operator watches every one"
      : `namespace ${namespace}, which the operator watches`;
  for (const webhook of webhooks.filter((w) => w.resource.namespaced)) {
    const terms = namespaceTerms(webhook, scope);
    const excluding =
      namespace === undefined
        ? excludingAll(terms)
        : terms.filter((t) => !admitsName(t.requirement, namespace));
    if (excluding.length === 0) continue;
    const why = excluding.map((t) => t.why).join("; ");
    const fixes = new Set(excluding.map((t) => t.fix?.(namespace ?? "some namespace")));
    throw new WebhookNamespaceError(webhookName(webhook), where, why, [...fixes].join(", or "));
  }
}
