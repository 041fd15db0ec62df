/**
 * The demo's live page in a real headless browser (Chromium or Google Chrome where it is installed,
 * see `findBrowser`; driven by playwright-core):
 * `npm start` runs both reference operators in one manager on a cluster of its own; once its
 * scenario has run (which tampers with MyProxy's generated ConfigMap), the page it printed the
 * address of loads without console errors, shows every controller, and lists the reconcile the
 * ConfigMap edit triggered with that trigger, beside the drift repair naming who edited it. A
 * screenshot is written under `.scratch/live-page/` (the path is in the test's log).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { consoleErrors, openBrowser, shown } from "../fixtures/browser.ts";
import { eventually } from "../support.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
/** Where the screenshots go: the repository's ignored scratch folder. */
const outputDir = join(root, ".scratch/live-page");

/** The demo, running until the test ends (Ctrl-C then: it stops the operators and its cluster). */
function startDemo(t: TestContext): { output: () => string; demo: ChildProcess } {
  const demo = spawn(process.execPath, ["--import", "tsx", join(root, "demo/main.ts")], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  demo.stdout.on("data", (chunk) => (output += chunk));
  demo.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => demo.once("exit", resolve));
  t.after(async () => {
    demo.kill("SIGINT");
    await eventually(() => demo.exitCode !== null || demo.signalCode !== null, {
      what: "the demo to stop its operators and cluster",
      timeoutMs: 60_000,
    }).catch(() => demo.kill("SIGKILL"));
    await exited;
  });
  return { output: () => output, demo };
}

test("the demo's live page shows its controllers and the reconcile its ConfigMap tampering triggered", async (t) => {
  const { output, demo } = startDemo(t);
  const ran = await eventually(
    () => {
      if (demo.exitCode !== null) throw new Error(`the demo exited with ${demo.exitCode}:\n${output()}`);
      return output().includes("Press Ctrl-C to stop everything.") && output();
    },
    { what: "the demo's scenario to run to its end", timeoutMs: 300_000, intervalMs: 500 },
  );
  const url = ran.match(/live page: (http:\/\/127\.0\.0\.1:\d+\/debug\/kubeloop)/)?.[1];
  if (!url) throw new Error(`the demo printed no live page address:\n${ran}`);
  if (!ran.includes("Every expectation held.")) throw new Error(`the demo's scenario failed:\n${ran}`);
  t.diagnostic(`live page: ${url}`);

  const page = await (await openBrowser(t)).newPage();
  const errors = consoleErrors(page);
  await page.goto(url);
  for (const name of ["loadtest", "myproxy", "proxyroute"]) {
    await shown(page, `[data-controller="${name}"]`, `controller ${name} on the page`);
  }
  const row = `[data-controller="myproxy"] tr[data-key="demo/edge"]:has(td.trigger:text("owned:ConfigMap:update"))`;
  await shown(page, row, "a reconcile of MyProxy demo/edge triggered by its ConfigMap's update");
  await shown(
    page,
    `td.culprit:text-is("demo-tamperer")`,
    "the drift repair naming who edited the ConfigMap",
  );
  await shown(page, "#status.quiet", "the page updating");
  const points = () => page.locator(`[data-controller] svg.spark polyline`).first().getAttribute("points");
  await eventually(async () => ((await points()) ?? "").split(" ").length >= 5, {
    what: "the rate sparkline drawn from 5 polls",
  });

  mkdirSync(outputDir, { recursive: true });
  const screenshot = join(outputDir, "demo.png");
  await page.screenshot({ path: screenshot, fullPage: true });
  t.diagnostic(`screenshot: ${screenshot}`);
  if (errors.length > 0) throw new Error(`the page logged console errors:\n${errors.join("\n")}`);
});
