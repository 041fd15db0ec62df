import { dirname } from "node:path";
import { type ZodType, z } from "zod";
import { KubeconfigError } from "./errors.ts";
import type { NamedEntry } from "./kubeconfig-files.ts";

/** Where a kubeconfig value sits, for error messages and for resolving relative paths. */
export interface Origin {
  /** The kubeconfig file. */
  readonly file: string;
  /** That file's directory. */
  readonly dir: string;
  /** The entry's path in the file, e.g. `users["bob"].user`. */
  readonly where: string;
}

/** Where the kubeconfig format is documented, for messages about malformed files. */
export const FORMAT_REFERENCE = "the format: https://kubernetes.io/docs/reference/config-api/kubeconfig.v1/";

/** A {@link KubeconfigError} about `field` of the entry at `origin`. */
export function fieldError(origin: Origin, field: string, detail: string, cause?: unknown): KubeconfigError {
  return new KubeconfigError(origin.file, `${origin.where}.${field} ${detail}`, { cause });
}

/** A string field; `null` and `""` count as unset, as they do for client-go. */
const text = z
  .string()
  .nullish()
  .transform((v) => v || undefined);
const list = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);

/** The fields of a `clusters[].cluster` entry that kubeloop reads. */
export const clusterSchema = z.object({
  server: text,
  "certificate-authority": text,
  "certificate-authority-data": text,
  "insecure-skip-tls-verify": z.boolean().nullish(),
  "tls-server-name": text,
  "proxy-url": text,
  extensions: z.array(z.object({ name: z.string(), extension: z.unknown() })).nullish(),
});

/** The fields of a `users[].user.exec` entry. */
export const execSchema = z.object({
  apiVersion: z.string(),
  command: z.string().min(1),
  args: list,
  env: z
    .array(z.object({ name: z.string(), value: z.string() }))
    .nullish()
    .transform((v) => v ?? []),
  provideClusterInfo: z.boolean().nullish(),
  interactiveMode: z.enum(["Never", "IfAvailable", "Always"]).nullish(),
  installHint: text,
});

/** The fields of a `users[].user` entry that kubeloop reads. */
export const userSchema = z.object({
  "client-certificate": text,
  "client-certificate-data": text,
  "client-key": text,
  "client-key-data": text,
  token: text,
  tokenFile: text,
  username: text,
  password: text,
  as: text,
  "as-uid": text,
  "as-groups": list,
  "as-user-extra": z.record(z.string(), z.array(z.string())).nullish(),
  "auth-provider": z.object({ name: z.string() }).nullish(),
  exec: execSchema.nullish(),
});

/** The fields of a `contexts[].context` entry. */
export const contextSchema = z.object({ cluster: text, user: text, namespace: text });

/** Formats a zod issue as `a.b[0].c: expected string, received number`, after `prefix`. */
export function describeIssue(issue: z.core.$ZodIssue | undefined, prefix: string): string {
  let path = prefix;
  for (const key of issue?.path ?? []) {
    path += typeof key === "number" ? `[${key}]` : path === "" ? String(key) : `.${String(key)}`;
  }
  const message = (issue?.message ?? "is invalid").replace(/^Invalid input: /, "");
  return `${path}: ${message}`;
}

/** Validates one named entry against `schema`, naming the file and field on failure. */
export function parseEntry<T extends ZodType>(
  schema: T,
  entry: NamedEntry,
  section: "clusters" | "users" | "contexts",
): { value: z.output<T>; origin: Origin } {
  const where = `${section}[${JSON.stringify(entry.name)}].${section.slice(0, -1)}`;
  const origin = { file: entry.file, dir: dirname(entry.file), where };
  const result = schema.safeParse(entry.body);
  if (!result.success) {
    throw new KubeconfigError(
      entry.file,
      `${describeIssue(result.error.issues[0], where)} (${FORMAT_REFERENCE})`,
    );
  }
  return { value: result.data, origin };
}
