import { KubeloopError } from "../errors/index.ts";

/**
 * The control plane's binaries are missing and cannot be built: no Go toolchain (or one that is
 * too old), and no `KUBELOOP_ASSETS` directory. Code `KL_CONTROLPLANE_TOOLCHAIN`.
 */
export class ToolchainError extends KubeloopError {
  constructor(detail: string) {
    super(
      "KL_CONTROLPLANE_TOOLCHAIN",
      `${detail}\nThe local control plane is built from Go modules. Ways out:\n` +
        "  - install Go >= 1.26 (https://go.dev/dl/) and run again; the binaries are built once and cached;\n" +
        "  - or set KUBELOOP_ASSETS=<dir> to a directory holding kube-apiserver, kube-controller-manager,\n" +
        "    kube-scheduler, kubectl, etcd and kwok;\n" +
        "  - or point KUBECONFIG at an existing cluster instead of starting a local one.",
    );
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
