import i18next from "i18next";
import { describe, expect, it } from "vitest";
import { allStepsComplete, blockingStep, type StepCompletion, stepEnabled } from "./useDraftProgress";

const none: StepCompletion = { 1: false, 2: false, 3: false, 4: false, 5: true };

describe("step rules", () => {
  it("keeps steps 1 and 2 open and the rest closed on a new draft", () => {
    expect([1, 2, 3, 4, 5, 6].map((s) => stepEnabled(s as 1, none))).toEqual([true, true, false, false, false, false]);
  });
  it("opens each step once the steps before it (from 2) are complete", () => {
    const upToPolymers = { ...none, 2: true, 3: true };
    expect([3, 4, 5].map((s) => stepEnabled(s as 3, upToPolymers))).toEqual([true, true, false]);
    expect(stepEnabled(6, { ...upToPolymers, 4: true })).toBe(true);
  });
  it("counts the wizard complete only when steps 1 to 5 are", () => {
    expect(allStepsComplete({ 1: true, 2: true, 3: true, 4: true, 5: true })).toBe(true);
    expect(allStepsComplete({ 1: false, 2: true, 3: true, 4: true, 5: true })).toBe(false);
  });
});

describe("why a step is closed (issue 24: say what is missing)", () => {
  it("names the first incomplete step before it, from step 2", () => {
    expect(blockingStep(3, none)).toBe(2);
    expect(blockingStep(6, { ...none, 2: true, 3: true })).toBe(4);
    expect(blockingStep(5, { ...none, 2: true, 3: true, 4: true })).toBeNull();
    expect(blockingStep(2, none)).toBeNull();
  });
  it("has a message for every step that can hold another back", () => {
    for (const step of [2, 3, 4, 5]) {
      expect(i18next.exists(`missing.${step}`, { ns: "polymerBuilder" })).toBe(true);
    }
    expect(i18next.t("create.incomplete", { ns: "polymerBuilder" })).toBe(
      "Complete all preceding steps to enable system creation.",
    );
  });
});
