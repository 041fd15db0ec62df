/**
 * What the tests need from the machine beyond `npm ci`, checked by `test/run.ts` before any test
 * runs: Go (or `KUBELOOP_ASSETS`) for the end-to-end tier's control plane, nginx (and root on
 * Linux) for the myproxy tests, a Chromium-family browser for the live page's test. Each
 * prerequisite names the test files that need it, so a filtered run asks only for what its files
 * need, and the browser's can be left out with `--without-browser` (the run then says so).
 *
 * The lookups here are the ones the tests use (`browserExecutable` in the live page's test,
 * `nginxExecutable` in the myproxy tests), so the check and the tests agree.
 */
import { accessSync, constants, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { checkToolchain } from "../src/cluster/assets.ts";
import { ToolchainError } from "../src/cluster/errors.ts";
import { requiredGo } from "../src/cluster/versions.ts";

/** Where the prerequisites are looked for: the environment, the platform and whether we are root. */
export interface Host {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  root: boolean;
}

/** This process's host. */
const thisHost: Host = {
  env: process.env,
  platform: process.platform,
  root: process.getuid?.() === 0,
};

/** Whether `path` is an executable file. */
function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The executable `name` in a directory of `env.PATH`, the first found, as a shell would run it. */
function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? "").split(delimiter).filter(Boolean);
  return dirs.map((dir) => join(dir, name)).find(isExecutable);
}

/** A lookup's answer: where the thing is, or why it was not found. */
export type Found = { path: string } | { missing: string };

/** Why a lookup found nothing, or nothing when it found it. */
function problemOf(found: Found): string | undefined {
  return "missing" in found ? found.missing : undefined;
}

/** nginx, on PATH (Debian puts it in /usr/sbin, on root's PATH: the tests that run it need root). */
export function findNginx(host: Host = thisHost): Found {
  const path = findOnPath("nginx", host.env);
  return path ? { path } : { missing: "no nginx on PATH" };
}

/** The browser commands looked for on PATH, in this order. */
const browserCommands = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** The executables of the macOS application bundles looked for, in `/Applications` then `~/Applications`. */
const browserBundles = [
  "Google Chrome.app/Contents/MacOS/Google Chrome",
  "Chromium.app/Contents/MacOS/Chromium",
];

/**
 * A Chromium-family browser, where it is installed: `KUBELOOP_CHROMIUM` when set (and then only
 * there), else the first of {@link browserCommands} on PATH, else on macOS Google Chrome's or
 * Chromium's application bundle in `/Applications` or `~/Applications`.
 */
export function findBrowser(host: Host = thisHost): Found {
  const chosen = host.env.KUBELOOP_CHROMIUM;
  if (chosen) {
    return isExecutable(chosen)
      ? { path: chosen }
      : { missing: `KUBELOOP_CHROMIUM=${chosen} is not an executable file` };
  }
  const onPath = browserCommands.map((name) => findOnPath(name, host.env)).find(Boolean);
  if (onPath) return { path: onPath };
  const applications = ["/Applications", join(host.env.HOME ?? homedir(), "Applications")];
  const bundle =
    host.platform === "darwin"
      ? applications.flatMap((dir) => browserBundles.map((b) => join(dir, b))).find(isExecutable)
      : undefined;
  if (bundle) return { path: bundle };
  const bundles = host.platform === "darwin" ? ", no Chrome or Chromium application bundle is installed" : "";
  return {
    missing: `none of ${browserCommands.join(", ")} is on PATH${bundles}, and KUBELOOP_CHROMIUM is not set`,
  };
}

/** Something some tests need from the machine, which files, and how to install it. */
export interface Prerequisite {
  /** What the message calls it. */
  name: string;
  /** Why, and for which tests. */
  why: string;
  /** Whether the test file at this path (relative to the repository, `/`-separated) needs it. */
  neededBy: RegExp;
  /** Commands or steps that provide it, one a line (`Debian/Ubuntu: ...`, `macOS: ...`). */
  install: string[];
  /** The switch that leaves the files needing it out of the run, if there is one. */
  leaveOutWith?: string;
  /** Nothing when the host has it, else what is wrong. */
  check(host: Host): Promise<string | undefined>;
}

/** Go (or `KUBELOOP_ASSETS`): `src/cluster`'s own check, which the control plane's start runs too. */
const controlPlane: Prerequisite = {
  name: `Go >= ${requiredGo} (or KUBELOOP_ASSETS=<dir> holding the control plane's binaries)`,
  why: "the end-to-end tests run on the local control plane, built from Go modules once per machine (about 10 minutes)",
  neededBy: /(^|\/)test\/e2e\//,
  install: [
    `Debian: curl -fsSL https://go.dev/dl/go${requiredGo}.linux-amd64.tar.gz | sudo tar -C /usr/local -xz`,
    "        then put /usr/local/go/bin on PATH (Debian's golang package is older; on arm64: linux-arm64)",
    "Ubuntu: sudo snap install go --classic",
    "macOS: brew install go",
    "or set KUBELOOP_ASSETS=<dir> holding kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd and kwok",
  ],
  async check(host) {
    try {
      await checkToolchain(host.env);
      return undefined;
    } catch (err) {
      if (err instanceof ToolchainError) return err.detail.replace(/\.$/, "");
      throw err;
    }
  },
};

/** Files of the myproxy tests, which run the real nginx on the configurations the operator writes. */
const myproxyTests = /^operators\/myproxy\/test\//;

/** nginx, for `nginx -t` and serving in the myproxy tests (`operators/myproxy/test/nginx.ts`). */
const nginx: Prerequisite = {
  name: "nginx",
  why: "the myproxy tests check every nginx configuration the operator writes with the real nginx",
  neededBy: myproxyTests,
  install: ["Debian/Ubuntu: sudo apt-get install nginx", "macOS: brew install nginx"],
  check: async (host) => problemOf(findNginx(host)),
};

/** Root on Linux: the myproxy tests run nginx in a mount namespace of its own (`unshare --mount`). */
const linuxRoot: Prerequisite = {
  name: "root on Linux",
  why: "the myproxy tests run nginx in a mount namespace of its own (unshare --mount), whose /etc/hosts maps the Services' cluster names to local stand-ins",
  neededBy: myproxyTests,
  install: [
    "Linux: run the tests as root (e.g. sudo -E env PATH=$PATH npm test), or in a root container",
    "macOS: run them in a Linux virtual machine or container",
  ],
  check: async (host) =>
    host.platform !== "linux" ? `this is ${host.platform}` : host.root ? undefined : "not running as root",
};

/** A Chromium-family browser, for the live page's test, found by {@link findBrowser}. */
const browser: Prerequisite = {
  name: "a Chromium-family browser (Chromium or Google Chrome)",
  why: "the live page's tests (test/e2e/demo/live-page.test.ts, test/e2e/multicluster/fleet-live-page.test.ts) load pages in it",
  neededBy: /(^|\/)test\/e2e\/(demo\/live-page|multicluster\/fleet-live-page)\.test\.ts$/,
  install: [
    "Debian: sudo apt-get install chromium",
    "Ubuntu: sudo snap install chromium",
    "macOS: brew install --cask google-chrome",
    "or point KUBELOOP_CHROMIUM at one, or leave that test out: npm test -- --without-browser",
  ],
  leaveOutWith: "--without-browser",
  check: async (host) => problemOf(findBrowser(host)),
};

/** Every prerequisite, in the order the message lists them. */
export const prerequisites: readonly Prerequisite[] = [controlPlane, nginx, linuxRoot, browser];

/** A prerequisite the host lacks, and what is wrong. */
export interface Missing {
  prerequisite: Prerequisite;
  problem: string;
}

/** Each missing prerequisite, why it is needed and how to install it, as lines of a message. */
function describeMissing(missing: readonly Missing[]): string {
  return missing
    .map(({ prerequisite: p, problem }) =>
      [
        `  - ${p.name}: ${problem}.`,
        `    Needed because ${p.why}.`,
        ...p.install.map((line) => `      ${line}`),
      ].join("\n"),
    )
    .join("\n");
}

/** The message of a run its check stopped: every missing prerequisite, why, and how to install it. */
export function stoppedMessage(missing: readonly Missing[]): string {
  return [
    "The tests cannot run: this machine lacks what some of them need (checked before running any):",
    "",
    describeMissing(missing),
    "",
    "Install what is missing and run again; README.md (Requirements) lists it all.",
  ].join("\n");
}

/** The path a lookup found, or an error naming the prerequisite and how to install it. */
function pathOrThrow(prerequisite: Prerequisite, found: Found): string {
  if ("path" in found) return found.path;
  throw new Error(`missing:\n${describeMissing([{ prerequisite, problem: found.missing }])}`);
}

/** The browser {@link findBrowser} finds, or an error naming the fix (for a test file run without `test/run.ts`'s check). */
export function browserExecutable(host: Host = thisHost): string {
  return pathOrThrow(browser, findBrowser(host));
}

/** The nginx {@link findNginx} finds, or an error naming the fix (for a test file run without `test/run.ts`'s check). */
export function nginxExecutable(host: Host = thisHost): string {
  return pathOrThrow(nginx, findNginx(host));
}

/** A test run's plan: the files to run, those left out by a switch (and which), and what is missing. */
export interface Plan {
  files: string[];
  leftOut: { file: string; by: string; prerequisite: Prerequisite }[];
  missing: Missing[];
}

/**
 * Plans a run of `files` (paths relative to the repository): leaves out the files of a
 * prerequisite whose switch is among `switches`, then checks the prerequisites the remaining files
 * need.
 */
export async function preflight(files: string[], switches: string[], host: Host = thisHost): Promise<Plan> {
  const leftOut = prerequisites
    .filter((p) => p.leaveOutWith && switches.includes(p.leaveOutWith))
    .flatMap((p) =>
      files
        .filter((f) => p.neededBy.test(f))
        .map((file) => ({ file, by: p.leaveOutWith ?? "", prerequisite: p })),
    );
  const kept = files.filter((f) => !leftOut.some((l) => l.file === f));
  const needed = prerequisites.filter((p) => kept.some((f) => p.neededBy.test(f)));
  const problems = await Promise.all(needed.map((p) => p.check(host)));
  const missing = needed.flatMap((prerequisite, i) => {
    const problem = problems[i];
    return problem === undefined ? [] : [{ prerequisite, problem }];
  });
  return { files: kept, leftOut, missing };
}

/** Lines saying which files a run leaves out, and why. */
export function leftOutLines(plan: Plan): string[] {
  return plan.leftOut.map(
    ({ file, by, prerequisite }) => `left out by ${by}: ${file}, which needs ${prerequisite.name}`,
  );
}
