/**
 * Admission webhook servers side by side: kubeloop's `WebhookServer` and controller-runtime's
 * `webhook.Server` serving the same validating check on ConfigMaps (bench/webhooks/check.ts: a
 * `data.port` that is no port number is denied with a field cause), each as its own process over
 * HTTPS on 127.0.0.1 with a certificate from kubeloop's `writeSelfManagedCertificates`.
 *
 * - kubeloop runs as deployed: the server bundled by `kubeloop build` (bundleOperator), run with
 *   the generated Dockerfile's node flags on its Node.js LTS (`--node current`: the runner's Node).
 *   controller-runtime (the version bench/peers/controller-runtime pins) is
 *   bench/peers/controller-runtime/webhook/main.go, built once into the kubeloop cache.
 * - The load (bench/webhooks/load.ts): AdmissionReview v1 POSTs as the apiserver sends them for
 *   `kubectl apply` of a ConfigMap, CREATE and UPDATE in turn, one in four denied, `--concurrency`
 *   in flight over as many keep-alive HTTP/1.1 connections, for `--warmup` seconds and then a
 *   measured window of `--seconds`. Every answer is checked (uid echoed, allowed or denied as
 *   expected, a denial a 422 blaming `data.port`); a round with a wrong answer does not count.
 * - On 2 cores or more the server is pinned to the last core and this process (the load) to the
 *   others (`taskset`), so each server has one core of its own and the load never takes it;
 *   `--unpinned` lets them share.
 * - The contenders alternate, `--rounds` each (the first flips every round); the report has the
 *   medians and kubeloop ÷ controller-runtime: requests/s, p50 and p99 latency, the server's CPU
 *   per request and cores busy, its peak RSS (VmHWM).
 *
 * Writes bench/results/webhooks.md and bench/results/webhooks.json (git-ignored).
 *
 * Usage: `npx tsx bench/webhooks.ts [--rounds 3] [--seconds 10] [--warmup 3] [--concurrency 200]
 * [--node lts|current] [--unpinned]`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../src/cluster/ports.ts";
import { OPERATOR_NODE_FLAGS } from "../src/generate/index.ts";
import { bundleOperator } from "../src/operator/index.ts";
import { CA_FILE, writeSelfManagedCertificates } from "../src/webhook/index.ts";
import { builtDir } from "./peers/harness/build.ts";
import { goModVersion, kubeloopRevision } from "./peers/harness/machine.ts";
import { repoRoot, resultsDir } from "./peers/harness/paths.ts";
import { BenchProcess } from "./peers/harness/process.ts";
import { ensureGoBinary, goVersion, nodeForContenders, nodeVersion } from "./peers/harness/setup.ts";
import { loadLine, machineLine, writeResult } from "./support/report.ts";
import { portCheck } from "./webhooks/check.ts";
import { runLoad } from "./webhooks/load.ts";
import { type Contender, markdown, type Round, roundOf } from "./webhooks/report.ts";
import { reviewTemplates } from "./webhooks/reviews.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    concurrency: { type: "string", default: "200" },
    node: { type: "string", default: "lts" },
    unpinned: { type: "boolean", default: false },
  },
});
const settings = {
  rounds: Number(values.rounds),
  durationMs: Number(values.seconds) * 1000,
  warmupMs: Number(values.warmup) * 1000,
  concurrency: Number(values.concurrency),
};
const log = (line: string) => console.log(line);
const logDir = mkdtempSync(join(tmpdir(), "kubeloop-webhook-bench-"));
log(`logs: ${logDir}`);

const { outfile: entry } = await bundleOperator({
  cwd: repoRoot,
  entry: "bench/webhooks/kubeloop-server.ts",
  outfile: join(builtDir, "webhook-kubeloop.mjs"),
});
const goBinary = ensureGoBinary("webhook", "webhook", log);
const node = nodeForContenders(values.node, log);
const certDir = join(logDir, "certs");
await writeSelfManagedCertificates(certDir, "webhook-bench", ["127.0.0.1"]);
const ca = readFileSync(join(certDir, CA_FILE), "utf8");
const templates = reviewTemplates();

/** Pins this process to every core but the last and returns the `taskset` prefix of a server. */
function pinning(): string[] {
  const cores = cpus().length;
  if (values.unpinned || cores < 2) return [];
  execFileSync("taskset", ["-a", "-p", "-c", `0-${cores - 2}`, String(process.pid)], { stdio: "ignore" });
  return ["taskset", "-c", String(cores - 1)];
}
const pin = pinning();

function commandOf(contender: Contender): { cmd: string; args: string[] } {
  const [cmd, ...args] = [
    ...pin,
    ...(contender === "kubeloop" ? [node, ...OPERATOR_NODE_FLAGS, entry] : [goBinary]),
  ];
  return { cmd: cmd as string, args };
}

async function runRound(contender: Contender, round: number): Promise<Round> {
  const port = await freePort();
  const env = { BENCH_PORT: String(port), BENCH_CERT_DIR: certDir, BENCH_PATH: portCheck.path };
  const logFile = join(logDir, `${contender}-${round}.log`);
  const server = new BenchProcess(contender, commandOf(contender), { env, logFile });
  try {
    await server.marker("ready", 60_000);
    const load = await runLoad({
      origin: `https://127.0.0.1:${port}`,
      path: portCheck.path,
      ca,
      ...settings,
      templates,
      serverCpuSeconds: () => server.cpuSeconds(),
    });
    return roundOf(contender, round, load, server.peakRssMiB());
  } finally {
    await server.stop();
  }
}

const rounds: Round[] = [];
for (let round = 1; round <= settings.rounds; round++) {
  const order: Contender[] =
    round % 2 ? ["kubeloop", "controller-runtime"] : ["controller-runtime", "kubeloop"];
  for (const contender of order) {
    const r = await runRound(contender, round);
    rounds.push(r);
    log(
      `round ${round} ${contender}: ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ` +
        `CPU ${r.cpuSeconds.toFixed(2)} s, peak RSS ${r.peakRssMiB.toFixed(0)} MiB, wrong ${r.wrong}/${r.sent}`,
    );
    for (const example of r.wrongExamples) log(`  wrong: ${example}`);
  }
}

const args = process.argv.slice(2).join(" ");
const placement = pin.length
  ? `each server pinned to core ${pin[2]}, the load generator (this process, on the runner's Node ${process.version}) to the others`
  : `servers and the load generator (on the runner's Node ${process.version}) sharing every core`;
const report = markdown(rounds, {
  date: new Date().toISOString().slice(0, 10),
  command: `npx tsx bench/webhooks.ts${args ? ` ${args}` : ""}`,
  settings:
    `${settings.rounds} round(s) per server, alternated; each ${settings.warmupMs / 1000} s of warm-up, then ` +
    `${settings.durationMs / 1000} s measured with ${settings.concurrency} AdmissionReview v1 requests in flight ` +
    `(kubectl-apply-like ConfigMap CREATEs and UPDATEs, one in four denied with a field cause) over ` +
    `${settings.concurrency} keep-alive HTTP/1.1 connections; ${placement}.`,
  machine: [machineLine(), loadLine()],
  versions: {
    kubeloop: `${kubeloopRevision()}, WebhookServer bundled by kubeloop build, on node ${nodeVersion(node)} ${OPERATOR_NODE_FLAGS.join(" ")}`,
    "controller-runtime": `sigs.k8s.io/controller-runtime ${goModVersion("sigs.k8s.io/controller-runtime")} (k8s.io/api ${goModVersion("k8s.io/api")}) webhook.Server + admission.WithValidator, ${goVersion()}`,
  },
});
writeFileSync(join(resultsDir, "webhooks.md"), report);
writeResult("webhooks", { settings: { ...settings, pinned: pin.length > 0 }, rounds });
log(report);
