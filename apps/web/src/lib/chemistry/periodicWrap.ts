/** What the wrapping reads and moves of an atom (3Dmol's AtomSpec has these). */
export interface WrappableAtom {
  x: number;
  y: number;
  z: number;
  /** Indices (in the same list) of the atoms it is bonded to. */
  bonds?: number[];
}

/** A periodic cell as a PDB's CRYST1 gives it: sides in Å, angles in degrees. */
export interface CrystalCell {
  a: number;
  b: number;
  c: number;
  alpha: number;
  beta: number;
  gamma: number;
}

/** The cell's vectors as rows (a along x, b in the xy plane), the PDB convention. */
export function cellVectors(cell: CrystalCell): [number[], number[], number[]] {
  const rad = Math.PI / 180;
  // A right angle exactly: cos(90°) in floating point is 6e-17, which would tilt every shift.
  const cos = (degrees: number) => (Math.abs(degrees - 90) < 1e-9 ? 0 : Math.cos(degrees * rad));
  const [ca, cb, cg] = [cos(cell.alpha), cos(cell.beta), cos(cell.gamma)];
  const sg = Math.sqrt(1 - cg * cg);
  const cx = cell.c * cb;
  const cy = (cell.c * (ca - cb * cg)) / sg;
  const cz = Math.sqrt(Math.max(0, cell.c * cell.c - cx * cx - cy * cy));
  return [
    [cell.a, 0, 0],
    [cell.b * cg, cell.b * sg, 0],
    [cx, cy, cz],
  ];
}

/** The molecule of each atom: connected components of the bond graph, numbered in file order. */
export function moleculeLabels(atoms: ReadonlyArray<WrappableAtom>): Int32Array {
  const labels = new Int32Array(atoms.length).fill(-1);
  const stack: number[] = [];
  let next = 0;
  for (let start = 0; start < atoms.length; start++) {
    if (labels[start] !== -1) continue;
    labels[start] = next;
    stack.push(start);
    while (stack.length > 0) {
      const atom = stack.pop() as number;
      for (const partner of atoms[atom]?.bonds ?? []) {
        if (partner >= 0 && partner < atoms.length && labels[partner] === -1) {
          labels[partner] = next;
          stack.push(partner);
        }
      }
    }
    next++;
  }
  return labels;
}

/**
 * Puts every molecule into the cell whole: each molecule (bonded atoms) is moved by whole cell
 * vectors so that its centre lies in the cell; its atoms stay together, even where they stick out
 * of a face (wrapping atom by atom would cut molecules at the faces). Moves the atoms in place and
 * returns the molecule of each atom. The cell's origin is at 0, as in a PDB.
 */
export function wrapMoleculesIntoCell(atoms: WrappableAtom[], cell: CrystalCell): Int32Array {
  const labels = moleculeLabels(atoms);
  const count = labels.reduce((max, label) => Math.max(max, label + 1), 0);
  const sums = new Float64Array(count * 3);
  const sizes = new Float64Array(count);
  atoms.forEach((atom, index) => {
    const m = labels[index] ?? 0;
    sums.set([(sums[3 * m] ?? 0) + atom.x, (sums[3 * m + 1] ?? 0) + atom.y, (sums[3 * m + 2] ?? 0) + atom.z], 3 * m);
    sizes.set([(sizes[m] ?? 0) + 1], m);
  });
  const [va, vb, vc] = cellVectors(cell);
  // Fractional coordinates of a point: solve the upper-triangular system of the cell's rows.
  const fractions = (x: number, y: number, z: number): [number, number, number] => {
    const fc = z / (vc[2] as number);
    const fb = (y - fc * (vc[1] as number)) / (vb[1] as number);
    const fa = (x - fb * (vb[0] as number) - fc * (vc[0] as number)) / (va[0] as number);
    return [fa, fb, fc];
  };
  const shifts = new Float64Array(count * 3);
  for (let m = 0; m < count; m++) {
    const n = sizes[m] as number;
    const [fa, fb, fc] = fractions(
      (sums[3 * m] as number) / n,
      (sums[3 * m + 1] as number) / n,
      (sums[3 * m + 2] as number) / n,
    );
    const [na, nb, nc] = [-Math.floor(fa), -Math.floor(fb), -Math.floor(fc)];
    for (let axis = 0; axis < 3; axis++)
      shifts[3 * m + axis] = na * (va[axis] as number) + nb * (vb[axis] as number) + nc * (vc[axis] as number);
  }
  atoms.forEach((atom, index) => {
    const m = labels[index] as number;
    atom.x += shifts[3 * m] as number;
    atom.y += shifts[3 * m + 1] as number;
    atom.z += shifts[3 * m + 2] as number;
  });
  return labels;
}
