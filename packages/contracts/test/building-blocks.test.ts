import { beforeAll, describe, expect, it } from "vitest";
import {
  buildingBlockListQuery,
  createBuildingBlockBody,
  DEFAULT_CAPPING_CENTRAL_UNIT,
  DEFAULT_HEAD_REPEATING_UNIT,
  DEFAULT_TAIL_REPEATING_UNIT,
  smilesIssuesByField,
} from "../src/building-blocks";
import { BuildingBlockErrors } from "../src/errors";
import { loadRDKit, type RDKitModule } from "../src/smiles/rdkit";

let rdkit: RDKitModule;
beforeAll(async () => {
  rdkit = await loadRDKit();
});

describe("createBuildingBlockBody", () => {
  it("fills version 0 and the default caps of a linear block", () => {
    const body = createBuildingBlockBody.parse({
      type: "linear",
      name: " PE ",
      data: { repeating_unit: "[*:1]CC[*:2]" },
    });
    expect(body).toEqual({
      type: "linear",
      name: "PE",
      version: 0,
      data: {
        repeating_unit: "[*:1]CC[*:2]",
        head_repeating_unit: DEFAULT_HEAD_REPEATING_UNIT,
        tail_repeating_unit: DEFAULT_TAIL_REPEATING_UNIT,
      },
    });
  });

  it("fills the default caps of a dendrimer block", () => {
    const body = createBuildingBlockBody.parse({
      type: "dendrimer",
      name: "PAMAM",
      data: { central_unit: "N([*:2])([*:2])[*:2]", repeating_unit: "[*:1]CCN([*:2])[*:2]" },
    });
    expect(body.data).toMatchObject({
      capping_central_unit: DEFAULT_CAPPING_CENTRAL_UNIT,
      head_repeating_unit: "[*:2][H]",
      tail_repeating_unit: "[*:1][H]",
    });
  });

  it.each([
    ["an empty name", { type: "linear", name: "", data: { repeating_unit: "[*:1]CC[*:2]" } }],
    ["a 256-character name", { type: "linear", name: "x".repeat(256), data: { repeating_unit: "[*:1]CC[*:2]" } }],
    ["type aminoacid", { type: "aminoacid", name: "Gly", data: { one_letter_code: "G", three_letter_code: "Gly" } }],
    ["an unknown type", { type: "branched", name: "X", data: { repeating_unit: "[*:1]CC[*:2]" } }],
    ["a version other than 0", { type: "linear", name: "X", version: 3, data: { repeating_unit: "[*:1]CC[*:2]" } }],
    ["a missing repeating unit", { type: "linear", name: "X", data: {} }],
  ])("refuses %s", (_, body) => {
    expect(createBuildingBlockBody.safeParse(body).success).toBe(false);
  });

  it("accepts a 255-character name", () => {
    const body = { type: "linear", name: "x".repeat(255), data: { repeating_unit: "[*:1]CC[*:2]" } };
    expect(createBuildingBlockBody.safeParse(body).success).toBe(true);
  });
});

describe("buildingBlockListQuery", () => {
  it("reads repeated types, booleans and numbers from query strings", () => {
    const query = buildingBlockListQuery.parse({
      type: ["linear", "dendrimer"],
      show_archived: "true",
      page_size: "5",
    });
    expect(query).toEqual({ page_num: 1, page_size: 5, type: ["linear", "dendrimer"], show_archived: true });
    expect(buildingBlockListQuery.parse({ type: "aminoacid" }).type).toEqual(["aminoacid"]);
  });

  it.each([{ page_size: "0" }, { page_size: "101" }, { page_num: "0" }, { type: "branched" }])("refuses %o", (q) => {
    expect(buildingBlockListQuery.safeParse(q).success).toBe(false);
  });
});

describe("smilesIssuesByField", () => {
  it("reports each field that breaks its rule, keyed by field", () => {
    const issues = smilesIssuesByField(rdkit, "dendrimer", {
      central_unit: "[*:1]N([*:2])[*:2]",
      repeating_unit: "[*:1]CCN([*:2])[*:2]",
      capping_central_unit: "[*:1][H]",
      head_repeating_unit: "C*",
      tail_repeating_unit: "[*:1][H]",
    });
    expect(issues).toEqual({
      central_unit: {
        code: BuildingBlockErrors.VALIDATE_SMILES_INVALID_CONNECTIONS,
        message: "This SMILES can only contain [*:2] connections",
      },
      head_repeating_unit: expect.objectContaining({ code: BuildingBlockErrors.VALIDATE_SMILES_MISSING_BRACKETS }),
    });
  });

  it("uses the linear repeating-unit rule for linear blocks", () => {
    const issues = smilesIssuesByField(rdkit, "linear", { repeating_unit: "[*:1]CCN([*:2])[*:2]" });
    expect(issues.repeating_unit?.message).toBe(
      "This SMILES must contain exactly one [*:1] and exactly one [*:2] connection",
    );
  });
});
