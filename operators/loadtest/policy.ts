/**
 * What the operator's administrator lets a LoadTest's workers do, so that a user allowed only to
 * create LoadTests cannot use the operator as a deputy: which images workers may run
 * (`LOADTEST_ALLOWED_IMAGES`, default the Artillery images) and whether their environment may read
 * ConfigMaps and Secrets (`LOADTEST_ALLOW_VALUE_FROM`, default no). Read once from the operator's
 * environment, as the telemetry settings are. Pure apart from the environment handed in.
 */
import type { LoadTestSpec } from "./api.ts";

/** The operator's environment variable listing the images workers may run. */
export const ALLOWED_IMAGES_ENV = "LOADTEST_ALLOWED_IMAGES";
/** The operator's environment variable allowing `env[].valueFrom` ConfigMap and Secret references. */
export const ALLOW_VALUE_FROM_ENV = "LOADTEST_ALLOW_VALUE_FROM";
/** The repositories workers may run when the administrator names none: Artillery's own. */
export const DEFAULT_ALLOWED_IMAGES: readonly string[] = ["artilleryio/artillery"];

/** The administrator's policy for workers. */
export interface WorkerPolicy {
  /**
   * Repositories workers may run, at any tag or digest: `artilleryio/artillery` (Docker Hub names
   * are matched with and without `docker.io/`), `registry.example.com/team/*` for every repository
   * under a path, or `*` for any image.
   */
  readonly allowedImages: readonly string[];
  /** Whether `env[].valueFrom` may name a ConfigMap or Secret key (a `fieldRef` always may). */
  readonly allowValueFrom: boolean;
}

/** The policy of the Artillery operator's users who set nothing: Artillery images, no references. */
export const DEFAULT_POLICY: WorkerPolicy = { allowedImages: DEFAULT_ALLOWED_IMAGES, allowValueFrom: false };

/** The policy from the operator's environment `env`: comma-separated images, and `true` or `false`. */
export function workerPolicyFrom(env: Readonly<Record<string, string | undefined>>): WorkerPolicy {
  const listed = (env[ALLOWED_IMAGES_ENV] ?? "")
    .split(",")
    .map((image) => image.trim())
    .filter(Boolean);
  return {
    allowedImages: listed.length > 0 ? listed : DEFAULT_ALLOWED_IMAGES,
    allowValueFrom: env[ALLOW_VALUE_FROM_ENV]?.trim().toLowerCase() === "true",
  };
}

/**
 * Why `policy` refuses the workers `spec` asks for (naming the field and the fix), or undefined
 * when it allows them.
 */
export function policyViolation(
  spec: Pick<LoadTestSpec, "image" | "env">,
  policy: WorkerPolicy,
): string | undefined {
  if (!imageAllowed(spec.image, policy.allowedImages)) return imageRefusal(spec.image, policy.allowedImages);
  if (policy.allowValueFrom) return undefined;
  const reference = (spec.env ?? []).find((e) => e.valueFrom?.configMapKeyRef || e.valueFrom?.secretKeyRef);
  return reference && valueFromRefusal(reference.name);
}

/** Why `image` is refused under the allowed images `allowed`, naming the field and the fix. */
export function imageRefusal(image: string, allowed: readonly string[]): string {
  return `spec.image ${image} is not among the images this operator runs (${allowed.join(", ")}); use one of them, or ask the operator's administrator to add it to ${ALLOWED_IMAGES_ENV}`;
}

/** Why the environment variable `name`, read from a ConfigMap or Secret, is refused, naming the field and the fix. */
export function valueFromRefusal(name: string): string {
  return `spec.env ${name} reads a ConfigMap or Secret (valueFrom), which this operator does not allow; pass the value itself, or ask the operator's administrator to set ${ALLOW_VALUE_FROM_ENV}=true`;
}

/** Whether `image` is one of `allowed`'s repositories (or under one of its `prefix/*` entries). */
export function imageAllowed(image: string, allowed: readonly string[]): boolean {
  const repository = canonicalRepository(image);
  return allowed.some((entry) => {
    if (entry === "*") return true;
    if (entry.endsWith("/*")) return repository.startsWith(`${canonicalPrefix(entry.slice(0, -2))}/`);
    return repository === canonicalRepository(entry);
  });
}

/** The names of Docker Hub's registry in image references. */
export const DOCKER_HUB: ReadonlySet<string> = new Set([
  "docker.io",
  "index.docker.io",
  "registry-1.docker.io",
]);

/**
 * The canonical form of the prefix of a `prefix/*` entry, under which canonical repositories are
 * matched: `artilleryio` → `docker.io/artilleryio` (never `library/`), `docker.io` → `docker.io`,
 * `registry.example.com/perf` as is.
 */
export function canonicalPrefix(prefix: string): string {
  if (DOCKER_HUB.has(prefix)) return "docker.io";
  return canonicalRepository(`${prefix}/_`).slice(0, -"/_".length);
}

/**
 * An image's repository without tag or digest, with Docker Hub's implicit parts made explicit:
 * `artilleryio/artillery:2.0.23` → `docker.io/artilleryio/artillery`, `nginx` →
 * `docker.io/library/nginx`, `registry:5000/x@sha256:…` → `registry:5000/x`.
 */
export function canonicalRepository(image: string): string {
  const withoutDigest = image.split("@")[0] ?? "";
  const lastSlash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.indexOf(":", lastSlash + 1);
  const repository = colon === -1 ? withoutDigest : withoutDigest.slice(0, colon);
  const [first = "", ...rest] = repository.split("/");
  const hasRegistry =
    rest.length > 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  if (hasRegistry && !DOCKER_HUB.has(first)) return repository;
  const path = hasRegistry ? rest : [first, ...rest];
  return `docker.io/${path.length === 1 ? "library/" : ""}${path.join("/")}`;
}
