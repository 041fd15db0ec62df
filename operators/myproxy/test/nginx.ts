/**
 * The real nginx (Debian's package) on the configurations the operator generates: `nginx -t` on
 * one, or nginx serving one. The configuration goes where the nginx image puts it — a file of
 * `conf.d/` included in the `http` block — under a prefix of its own, so no root path is touched.
 *
 * nginx resolves every `proxy_pass` host when it loads a configuration, and the operator's
 * upstreams are cluster DNS names (`web.shop.svc.cluster.local`). So nginx runs in a mount
 * namespace of its own (`unshare --mount`, root only) whose `/etc/hosts` maps each upstream host to
 * 127.0.0.1, where a test's backends stand in for the Services.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { nginxExecutable } from "../../../test/preflight.ts";
import { CONFIG_FILE } from "../nginx.ts";

const run = promisify(execFile);

/** The hosts `proxy_pass` names in a configuration. */
export function upstreamHosts(config: string): string[] {
  return [...new Set([...config.matchAll(/proxy_pass https?:\/\/([^:/;\s]+)/g)].map((m) => m[1] ?? ""))];
}

/** A prefix directory holding `nginx.conf` and the generated file in `conf.d/`, and its hosts file. */
function layout(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), "myproxy-nginx-"));
  mkdirSync(join(dir, "conf.d"));
  writeFileSync(join(dir, "conf.d", CONFIG_FILE), config);
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((t) => `    ${t}_temp_path ${join(dir, t)};`)
    .join("\n");
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;\npid ${join(dir, "nginx.pid")};\nerror_log stderr;\nevents {}\nhttp {\n    access_log off;\n${temp}\n    include ${join(dir, "conf.d")}/*.conf;\n}\n`,
  );
  const hosts = upstreamHosts(config).map((h) => `127.0.0.1 ${h}`);
  writeFileSync(join(dir, "hosts"), `${readFileSync("/etc/hosts", "utf8")}\n${hosts.join("\n")}\n`);
  return dir;
}

/** The command running nginx with `args` on `dir`, with that directory's hosts file. */
function command(dir: string, args: string[]): [string, string[]] {
  const nginxArgs = [nginxExecutable(), "-p", dir, "-c", join(dir, "nginx.conf"), ...args].join(" ");
  return [
    "unshare",
    ["--mount", "sh", "-c", `mount --bind ${join(dir, "hosts")} /etc/hosts && exec ${nginxArgs}`],
  ];
}

/** `nginx -t` on a generated configuration: whether nginx accepts it, and what it said. */
export async function nginxAccepts(config: string): Promise<{ ok: boolean; output: string }> {
  const dir = layout(config);
  try {
    const [cmd, args] = command(dir, ["-t"]);
    const { stderr } = await run(cmd, args);
    return { ok: true, output: stderr };
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    return { ok: false, output: e.stderr || e.message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** nginx serving a generated configuration, until `stop()`. */
export interface RunningNginx {
  stop(): Promise<void>;
}

/** Starts nginx on a generated configuration; resolves once `/healthz` of the default server answers on `port`. */
export async function serveNginx(config: string, port: number): Promise<RunningNginx> {
  const dir = layout(config);
  const [cmd, args] = command(dir, []);
  const child: ChildProcess = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.on("data", (chunk) => {
    log += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.kill("SIGQUIT");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start on port ${port}: ${log.trim() || "no output"}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
