import { describe, expect, it } from "vitest";
import { currentStatus, displayGroup } from "../src/system-executions";

describe("status display grouping (SPEC §4)", () => {
  it.each([
    ["not_submitted", "not-submitted"],
    ["pending", "not-submitted"],
    ["pending_upload", "not-submitted"],
    ["running", "running"],
    ["converting", "running"],
    ["uploading", "running"],
    ["pending_validation", "running"],
    ["validating", "running"],
    ["processing", "processing"],
    ["waiting_for_resources", "waiting-for-resources"],
    ["completed", "completed"],
    ["converted", "completed"],
    ["valid", "completed"],
    ["error", "error"],
    ["failed", "error"],
    ["invalid", "error"],
    ["cancelled", "cancelled"],
    ["something_new", "not-submitted"],
    [undefined, "not-submitted"],
  ])("%s → %s", (status, group) => {
    expect(displayGroup(status)).toBe(group);
  });

  it("takes the current status from the latest execution, none meaning not submitted", () => {
    expect(currentStatus({ system_executions: [] })).toBe("not_submitted");
    const execution = (status: "cancelled" | "running") => ({ status }) as never;
    expect(currentStatus({ system_executions: [execution("cancelled"), execution("running")] })).toBe("running");
  });
});
