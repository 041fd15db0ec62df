import { readFile } from "node:fs/promises";
import { delimiter, join, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { KubeconfigError, KubeconfigNotFoundError } from "./errors.ts";
import { fileExists } from "./fs.ts";
import { describeIssue, FORMAT_REFERENCE } from "./kubeconfig-entries.ts";
import type { Env } from "./types.ts";

/** A named cluster, user or context, with the file that defined it. */
export interface NamedEntry {
  readonly name: string;
  /** The object under `cluster:`, `user:` or `context:` (empty when absent). */
  readonly body: Readonly<Record<string, unknown>>;
  /** The kubeconfig file that defined this entry; relative paths in it resolve against its directory. */
  readonly file: string;
}

/** Several kubeconfig files merged the way client-go merges them. */
export interface MergedKubeconfig {
  /** The files that were read, in order. */
  readonly files: readonly string[];
  /** The first `current-context` set, and the file that set it. */
  readonly currentContext?: { readonly name: string; readonly file: string };
  readonly clusters: ReadonlyMap<string, NamedEntry>;
  readonly users: ReadonlyMap<string, NamedEntry>;
  readonly contexts: ReadonlyMap<string, NamedEntry>;
}

/** Where to look for kubeconfig files. */
export interface LocateOptions {
  /** Explicit file path(s); each must exist. Overrides `KUBECONFIG`. */
  kubeconfig?: string | readonly string[];
  env: Env;
  homeDir: string;
}

const sections = { clusters: "cluster", users: "user", contexts: "context" } as const;
type Section = keyof typeof sections;

const body = z.record(z.string(), z.unknown()).nullish();
const fileSchema = z
  .object({
    "current-context": z.string().nullish(),
    clusters: z.array(z.object({ name: z.string(), cluster: body })).nullish(),
    users: z.array(z.object({ name: z.string(), user: body })).nullish(),
    contexts: z.array(z.object({ name: z.string(), context: body })).nullish(),
  })
  .nullish();

/**
 * The kubeconfig files to read, in merge order: the explicit paths (all must exist), else the
 * existing files of `KUBECONFIG` (at least one must exist), else `~/.kube/config`.
 */
export async function locateKubeconfigs(options: LocateOptions): Promise<string[]> {
  if (options.kubeconfig !== undefined) {
    const paths = typeof options.kubeconfig === "string" ? [options.kubeconfig] : [...options.kubeconfig];
    const resolved = unique(paths.map((p) => resolve(p)));
    for (const path of resolved) {
      if (!(await fileExists(path))) throw new KubeconfigNotFoundError([path], "option");
    }
    return resolved;
  }
  const fromEnv = options.env.KUBECONFIG;
  if (fromEnv) {
    const listed = unique(
      fromEnv
        .split(delimiter)
        .filter((p) => p !== "")
        .map((p) => resolve(p)),
    );
    const found: string[] = [];
    for (const path of listed) if (await fileExists(path)) found.push(path);
    if (found.length === 0) throw new KubeconfigNotFoundError(listed, "KUBECONFIG");
    return found;
  }
  const fallback = join(options.homeDir, ".kube", "config");
  if (!(await fileExists(fallback))) throw new KubeconfigNotFoundError([fallback], "default");
  return [fallback];
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

/** Reads and merges kubeconfig files: for each name the first file wins, and so does the first `current-context`. */
export async function readKubeconfigs(files: readonly string[]): Promise<MergedKubeconfig> {
  let currentContext: MergedKubeconfig["currentContext"];
  const merged: Record<Section, Map<string, NamedEntry>> = {
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
  };
  for (const file of files) {
    const doc = await readOne(file);
    const name = doc?.["current-context"];
    if (name && !currentContext) currentContext = { name, file };
    for (const section of Object.keys(sections) as Section[]) {
      for (const entry of entries(file, section, doc)) {
        if (!merged[section].has(entry.name)) merged[section].set(entry.name, entry);
      }
    }
  }
  return { files, currentContext, ...merged };
}

async function readOne(file: string): Promise<z.infer<typeof fileSchema>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new KubeconfigError(file, `cannot be read (${(err as Error).message})`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new KubeconfigError(file, `is not valid YAML: ${(err as Error).message}`, { cause: err });
  }
  const result = fileSchema.safeParse(raw);
  if (!result.success) {
    throw new KubeconfigError(file, `${describeIssue(result.error.issues[0], "")} (${FORMAT_REFERENCE})`);
  }
  return result.data;
}

function entries(file: string, section: Section, doc: z.infer<typeof fileSchema>): NamedEntry[] {
  const key = sections[section];
  const seen = new Set<string>();
  return (doc?.[section] ?? []).map((item) => {
    if (seen.has(item.name)) {
      throw new KubeconfigError(
        file,
        `${section}: the name "${item.name}" appears twice; names must be unique`,
      );
    }
    seen.add(item.name);
    const inner = (item as Record<string, unknown>)[key] as Record<string, unknown> | null | undefined;
    return { name: item.name, body: inner ?? {}, file };
  });
}
