import { beforeAll, describe, expect, it } from "vitest";
import { type ProchiralCentres, prochiralBackboneCentres } from "../src/smiles/prochiral";
import { loadRDKit, type RDKitModule } from "../src/smiles/rdkit";

/** Open and drawn centres per unit, as the engine's templates.py `_prochiral_centres` counts them
 * (the table was printed by the engine for these SMILES). */
const EXPECTED: Array<[string, number, number]> = [
  ["[*:1]CC[*:2]", 0, 0],
  ["[*:1]CC(c1ccccc1)[*:2]", 1, 0],
  ["[*:1]C[C@H](c1ccccc1)[*:2]", 0, 1],
  ["[*:1]CC(C)(C(=O)OC)[*:2]", 1, 0],
  ["[*:1]CC(C)(C)[*:2]", 0, 0],
  ["[*:1]CC(C)[*:2]", 1, 0],
  ["[*:1]C(C)[*:2]", 1, 0],
  ["[*:1]CCO[*:2]", 0, 0],
  ["[*:2]N[C@@H](C)C(=O)[*:1]", 0, 1],
  ["[*:2]NCC(=O)[*:1]", 0, 0],
  ["[*:1]C([H])(C)C[*:2]", 1, 0],
  ["[*:1]C([H])([H])C[*:2]", 0, 0],
  ["[*:1]CC(Cl)[*:2]", 1, 0],
  ["[*:1]CC(F)(F)[*:2]", 0, 0],
  ["[*:1]CC(C)C(C)[*:2]", 2, 0],
  ["[*:1]C1CCC(CC1)[*:2]", 2, 0],
  ["[*:1]CC(C#N)[*:2]", 1, 0],
  ["[*:1]c1ccc(cc1)[*:2]", 0, 0],
  ["[*:1]CC(O)[*:2]", 1, 0],
  ["CCC", 0, 0],
];

describe("prochiral backbone centres (issue 22: when the builder offers tacticity)", () => {
  let rdkit: RDKitModule;
  beforeAll(async () => {
    rdkit = await loadRDKit();
  });

  it.each(EXPECTED)("%s has %i open and %i drawn centres, as the engine counts", (smiles, open, drawn) => {
    expect(prochiralBackboneCentres(rdkit, smiles)).toEqual<ProchiralCentres>({ open, drawn });
  });

  it("finds none in a SMILES RDKit cannot read or an empty one", () => {
    expect(prochiralBackboneCentres(rdkit, "[*:1]C(C[*:2]")).toEqual({ open: 0, drawn: 0 });
    expect(prochiralBackboneCentres(rdkit, "")).toEqual({ open: 0, drawn: 0 });
  });
});
