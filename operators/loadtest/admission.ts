/**
 * The worker policy of `policy.ts` as a ValidatingAdmissionPolicy, so that the apiserver refuses a
 * LoadTest the operator would not run when it is created (`422 Invalid`, the message naming the
 * field), rather than the operator reporting `WorkerNotAllowed` afterwards. Built from the same environment
 * (`LOADTEST_ALLOWED_IMAGES`, `LOADTEST_ALLOW_VALUE_FROM`), with the operator's own messages; the
 * operator keeps its check for clusters without the policy. Pure.
 */
import type { KubeObject } from "kubeloop";
import type { LabelSelector } from "kubeloop/api";
import { LoadTest } from "./api.ts";
import {
  canonicalPrefix,
  canonicalRepository,
  DOCKER_HUB,
  policyViolation,
  type WorkerPolicy,
} from "./policy.ts";

/** The name of the policy and of its binding unless {@link AdmissionOptions} names another. */
export const ADMISSION_POLICY_NAME = "loadtest-worker-policy";

const ADMISSION_API_VERSION = "admissionregistration.k8s.io/v1";

/** Options of {@link workerAdmissionPolicy}. */
export interface AdmissionOptions {
  /** Name of the policy and its binding. Default {@link ADMISSION_POLICY_NAME}. */
  readonly name?: string;
  /** Namespaces whose LoadTests the binding checks. Default: every namespace. */
  readonly namespaceSelector?: LabelSelector;
}

/**
 * One validation of a ValidatingAdmissionPolicy. Its v1 API has no field path: the apiserver
 * answers `422 Invalid` with the message, which names the field as the operator's does.
 */
interface Validation {
  expression: string;
  messageExpression: string;
  reason: "Invalid";
}

/**
 * A ValidatingAdmissionPolicy refusing the creation of a LoadTest in `group` (any version) whose
 * workers `policy` does not allow, with the operator's message naming `spec.image` or `spec.env`,
 * and its binding (`Deny`). Empty when the policy allows every image and reference, as there is
 * nothing to check.
 *
 * @example
 * ```ts
 * defineOperator({ ..., manifests: () => workerAdmissionPolicy(workerPolicyFrom(process.env), LoadTest.group) });
 * ```
 */
export function workerAdmissionPolicy(
  policy: WorkerPolicy,
  group: string,
  options: AdmissionOptions = {},
): KubeObject[] {
  const validations = [imageValidation(policy), valueFromValidation(policy)].filter(
    (v): v is Validation => v !== undefined,
  );
  if (validations.length === 0) return [];
  const name = options.name ?? ADMISSION_POLICY_NAME;
  const loadTests = {
    apiGroups: [group],
    apiVersions: ["*"],
    operations: ["CREATE"],
    resources: [LoadTest.plural],
  };
  const admissionPolicy = {
    apiVersion: ADMISSION_API_VERSION,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: { failurePolicy: "Fail", matchConstraints: { resourceRules: [loadTests] }, validations },
  };
  const binding = {
    apiVersion: ADMISSION_API_VERSION,
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: {
      policyName: name,
      validationActions: ["Deny"],
      ...(options.namespaceSelector
        ? { matchResources: { namespaceSelector: options.namespaceSelector } }
        : {}),
    },
  };
  return [admissionPolicy, binding];
}

/** Stands for a value CEL fills in when it splices the operator's message (see {@link celMessage}). */
const PLACEHOLDER = "\u0000";

/** `spec.image` matches one of the allowed images; none when any image is. */
function imageValidation(policy: WorkerPolicy): Validation | undefined {
  if (policy.allowedImages.includes("*")) return undefined;
  const patterns = policy.allowedImages.map(
    (entry) => `object.spec.image.matches(${celString(imagePattern(entry))})`,
  );
  const refusal = policyViolation({ image: PLACEHOLDER }, policy);
  return {
    expression: `!has(object.spec.image) || ${patterns.join(" || ")}`,
    messageExpression: celMessage(refusal, "object.spec.image"),
    reason: "Invalid",
  };
}

/** `spec.env` reads no ConfigMap or Secret; none when the administrator allows it. */
function valueFromValidation(policy: WorkerPolicy): Validation | undefined {
  if (policy.allowValueFrom) return undefined;
  const reads = "has(e.valueFrom) && (has(e.valueFrom.secretKeyRef) || has(e.valueFrom.configMapKeyRef))";
  const reference = { name: PLACEHOLDER, valueFrom: { secretKeyRef: { name: "", key: "" } } };
  const refusal = policyViolation({ image: "", env: [reference] }, { ...policy, allowedImages: ["*"] });
  return {
    expression: `!has(object.spec.env) || !object.spec.env.exists(e, ${reads})`,
    messageExpression: celMessage(refusal, `object.spec.env.filter(e, ${reads})[0].name`),
    reason: "Invalid",
  };
}

/** `message` (the operator's own, with {@link PLACEHOLDER}) as CEL that puts `value` in its place. */
function celMessage(message: string | undefined, value: string): string {
  const [before = "", after = ""] = (message ?? PLACEHOLDER).split(PLACEHOLDER);
  return `${celString(before)} + ${value} + ${celString(after)}`;
}

/** `text` as a CEL string literal (JSON's double-quoted escapes are CEL's too). */
function celString(text: string): string {
  return JSON.stringify(text);
}

/**
 * An anchored RE2 (and JavaScript) regular expression matching exactly the image references
 * `imageAllowed` lets through for the allowed-images `entry` (not `*`): the repository `entry`
 * names, spelled in any way that has the same canonical repository (with or without Docker Hub's
 * registry names and `library/`), at any tag or digest; or, for `prefix/*`, every repository under
 * the prefix.
 */
export function imagePattern(entry: string): string {
  if (entry.endsWith("/*")) {
    // A segment after the prefix: a repository under it has at least one, so never an implicit `library/`.
    const under = `${canonicalPrefix(entry.slice(0, -2))}/x`;
    return `^${alternatives(spellings(under).map((spelling) => spelling.slice(0, -"x".length)))}.*$`;
  }
  return `^${alternatives(spellings(canonicalRepository(entry)))}(?::[^/@]*)?(?:@.*)?$`;
}

/**
 * Every way of writing the canonical `repository` in an image reference: as is, and for Docker
 * Hub's, with each of its registry names or none, with or without `library/`, each kept only if it
 * reads back as `repository`.
 */
function spellings(repository: string): string[] {
  const path = repository.replace(/^docker\.io\//, "");
  const short = path.replace(/^library\/(?=[^/]+$)/, "");
  const registries = ["", ...[...DOCKER_HUB].map((registry) => `${registry}/`)];
  const candidates = [
    repository,
    ...registries.flatMap((registry) => [path, short].map((p) => registry + p)),
  ];
  return [...new Set(candidates)].filter((candidate) => canonicalRepository(candidate) === repository);
}

/** A non-capturing group of `literals`, each escaped. */
function alternatives(literals: readonly string[]): string {
  return `(?:${literals.map((literal) => literal.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")).join("|")})`;
}
