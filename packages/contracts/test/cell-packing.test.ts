import { describe, expect, it } from "vitest";
import { cellTooSmallMessage, impliedCubeEdge, impliedDensity, MIN_VOLUME_PER_ATOM } from "../src/cell-packing";

// 40 chains of PS-30: 30 styrene units (C8H8, 104.15 g/mol) each with two H caps.
const PS_30_X40 = { atoms: 40 * (30 * 16 + 2), mass: 40 * (30 * 104.152 + 2 * 1.008) };

describe("cell packing", () => {
  it("gives the density of chains in a cell and the cube edge of a density", () => {
    // 125,060 g/mol in 27,000 Å³: 125,060 × 1.66054 / 27,000 g/cm³.
    expect(impliedDensity(PS_30_X40.mass, [30, 30, 30])).toBeCloseTo(7.69, 2);
    expect(impliedCubeEdge(PS_30_X40.mass, 1.05)).toBeCloseTo(58.28, 1);
    expect(impliedDensity(PS_30_X40.mass, [58.28, 58.28, 58.28])).toBeCloseTo(1.05, 2);
  });

  it("refuses a cell too small for its atoms with the engine's own message", () => {
    // The engine's sphere-packing floor: π/6 × 1.5³ / 0.74 Å³ per atom.
    expect(MIN_VOLUME_PER_ATOM).toBeCloseTo(2.38803, 5);
    // Written by the engine's f-string (construct/structure.py) for 19,280 atoms, 125,060.4 g/mol.
    expect(cellTooSmallMessage({ atoms: 19280, mass: 125060.4 }, [30, 30, 30])).toBe(
      "The cell (30.0 × 30.0 × 30.0 Å) is too small to hold 19280 atoms at 1.5 Å from each other (7.69 g/cm³). " +
        "Lower the density or enlarge the cell.",
    );
    expect(cellTooSmallMessage(PS_30_X40, [40, 40, 40])).toBeNull();
  });
});
