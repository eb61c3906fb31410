import type { SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { systemStatus, systemStatusError } from "./systemStatus";

const base = { system_executions: [] } as unknown as Pick<SystemWithExecutions, "system_executions">;

describe("a system's status tag", () => {
  it("reads the upload or conversion status of a system from a file or a structure", () => {
    expect(systemStatus({ ...base, origin: "upload", system_data: { status: "validating" } })).toBe("validating");
    expect(systemStatus({ ...base, origin: "smiles", system_data: { status: "converted" } })).toBe("converted");
    expect(systemStatus({ ...base, origin: "smiles", system_data: {} })).toBe("not_submitted");
  });

  it("reads the latest run of a polymer-builder system", () => {
    expect(systemStatus({ ...base, origin: "polymer_builder", system_data: { status: "valid" } })).toBe(
      "not_submitted",
    );
  });

  it("gives the problem of an invalid file as the error", () => {
    const invalid = {
      ...base,
      origin: "upload" as const,
      system_data: { status: "invalid", problem: { code: "X", message: "Line 3 is not an atom", line: 3 } },
    };
    expect(systemStatusError(invalid)).toBe("Line 3 is not an atom");
    expect(
      systemStatusError({ ...base, origin: "upload", system_data: { status: "valid", problem: null } }),
    ).toBeNull();
  });
});
