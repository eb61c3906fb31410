import { describe, expect, it } from "vitest";
import {
  PROJECT_DESCRIPTION_MAX,
  PROJECT_MESSAGES,
  PROJECT_NAME_MAX,
  projectBody,
  projectListQuery,
  projectPatchBody,
} from "../src/projects";

const firstMessage = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues[0]?.message;

describe("project body (SPEC §5: name required, description optional)", () => {
  it("trims both fields and turns an empty description into null", () => {
    expect(projectBody.parse({ name: "  Melts ", description: "  " })).toEqual({ name: "Melts", description: null });
    expect(projectBody.parse({ name: "Melts" })).toEqual({ name: "Melts", description: null });
  });

  it("says 'Required field' for a missing or blank name", () => {
    expect(firstMessage(projectBody.safeParse({ name: "   " }))).toBe(PROJECT_MESSAGES.required);
    expect(firstMessage(projectBody.safeParse({ name: "" }))).toBe("Required field");
  });

  it("bounds the name and the description with readable messages", () => {
    expect(projectBody.safeParse({ name: "x".repeat(PROJECT_NAME_MAX) }).success).toBe(true);
    expect(firstMessage(projectBody.safeParse({ name: "x".repeat(PROJECT_NAME_MAX + 1) }))).toBe(
      "The name can have at most 255 characters",
    );
    const long = { name: "ok", description: "d".repeat(PROJECT_DESCRIPTION_MAX + 1) };
    expect(firstMessage(projectBody.safeParse(long))).toBe(PROJECT_MESSAGES.descriptionTooLong);
  });

  it("lets a PATCH leave a field out", () => {
    expect(projectPatchBody.parse({ description: "new" })).toEqual({ description: "new" });
    expect(projectPatchBody.safeParse({ name: " " }).success).toBe(false);
  });

  it("lists with page_num, page_size (at most 100), name and description", () => {
    expect(projectListQuery.parse({ page_num: "2", page_size: "100", name: " a ", description: "b" })).toEqual({
      page_num: 2,
      page_size: 100,
      name: "a",
      description: "b",
    });
    expect(projectListQuery.safeParse({ page_size: "101" }).success).toBe(false);
  });
});
