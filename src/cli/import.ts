/**
 * `kubeloop import <crd.yaml...>` and `kubeloop import --from-cluster <group>`: TypeScript types
 * and a descriptor for each version of third-party CRDs, usable with the client, the cache and
 * `for`/`owns`/`watches`, like kopium does for Rust.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Command, Option } from "commander";
import { Client } from "../client/index.ts";
import {
  type CrdDocument,
  crdModules,
  formatWithBiome,
  hasBiome,
  readClusterCrds,
  readCrdFile,
  TypegenError,
} from "../typegen/index.ts";

interface ImportOptions {
  fromCluster?: string;
  out: string;
  kubeloopApi: string;
}

async function importCrds(files: string[], opts: ImportOptions): Promise<void> {
  const crds = files.flatMap(readCrdFile);
  if (opts.fromCluster) crds.push(...(await clusterCrds(opts.fromCluster)));
  const root = process.cwd();
  const format = hasBiome(root) ? formatWithBiome : (source: string) => source;
  const written: string[] = [];
  for (const module of crds.flatMap((crd) => crdModules(crd, opts.kubeloopApi))) {
    const path = join(opts.out, module.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, format(module.source, path, root));
    written.push(path);
  }
  process.stdout.write(`Wrote ${written.join(", ")}\n`);
}

async function clusterCrds(group: string): Promise<CrdDocument[]> {
  const client = await Client.load();
  try {
    return await readClusterCrds(client, group);
  } finally {
    await client.close();
  }
}

/** The `import` command. */
export function importCommand(): Command {
  return new Command("import")
    .description("generate TypeScript types and descriptors from CustomResourceDefinitions")
    .argument("[files...]", "CRD YAML files (each may hold several documents)")
    .addOption(
      new Option("--from-cluster <group>", "also import the CRDs of this API group from the current cluster"),
    )
    .addOption(
      new Option("--out <dir>", "where the modules go, as <group>/<version>/<plural>.ts").default("src/api"),
    )
    .addOption(
      new Option(
        "--kubeloop-api <specifier>",
        "the module the generated code imports kubeloop's API from",
      ).default("kubeloop/api"),
    )
    .action(async (files: string[], opts: ImportOptions) => {
      if (files.length === 0 && !opts.fromCluster) {
        throw new TypegenError(
          "nothing to import",
          "name CRD YAML files (kubeloop import crds/*.yaml) or a group (--from-cluster cert-manager.io)",
        );
      }
      await importCrds(files, opts);
    });
}
