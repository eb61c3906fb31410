import { describe, expect, it } from "vitest";
import { safeFileName } from "../src/platform/paths";

/** A user's upload name becomes a file name in a job's work directory (structure and topology jobs). */
describe("safeFileName", () => {
  it("keeps a plain name, and only the last part of a path", () => {
    expect(safeFileName("water.pdb", "file")).toBe("water.pdb");
    expect(safeFileName("../../etc/water.pdb", "file")).toBe("water.pdb");
    expect(safeFileName("/abs/dir/system.top", "topology")).toBe("system.top");
  });

  it("writes each run of other characters as one underscore", () => {
    expect(safeFileName("my water (1).pdb", "file")).toBe("my_water_1_.pdb");
    expect(safeFileName("a;rm -rf $HOME.gro", "file")).toBe("a_rm_-rf_HOME.gro");
  });

  it("puts the stem before a hidden name and in place of an empty one", () => {
    expect(safeFileName(".pdb", "file")).toBe("file.pdb");
    expect(safeFileName(".top", "topology")).toBe("topology.top");
    expect(safeFileName("", "topology")).toBe("topology");
    expect(safeFileName("/", "file")).toBe("file");
  });
});
