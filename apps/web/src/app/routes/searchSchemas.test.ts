import {
  addMolecularSystemSearchSchema,
  buildingBlockDetailSearchSchema,
  buildingBlocksSearchSchema,
  systemsSearchSchema,
} from "./searchSchemas";

// Values arrive as TanStack Router parses the query string: JSON where it parses, strings otherwise.
const ALL_TYPES = ["linear", "dendrimer", "aminoacid"];

describe("building-block catalogue search", () => {
  it("defaults to active blocks of every type", () => {
    expect(buildingBlocksSearchSchema.parse({})).toEqual({ archived: false, type: ALL_TYPES });
  });

  it("keeps valid filters, a single type included", () => {
    expect(buildingBlocksSearchSchema.parse({ archived: true, type: "dendrimer" })).toEqual({
      archived: true,
      type: ["dendrimer"],
    });
    expect(buildingBlocksSearchSchema.parse({ type: ["linear", "aminoacid"] }).type).toEqual(["linear", "aminoacid"]);
  });

  it("replaces invalid values by the defaults", () => {
    expect(buildingBlocksSearchSchema.parse({ archived: "maybe", type: ["linear", "nope"] })).toEqual({
      archived: false,
      type: ALL_TYPES,
    });
    expect(buildingBlocksSearchSchema.parse({ type: [] }).type).toEqual(ALL_TYPES);
  });
});

describe("other search params", () => {
  it("keeps a known block type on the detail route and drops an unknown one", () => {
    expect(buildingBlockDetailSearchSchema.parse({ type: "linear" })).toEqual({ type: "linear" });
    expect(buildingBlockDetailSearchSchema.parse({ type: "polymer" })).toEqual({});
  });

  it("defaults the systems type to molecule, also for invalid values", () => {
    expect(systemsSearchSchema.parse({})).toEqual({ type: "molecule" });
    expect(systemsSearchSchema.parse({ type: 42 })).toEqual({ type: "molecule" });
    expect(systemsSearchSchema.parse({ type: "not_defined" })).toEqual({ type: "not_defined" });
  });

  it("accepts only a uuid as systemId", () => {
    const systemId = "3f2b8c1e-9d4a-4e5b-8c7d-1a2b3c4d5e6f";
    expect(addMolecularSystemSearchSchema.parse({ systemId })).toEqual({ systemId });
    expect(addMolecularSystemSearchSchema.parse({ systemId: "abc" })).toEqual({});
  });
});
