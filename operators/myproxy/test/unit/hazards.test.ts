import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { routeHazards } from "../../hazards.ts";
import { largeRouteSpec } from "./fixtures.ts";

/** The fields at fault in a route of this host and path. */
const faults = (host: string, path?: string) => routeHazards({ host, path }).map((h) => h.field);

describe("routeHazards: paths nginx would never match as written", () => {
  it("refuses every percent-encoding: nginx decodes the request path, never the location", () => {
    for (const path of [
      "/a%20b",
      "/%2e%2e/admin",
      "/%2E",
      "/a%2fb",
      "/a%2Fb",
      "/a%00",
      "/%zz",
      "/a%4",
      "/%",
      "/%41",
    ]) {
      assert.deepEqual(faults("a.example.com", path), ["spec.path"], path);
    }
  });

  it("refuses . and .. segments, anywhere, and at the end", () => {
    for (const path of ["/.", "/..", "/a/./b", "/a/../b", "/a/..", "/../a", "/a/."]) {
      assert.deepEqual(faults("a.example.com", path), ["spec.path"], path);
    }
  });

  it("refuses empty segments (//): nginx merges slashes", () => {
    for (const path of ["//", "//a", "/a//b", "/a//"]) {
      assert.deepEqual(faults("a.example.com", path), ["spec.path"], path);
    }
  });

  it("names each hazard of a path once", () => {
    assert.equal(routeHazards({ host: "a.example.com", path: "/a//../%2e" }).length, 3);
  });

  it("lets through paths whose dots, tildes and slashes are plain characters", () => {
    for (const path of [
      undefined,
      "/",
      "/a/",
      "/.well-known/acme",
      "/a.b/c..d",
      "/...",
      "/~user",
      "/v1/api-x_y",
    ]) {
      assert.deepEqual(faults("a.example.com", path), [], String(path));
    }
  });
});

describe("routeHazards: hosts", () => {
  it("refuses an IP address, in any form whose last label is a number", () => {
    for (const host of ["10.0.0.7", "127.0.0.1", "127.1", "2130706433", "0x7f.0.0.1", "a.b.123"]) {
      assert.deepEqual(faults(host), ["spec.host"], host);
    }
  });

  it("refuses a label longer than 63 characters", () => {
    assert.deepEqual(faults(`${"a".repeat(64)}.example.com`), ["spec.host"]);
    assert.deepEqual(faults(`${"a".repeat(63)}.example.com`), []);
  });

  it("lets through host names, digits in labels included, and the longest the schema allows", () => {
    for (const host of ["example.com", "api.example.com", "1.example.com", "a1.b2.c3d", "localhost"]) {
      assert.deepEqual(faults(host), [], host);
    }
    const { host, path } = largeRouteSpec(1);
    assert.deepEqual(faults(host, path), []);
  });

  it("reports host and path hazards together, host first", () => {
    assert.deepEqual(faults("10.0.0.7", "/a/../b"), ["spec.host", "spec.path"]);
  });
});
