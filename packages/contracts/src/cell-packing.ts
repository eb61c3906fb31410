/**
 * What a cell must hold before the engine is asked to build it: its density from the chains' mass,
 * the cube edge a density implies, and the engine's own refusal of a cell too small for its atoms
 * (construct/structure.py, DENSITY_TOO_HIGH), checked the same way and worded the same.
 */

/** 1 amu/Å³ in g/cm³ (the engine's AMU_A3_TO_G_CM3). */
export const AMU_PER_CUBIC_ANGSTROM_IN_G_PER_CM3 = 1.66054;
/** Å the engine keeps between atoms of one molecule (its intramolecular limit). */
export const INTRAMOLECULAR_LIMIT_ANGSTROM = 1.5;
/** Fewest Å³ per atom: spheres INTRAMOLECULAR_LIMIT_ANGSTROM across at their densest packing (74 %),
 * the engine's MIN_VOLUME_PER_ATOM. */
export const MIN_VOLUME_PER_ATOM = ((Math.PI / 6) * INTRAMOLECULAR_LIMIT_ANGSTROM ** 3) / 0.74;

export type CellSides = readonly [number, number, number];

/** What the cell is filled with: every atom (hydrogens included) and the mass (g/mol) of all chains. */
export interface CellContents {
  atoms: number;
  mass: number;
}

/** g/cm³ of this mass in a cell of these sides (Å). */
export function impliedDensity(mass: number, sides: CellSides): number {
  return (mass * AMU_PER_CUBIC_ANGSTROM_IN_G_PER_CM3) / (sides[0] * sides[1] * sides[2]);
}

/** The edge (Å) of the cube the engine builds for this mass at this density (g/cm³). */
export function impliedCubeEdge(mass: number, density: number): number {
  return ((mass * AMU_PER_CUBIC_ANGSTROM_IN_G_PER_CM3) / density) ** (1 / 3);
}

/** The engine's message when the cell cannot hold the atoms at its intramolecular limit, or null. */
export function cellTooSmallMessage(contents: CellContents, sides: CellSides): string | null {
  const volume = sides[0] * sides[1] * sides[2];
  if (!(volume < contents.atoms * MIN_VOLUME_PER_ATOM)) return null;
  const [a, b, c] = sides.map((side) => side.toFixed(1));
  const density = impliedDensity(contents.mass, sides).toFixed(2);
  return (
    `The cell (${a} × ${b} × ${c} Å) is too small to hold ${contents.atoms} atoms ` +
    `at ${INTRAMOLECULAR_LIMIT_ANGSTROM} Å from each other (${density} g/cm³). ` +
    "Lower the density or enlarge the cell."
  );
}
