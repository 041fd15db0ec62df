import { KubeloopError } from "../errors/index.ts";
import { requiredGo } from "./versions.ts";

/**
 * The control plane's binaries are missing and cannot be built: no Go toolchain (or one that is
 * too old), and no `KUBELOOP_ASSETS` directory. Code `KL_CONTROLPLANE_TOOLCHAIN`.
 */
export class ToolchainError extends KubeloopError {
  /** What is missing, without the ways out (`No Go toolchain was found on PATH ...`). */
  readonly detail: string;
  constructor(detail: string) {
    super(
      "KL_CONTROLPLANE_TOOLCHAIN",
      `${detail}\nThe local control plane is built from Go modules. Ways out:\n` +
        `  - install Go >= ${requiredGo} (https://go.dev/dl/) and run again; the binaries are built once and cached;\n` +
        "  - or set KUBELOOP_ASSETS=<dir> to a directory holding kube-apiserver, kube-controller-manager,\n" +
        "    kube-scheduler, kubectl, etcd and kwok;\n" +
        "  - or point KUBECONFIG at an existing cluster instead of starting a local one.",
    );
    this.detail = detail;
  }
}

/** Building a control-plane binary failed. Code `KL_CONTROLPLANE_BUILD`. */
export class BuildError extends KubeloopError {
  constructor(component: string, output: string) {
    super(
      "KL_CONTROLPLANE_BUILD",
      `building ${component} failed:\n${output.trim().split("\n").slice(-30).join("\n")}`,
    );
  }
}

/** A component did not start or did not become ready. Code `KL_CONTROLPLANE_START`. */
export class StartError extends KubeloopError {
  /** Which component failed (`etcd`, `kube-apiserver`, ...). */
  readonly component: string;
  constructor(component: string, reason: string, logPath: string, logTail: string) {
    super(
      "KL_CONTROLPLANE_START",
      `${component} ${reason}. Last lines of ${logPath}:\n${logTail.trim() || "(empty log)"}`,
    );
    this.component = component;
  }
}
