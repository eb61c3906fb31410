import { describe, expect, it } from "vitest";
import { allStepsComplete, type StepCompletion, stepEnabled } from "./useDraftProgress";

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
