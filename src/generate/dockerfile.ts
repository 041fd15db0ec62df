/** The operator's container build (a multi-stage Dockerfile) and the kustomization listing its manifests. */
import { toYaml } from "../schema/index.ts";

/** Options of {@link dockerfile}. */
export interface DockerfileOptions {
  /** Base image of both stages; default `node:24-slim`. */
  readonly baseImage?: string;
  /** The compiled entry point run by `node`; default `dist/main.js`. */
  readonly entrypoint?: string;
  /** The build command of the first stage; default `npm run build`. */
  readonly buildCommand?: string;
  /** Ports to document with EXPOSE; default 8443 (secure metrics) and 8081 (health). */
  readonly ports?: readonly number[];
}

/**
 * A multi-stage Dockerfile: the first stage installs all dependencies and builds, the second
 * installs production dependencies only (`npm ci --omit=dev`), copies the build output and runs
 * as the numeric non-root user 1000 (numeric, so the kubelet can verify `runAsNonRoot`).
 */
export function dockerfile(options: DockerfileOptions = {}): string {
  const base = options.baseImage ?? "node:24-slim";
  const entrypoint = options.entrypoint ?? "dist/main.js";
  const ports = options.ports ?? [8443, 8081];
  return [
    "# syntax=docker/dockerfile:1",
    `FROM ${base} AS build`,
    "WORKDIR /app",
    "COPY package.json package-lock.json ./",
    "RUN npm ci",
    "COPY . .",
    `RUN ${options.buildCommand ?? "npm run build"}`,
    "",
    `FROM ${base}`,
    "ENV NODE_ENV=production",
    "WORKDIR /app",
    "COPY package.json package-lock.json ./",
    "RUN npm ci --omit=dev && npm cache clean --force",
    "COPY --from=build /app/dist ./dist",
    "USER 1000:1000",
    `EXPOSE ${ports.join(" ")}`,
    `CMD ["node", ${JSON.stringify(entrypoint)}]`,
    "",
  ].join("\n");
}

/** A kustomization.yaml listing the given manifest files as resources. */
export function kustomization(files: readonly string[]): string {
  return toYaml([
    { apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: [...files] },
  ]);
}
