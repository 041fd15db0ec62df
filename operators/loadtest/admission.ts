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
  imageRefusal,
  valueFromRefusal,
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
 * export default defineOperator({
 *   name: "loadtest",
 *   kinds: [LoadTest],
 *   setup: setupLoadTests,
 *   manifests: () => workerAdmissionPolicy(workerPolicyFrom(process.env), LoadTest.group),
 * });
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
  return {
    expression: `!has(object.spec.image) || ${patterns.join(" || ")}`,
    messageExpression: celMessage(imageRefusal(PLACEHOLDER, policy.allowedImages), "object.spec.image"),
    reason: "Invalid",
  };
}

/** `spec.env` reads no ConfigMap or Secret; none when the administrator allows it. */
function valueFromValidation(policy: WorkerPolicy): Validation | undefined {
  if (policy.allowValueFrom) return undefined;
  const reads = "has(e.valueFrom) && (has(e.valueFrom.secretKeyRef) || has(e.valueFrom.configMapKeyRef))";
  return {
    expression: `!has(object.spec.env) || !object.spec.env.exists(e, ${reads})`,
    messageExpression: celMessage(
      valueFromRefusal(PLACEHOLDER),
      `object.spec.env.filter(e, ${reads})[0].name`,
    ),
    reason: "Invalid",
  };
}

/** `message` (the operator's own, with {@link PLACEHOLDER}) as CEL that puts `value` in its place. */
function celMessage(message: string, value: string): string {
  const [before = "", after = ""] = message.split(PLACEHOLDER);
  return `${celString(before)} + ${value} + ${celString(after)}`;
}

/** `text` as a CEL string literal (JSON's double-quoted escapes are CEL's too). */
function celString(text: string): string {
  return JSON.stringify(text);
}

/**
 * An anchored RE2 (and JavaScript) regular expression matching exactly the image references
 * `imageAllowed` lets through for the allowed-images `entry`: every image for `*`; for a
 * repository, every spelling of it (with or without Docker Hub's registry names and `library/`)
 * at any tag or digest; for `prefix/*`, every repository under the prefix. Built from the cases of
 * `canonicalRepository`, which reads an image's repository as the text before its tag (the first
 * `:` after the last `/`) and its digest (the first `@`), under Docker Hub's when its first segment
 * names no other registry (it has no `.` or `:` and is not `localhost`) or the image has one
 * segment; a property test proves the two agree.
 */
export function imagePattern(entry: string): string {
  if (entry === "*") return `^${ANY}$`;
  const spellings = entry.endsWith("/*")
    ? prefixSpellings(`${canonicalPrefix(entry.slice(0, -2))}/`)
    : repositorySpellings(canonicalRepository(entry));
  return `^(?:${spellings.join("|")})$`;
}

/** Any text (`.` would stop at a line break, in RE2 as in JavaScript). */
const ANY = "[\\s\\S]*";
/** What may follow a repository in a reference: a tag (no `/` or `@`), then a digest (anything). */
const TAG_AND_DIGEST = `(?::[^/@]*)?(?:@${ANY})?`;
/** A repository of one segment, which Docker Hub's `library/` holds, with its tag and digest. */
const ONE_SEGMENT = `[^/@:]*${TAG_AND_DIGEST}`;
/** Docker Hub's registry names, each followed by the `/` that ends it. */
const HUB = `(?:${[...DOCKER_HUB].map(literal).join("|")})/`;
/** A first segment read as a path under Docker Hub, not as a registry: no `.` or `:`, not `localhost`. */
const HUB_PATH_START = `${except("localhost", "/@:.")}/`;
const DOCKER_IO = "docker.io/";

/** The spellings, as regular expressions, of the images whose canonical repository is `repository`. */
function repositorySpellings(repository: string): string[] {
  if (!repository.startsWith(DOCKER_IO)) return [literal(repository) + TAG_AND_DIGEST];
  const path = repository.slice(DOCKER_IO.length);
  const name = /^library\/([^/]*)$/.exec(path)?.[1];
  return [
    HUB + literal(path),
    ...(readAsHubPath(path) ? [literal(path)] : []),
    ...(name === undefined ? [] : [HUB + literal(name), literal(name)]),
  ].map((spelling) => spelling + TAG_AND_DIGEST);
}

/** The spellings, as regular expressions, of the images whose canonical repository starts with `prefix` (ending in `/`). */
function prefixSpellings(prefix: string): string[] {
  if (!prefix.startsWith(DOCKER_IO)) return [literal(prefix) + ANY];
  const under = prefix.slice(DOCKER_IO.length);
  if (under === "") return [HUB + ANY, HUB_PATH_START + ANY, ONE_SEGMENT];
  return [
    HUB + literal(under) + ANY,
    ...(readAsHubPath(under) ? [literal(under) + ANY] : []),
    ...(under === "library/" ? [HUB + ONE_SEGMENT, ONE_SEGMENT] : []),
  ];
}

/** Whether an image starting with `path` is read as that path under Docker Hub: its first segment names no registry. */
function readAsHubPath(path: string): boolean {
  const first = path.split("/")[0];
  return canonicalRepository(`${first}/_`) === `${DOCKER_IO}${first}/_`;
}

/** `text` as a regular expression matching itself. */
function literal(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

/**
 * Strings of characters other than `excluded` that are not `word`, without lookaround (RE2 has
 * none): a proper prefix of `word`, a string leaving it at some letter, or one going on after it.
 */
function except(word: string, excluded: string): string {
  const other = `[^${excluded}]`;
  const leaving = [...word].flatMap((letter, i) => {
    const before = literal(word.slice(0, i));
    return [before, `${before}[^${excluded}${letter}]${other}*`];
  });
  return `(?:${[...leaving, `${literal(word)}${other}+`].join("|")})`;
}
