import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidSelectorError, parseLabelSelector, selectorFromLabels } from "../../../src/cache/index.ts";

/** Which of the label maps a selector matches, by index. */
function matching(selector: string, ...labelSets: (Record<string, string> | undefined)[]): number[] {
  const matcher = parseLabelSelector(selector);
  return labelSets.flatMap((labels, i) => (matcher.matches(labels) ? [i] : []));
}

const web = { app: "web", tier: "front" };
const db = { app: "db", tier: "back" };
const bare = {};

describe("parseLabelSelector", () => {
  it("matches everything with the empty selector", () => {
    assert.deepEqual(matching("", web, db, bare, undefined), [0, 1, 2, 3]);
  });

  it("supports equality with = and ==", () => {
    assert.deepEqual(matching("app=web", web, db, bare), [0]);
    assert.deepEqual(matching("app==web", web, db, bare), [0]);
    assert.deepEqual(matching("app = web", web, db, bare), [0]);
  });

  it("supports inequality, which also matches objects without the label", () => {
    assert.deepEqual(matching("app!=web", web, db, bare), [1, 2]);
  });

  it("supports set membership with in and notin", () => {
    assert.deepEqual(matching("app in (web, db)", web, db, bare, { app: "cache" }), [0, 1]);
    assert.deepEqual(matching("app notin (web,cache)", web, db, bare, { app: "cache" }), [1, 2]);
    assert.deepEqual(matching("app in(web)", web, db), [0]);
  });

  it("supports existence and absence", () => {
    assert.deepEqual(matching("tier", web, db, bare, { tier: "" }), [0, 1, 3]);
    assert.deepEqual(matching("!tier", web, db, bare, { tier: "" }), [2]);
    assert.deepEqual(matching("! tier", web, bare), [1]);
  });

  it("ands every requirement", () => {
    assert.deepEqual(matching("app in (web,db),tier!=back", web, db, bare), [0]);
    assert.deepEqual(matching("app, !legacy, tier=front", web, { ...web, legacy: "1" }, db), [0]);
  });

  it("accepts prefixed keys and values with dots, dashes and underscores", () => {
    const labels = { "app.kubernetes.io/name": "my-app_v1.2" };
    assert.deepEqual(matching("app.kubernetes.io/name=my-app_v1.2", labels, bare), [0]);
    assert.deepEqual(matching("app.kubernetes.io/name in (x, my-app_v1.2)", labels, bare), [0]);
  });

  it("matches an empty value only against an empty label", () => {
    assert.deepEqual(matching("app=", { app: "" }, web, bare), [0]);
  });

  it("keeps the selector text", () => {
    assert.equal(parseLabelSelector("app=web").text, "app=web");
  });

  for (const bad of ["a=b=c", "a in (x", "=web", "app=web,,tier", "a >= 3", "a in x", "(a)", ",a", "a b"]) {
    it(`rejects ${JSON.stringify(bad)} with InvalidSelectorError`, () => {
      assert.throws(
        () => parseLabelSelector(bad),
        (err: unknown) => {
          assert.ok(err instanceof InvalidSelectorError);
          assert.equal(err.code, "KL_INVALID_SELECTOR");
          assert.ok(err.message.includes(JSON.stringify(bad)), err.message);
          return true;
        },
      );
    });
  }

  it("names the part it could not parse", () => {
    assert.throws(() => parseLabelSelector("app=web,tier>>x"), /cannot parse "tier>>x"/);
  });
});

describe("selectorFromLabels", () => {
  it("joins matchLabels into equality requirements", () => {
    assert.equal(selectorFromLabels({ app: "web", tier: "front" }), "app=web,tier=front");
    assert.equal(selectorFromLabels({}), "");
  });

  it("round-trips through parseLabelSelector", () => {
    const selector = parseLabelSelector(selectorFromLabels({ app: "web", tier: "front" }));
    assert.equal(selector.matches(web), true);
    assert.equal(selector.matches({ app: "web" }), false);
  });
});
