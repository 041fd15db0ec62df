/**
 * A watchdog that outlives its parent: when the process that started a control plane dies
 * without stopping it (a crashed or killed test run), the reaper terminates every process
 * listed in the run's pid file and, for temporary runs, removes the run directory.
 * It exits on its own once the pid file is gone, which is what a normal stop does.
 */
import { spawn } from "node:child_process";

const source = `
const fs = require("node:fs");
const [parent, pidsFile, runDir, removeDir] = process.argv.slice(1);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === "EPERM"; } };
const pids = () => fs.readFileSync(pidsFile, "utf8").split("\\n").map((l) => Number(l.split(" ")[0])).filter(Boolean);
const signal = (list, sig) => { for (const pid of list) { try { process.kill(pid, sig); } catch {} } };
const timer = setInterval(() => {
  if (!fs.existsSync(pidsFile)) process.exit(0);
  if (alive(Number(parent))) return;
  clearInterval(timer);
  const list = pids();
  signal(list, "SIGTERM");
  setTimeout(() => {
    signal(list, "SIGKILL");
    if (removeDir === "1") fs.rmSync(runDir, { recursive: true, force: true });
    else fs.rmSync(pidsFile, { force: true });
    process.exit(0);
  }, 5000);
}, 500);
`;

/**
 * Starts the reaper for a run.
 * @param pidsFile - file with one `<pid> <name>` line per process to terminate
 * @param removeDir - whether the run directory is temporary and should be deleted
 */
export function startReaper(pidsFile: string, runDir: string, removeDir: boolean): void {
  const child = spawn(
    process.execPath,
    ["-e", source, String(process.pid), pidsFile, runDir, removeDir ? "1" : "0"],
    {
      detached: true,
      stdio: "ignore",
    },
  );
  child.unref();
}
