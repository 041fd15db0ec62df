/**
 * The manager's live page in a real headless browser (Debian's chromium, driven by
 * playwright-core): it loads without console errors, shows the running operator's controllers,
 * and a reconcile triggered by editing the MyProxy's ConfigMap appears with that trigger (the
 * owned ConfigMap's watch event), beside the drift repair naming who edited it. A screenshot is
 * written under `.scratch/live-page/` (the path is in the test's log).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { before, type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { MyProxy } from "../../api.ts";
import {
  createProxy,
  eventually,
  installCrds,
  kubectl,
  startOperator,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

/** Where the screenshots go: the repository's ignored scratch folder. */
const outputDir = join(dirname(fileURLToPath(import.meta.url)), "../../../../.scratch/live-page");

/** Debian's chromium, headless, with a fresh profile; closed (and the profile removed) before the manager stops. */
async function openBrowser(t: TestContext): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), "kubeloop-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1200, height: 760 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  t.after(async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return browser;
}

/** Every console error and uncaught exception of `page`. */
function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  return errors;
}

/** Waits until `selector` matches an element of `page`. */
function shown(page: Page, selector: string, what: string): Promise<unknown> {
  return eventually(async () => (await page.locator(selector).count()) > 0, { what });
}

test("the live page shows the controllers and a reconcile triggered by a ConfigMap edit, with that trigger", async (t) => {
  const ns = await testNamespace(t);
  const manager = await startOperator(t, ns, { webhooks: false, livePage: true });
  await createProxy(ns, "edge");
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
  // Registered after the operator, so closed before it stops: no poll meets a closed port.
  const page = await (await openBrowser(t)).newPage();
  const errors = consoleErrors(page);

  const url = `http://127.0.0.1:${manager.ports.health}/debug/kubeloop`;
  t.diagnostic(`live page: ${url}`);
  await page.goto(url);
  for (const { name } of manager.controllers) {
    await shown(page, `[data-controller="${name}"]`, `controller ${name} on the page`);
  }
  await shown(page, `[data-controller] tr[data-key="${ns}/edge"]`, "the MyProxy's reconciles listed");

  const edit = JSON.stringify({ data: { "default.conf": "server { listen 80; return 500; }\n" } });
  const patch = ["-n", ns, "patch", "configmap", "edge-nginx", "--type=merge", "-p", edit];
  await kubectl([...patch, "--field-manager=live-page-test"]);
  const row = `tr[data-key="${ns}/edge"]:has(td.trigger:text("owned:ConfigMap:update"))`;
  await shown(page, row, "a reconcile of the MyProxy triggered by its ConfigMap's update");
  await shown(
    page,
    `td.culprit:text-is("live-page-test")`,
    "the drift repair naming who edited the ConfigMap",
  );
  await shown(page, "#status.quiet", "the page updating");
  const points = () => page.locator(`[data-controller] svg.spark polyline`).first().getAttribute("points");
  await eventually(async () => ((await points()) ?? "").split(" ").length >= 5, {
    what: "the rate sparkline drawn from 5 polls",
  });

  mkdirSync(outputDir, { recursive: true });
  const screenshot = join(outputDir, `${ns}.png`);
  await page.screenshot({ path: screenshot, fullPage: true });
  t.diagnostic(`screenshot: ${screenshot}`);
  if (errors.length > 0) throw new Error(`the page logged console errors:\n${errors.join("\n")}`);
});
