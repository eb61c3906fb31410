import { cellVectors, moleculeLabels, type WrappableAtom, wrapMoleculesIntoCell } from "./periodicWrap";

const cube = { a: 20, b: 20, c: 20, alpha: 90, beta: 90, gamma: 90 };

/** A diatomic molecule: two atoms 1.5 Å apart along x, bonded. */
function diatomic(x: number, y: number, z: number, first: number): WrappableAtom[] {
  return [
    { x, y, z, bonds: [first + 1] },
    { x: x + 1.5, y, z, bonds: [first] },
  ];
}

describe("molecules wrapped into the cell", () => {
  it("finds molecules as bonded atoms", () => {
    const atoms = [...diatomic(1, 1, 1, 0), { x: 5, y: 5, z: 5, bonds: [] }, ...diatomic(9, 9, 9, 3)];
    expect([...moleculeLabels(atoms)]).toEqual([0, 0, 1, 2, 2]);
  });

  it("moves each molecule whole by cell vectors so its centre is in the cell", () => {
    // One molecule past the +x face, one below the -z face by more than a cell, one inside that
    // sticks out of the +y face (its centre is inside: it stays, whole).
    const atoms = [...diatomic(25, 3, 3, 0), ...diatomic(4, 4, -30, 2), ...diatomic(10, 19.9, 5, 4)];
    const labels = wrapMoleculesIntoCell(atoms, cube);
    expect([...labels]).toEqual([0, 0, 1, 1, 2, 2]);
    expect(atoms.map((a) => [a.x, a.y, a.z])).toEqual([
      [5, 3, 3],
      [6.5, 3, 3],
      [4, 4, 10],
      [5.5, 4, 10],
      [10, 19.9, 5],
      [11.5, 19.9, 5],
    ]);
  });

  it("keeps a molecule whole where its atoms straddle a face, never cut atom by atom", () => {
    // Centre at x = 19.95: inside; the second atom at 20.7 stays outside rather than jumping to 0.7.
    const atoms = diatomic(19.2, 2, 2, 0);
    wrapMoleculesIntoCell(atoms, cube);
    expect(atoms[1]?.x).toBeCloseTo(20.7);
    expect((atoms[1]?.x ?? 0) - (atoms[0]?.x ?? 0)).toBeCloseTo(1.5);
  });

  it("wraps along the cell's own vectors in a triclinic cell", () => {
    const cell = { a: 20, b: 20, c: 20, alpha: 90, beta: 90, gamma: 60 };
    const [, vb] = cellVectors(cell);
    expect(vb[0]).toBeCloseTo(10);
    expect(vb[1]).toBeCloseTo(20 * Math.sin(Math.PI / 3));
    // A single atom one b vector beyond the cell comes back by exactly -b.
    const atom = { x: 5 + (vb[0] ?? 0), y: 1 + (vb[1] ?? 0), z: 3, bonds: [] };
    wrapMoleculesIntoCell([atom], cell);
    expect(atom.x).toBeCloseTo(5);
    expect(atom.y).toBeCloseTo(1);
    expect(atom.z).toBeCloseTo(3);
  });
});
