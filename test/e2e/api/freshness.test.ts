import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { apiFiles } from "../../../src/typegen/index.ts";
import { testClient } from "../support.ts";

const root = join(import.meta.dirname, "..", "..", "..");

test("the committed built-in API is what the running apiserver's OpenAPI generates", async () => {
  const files = await apiFiles(await testClient(), root);
  assert.ok(
    files.has("src/api/core/v1.ts") && files.has("src/api/apps/v1.ts"),
    "core/v1 and apps/v1 are generated",
  );
  const stale = [...files].filter(([path, source]) => {
    try {
      return readFileSync(join(root, path), "utf8") !== source;
    } catch {
      return true;
    }
  });
  assert.deepEqual(
    stale.map(([path]) => path),
    [],
    "the generated API differs from the apiserver's: run npm run generate:api-types against a v1.36 cluster",
  );
});
