import { dummyAtoms } from "./connection-rules";
import type { RDKitModule } from "./rdkit";

/**
 * Prochiral backbone centres of a unit, found as the engine finds them (construct/templates.py
 * `_prochiral_centres`): the backbone is the shortest path from the first [*:1] to the first [*:2];
 * a centre is a backbone atom between them with four neighbours, two of them off the backbone and
 * different (RDKit's symmetry ranks; an implicit hydrogen differs from any other atom). A centre is
 * `drawn` when the SMILES gives its configuration (the engine then keeps it: tacticity does not apply).
 */
export interface ProchiralCentres {
  open: number;
  drawn: number;
}

interface JsonAtom {
  z?: number;
  impHs?: number;
  stereo?: string;
}
interface JsonMolecule {
  atoms: JsonAtom[];
  bonds: Array<{ atoms: [number, number] }>;
  extensions?: Array<{ name: string; cipRanks?: number[] }>;
}

const NONE: ProchiralCentres = { open: 0, drawn: 0 };

/** Breadth-first shortest path from `from` to `to` (both included), or [] when they are not joined. */
function shortestPath(neighbours: number[][], from: number, to: number): number[] {
  const previous = new Map<number, number>([[from, -1]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const atom = queue[head]!;
    if (atom === to) break;
    for (const next of neighbours[atom] ?? []) {
      if (previous.has(next)) continue;
      previous.set(next, atom);
      queue.push(next);
    }
  }
  if (!previous.has(to)) return [];
  const path = [to];
  while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
  return path;
}

/** The centres of a molecule in RDKit's JSON, its atoms in SMILES order (explicit hydrogens kept). */
export function prochiralCentresOf(molecule: JsonMolecule, smiles: string): ProchiralCentres {
  const labels = dummyAtoms(smiles);
  const head = labels.find((d) => d.labelText === "1")?.atomIndex;
  const tail = labels.find((d) => d.labelText === "2")?.atomIndex;
  if (head === undefined || tail === undefined) return NONE;
  const neighbours: number[][] = molecule.atoms.map(() => []);
  for (const { atoms } of molecule.bonds) {
    neighbours[atoms[0]]?.push(atoms[1]);
    neighbours[atoms[1]]?.push(atoms[0]);
  }
  const path = shortestPath(neighbours, head, tail);
  const ranks = molecule.extensions?.find((e) => e.name === "rdkitRepresentation")?.cipRanks;
  const centres = { open: 0, drawn: 0 };
  for (let k = 1; k < path.length - 1; k++) {
    const atom = molecule.atoms[path[k]!]!;
    const implicit = atom.impHs ?? 0;
    const side = (neighbours[path[k]!] ?? []).filter((n) => n !== path[k - 1] && n !== path[k + 1]);
    if (side.length + implicit !== 2) continue; // four neighbours, two on the backbone
    const different =
      implicit === 2
        ? false
        : implicit === 1
          ? (molecule.atoms[side[0]!]!.z ?? 6) !== 1
          : ranks !== undefined && ranks[side[0]!] !== ranks[side[1]!];
    if (!different) continue;
    if (atom.stereo === "cw" || atom.stereo === "ccw") centres.drawn += 1;
    else centres.open += 1;
  }
  return centres;
}

/** The prochiral backbone centres of a unit's SMILES; none when RDKit cannot read it. */
export function prochiralBackboneCentres(rdkit: RDKitModule, smiles: string): ProchiralCentres {
  if (!smiles.trim()) return NONE;
  const mol = rdkit.get_mol(smiles, JSON.stringify({ removeHs: false }));
  try {
    if (!mol?.is_valid()) return NONE;
    const parsed = JSON.parse(mol.get_json()) as { molecules?: JsonMolecule[] };
    const molecule = parsed.molecules?.[0];
    return molecule ? prochiralCentresOf(molecule, smiles) : NONE;
  } finally {
    mol?.delete();
  }
}
