/**
 * What the `kubeloop describe` end-to-end tests share: the command run as a user runs it (piped,
 * so plain text), the library's description for polling until a tree has settled, and snapshots
 * of the plain output with the volatile parts normalised. Set KUBELOOP_UPDATE_GOLDEN=1 to rewrite
 * the snapshots from the current output.
 */
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Deployment, type PodSpec } from "../../../src/api/index.ts";
import { type Description, describeObject } from "../../../src/describe/index.ts";
import { assertGolden } from "../../golden.ts";
import { eventually, kubeconfigPath, testClient } from "../support.ts";

const run = promisify(execFile);
const checkout = resolve(fileURLToPath(import.meta.url), "../../../..");

/** Runs `kubeloop describe <args>` from the sources against the run's cluster, its output piped. */
export async function kubeloopDescribe(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const cli = join(checkout, "src", "cli", "main.ts");
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  const argv = ["--conditions=kubeloop-source", "--import", "tsx", cli, "describe", ...args];
  try {
    const { stdout, stderr } = await run(process.execPath, argv, {
      cwd: checkout,
      env: { ...inherited, KUBECONFIG: kubeconfigPath(), ...env },
      maxBuffer: 64 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** Creates the Deployment `name` of `replicas` Pods labelled `app: <name>`; `pod` adds to their spec. */
export async function createDeployment(
  namespace: string,
  name: string,
  replicas: number,
  pod: Partial<PodSpec> = {},
): Promise<void> {
  const labels = { app: name };
  await (await testClient()).create(Deployment, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "web", image: "registry.example/web:1" }], ...pod },
      },
    },
  });
}

/** The description of `target` in `namespace` once `settled` holds for it. */
export async function settledDescription(
  target: string,
  namespace: string,
  settled: (d: Description) => boolean,
  what: string,
): Promise<Description> {
  const client = await testClient();
  return eventually(
    async () => {
      const description = await describeObject(client, target, { namespace });
      return settled(description) && description;
    },
    { what, timeoutMs: 60_000 },
  );
}

/** Every object of the tree, the root first. */
export function treeOf(description: Description) {
  const all = [description.object];
  for (let i = 0; i < all.length; i++) all.push(...(all[i]?.children ?? []));
  return all;
}

/** True when every object of the tree is Current. */
export function allCurrent(description: Description): boolean {
  return treeOf(description).every((o) => o.kstatus.status === "Current");
}

// Generated names use the apiserver's alphabet, which has no vowels: a pod-template hash of 6 to
// 10 characters, then a pod's suffix of 5; words of the test's own names never match.
const alphabet = "bcdfghjklmnpqrstvwxz2456789";
const templateHash = new RegExp(`-[${alphabet}]{6,10}\\b`, "g");
const podSuffix = new RegExp(`-[${alphabet}]{5}\\b`, "g");

/**
 * The plain output with what changes between runs replaced: the namespace, times, generated
 * names, the kwok node a pod was scheduled to, and the padding between columns (it follows the
 * names' lengths; indentation stays). The lines of the Conditions and Events sections are sorted:
 * with the times gone their order tells nothing, and things of one second come in any order (the
 * unit tests check the time order).
 */
export function normalise(text: string, namespace: string): string {
  const replaced = text
    .replaceAll(namespace, "<ns>")
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, "<time>")
    .replace(templateHash, "-<hash>")
    .replace(podSuffix, "-<id>")
    .replace(/kwok-node-\d+/g, "kwok-node-<n>")
    .replace(/(\S) {2,}/g, "$1  ");
  return `${sortTimedLines(replaced.trimEnd())}\n`;
}

function sortTimedLines(text: string): string {
  const sections = text.split("\n\n");
  return sections
    .map((section) => {
      const [title = "", ...lines] = section.split("\n");
      const timed = title === "Conditions:" || title.startsWith("Events");
      return timed ? [title, ...lines.sort()].join("\n") : section;
    })
    .join("\n\n");
}

/**
 * Asserts that the plain output matches `snapshots/<name>.txt` once normalised. With `withoutPath`
 * naming the root (`MyProxy/edge`), what its operator recorded on the way to now is left out — the
 * timeline's earlier transitions, the change each condition made to its current status, and the
 * root's own events — since which of them happen races with the pods starting; the tests assert
 * those apart.
 */
export function assertSnapshot(name: string, text: string, namespace: string, withoutPath?: string): void {
  const normalised = normalise(text, namespace);
  const kept = withoutPath ? withoutHistory(normalised, withoutPath) : normalised;
  assertGolden(new URL(`./snapshots/${name}.txt`, import.meta.url), kept);
}

function withoutHistory(text: string, root: string): string {
  return text
    .split("\n\n")
    .map((section) => {
      const [title = "", ...lines] = section.split("\n");
      if (title === "Conditions:") {
        const now = lines.filter((l) => l.includes("(now)")).map((l) => l.replace(/\S+ → \S+ {2}/, ""));
        return [title, ...now].join("\n");
      }
      if (title.startsWith("Events"))
        return [title, ...lines.filter((l) => !l.includes(`  ${root}  `))].join("\n");
      return section;
    })
    .join("\n\n");
}
