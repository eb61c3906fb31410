import { beforeAll, describe, expect, it } from "vitest";
import { BuildingBlockErrors } from "../src/errors";
import {
  CONNECTION_RULES,
  checkConnectionSmiles,
  connectionLabels,
  dummyAtoms,
  isParsableSmiles,
  MAX_UNIT_ATOMS,
  RDKitFault,
  SMILES_FORMAT_MESSAGES,
  smilesAtomCount,
  structureAtomCount,
} from "../src/smiles/connection-rules";
import { loadRDKit, type RDKitModule } from "../src/smiles/rdkit";
import { CONNECTION_LABEL_CASES, SMILES_CONNECTION_CASES } from "../src/testing/smiles-connection-cases";

let rdkit: RDKitModule;
beforeAll(async () => {
  rdkit = await loadRDKit();
});

describe("SMILES connection rules", () => {
  it.each(SMILES_CONNECTION_CASES)("$rule: '$smiles'", ({ rule, smiles, expected }) => {
    expect(checkConnectionSmiles(rdkit, smiles, CONNECTION_RULES[rule])).toEqual(expected);
  });

  it.each(CONNECTION_LABEL_CASES)("lists the labels of '$smiles' in order", ({ smiles, labels }) => {
    expect(connectionLabels(smiles)).toEqual(labels);
  });

  it.each([
    "[*:1]CC[*:2]",
    "[Cl-].[*:1]c1ccc(Br)cc1[*:2]",
    "[*:2][H]",
    "[2H]C([*:1])([13CH3])[*:2]",
    "[*:1]N1CCC[C@H]1C(=O)[*:2]",
    "O=C([*:2])C%10CC%10[*:1]",
  ])("finds the * atoms of '%s' at RDKit's own atom indices", (smiles) => {
    // Drawing highlights markers by index, so the text scan must agree with RDKit's atom order.
    const mol = rdkit.get_mol(smiles, JSON.stringify({ removeHs: false }));
    const atoms: { z?: number }[] = JSON.parse(mol?.get_json() ?? "{}").molecules[0].atoms;
    mol?.delete();
    const rdkitDummies = atoms.flatMap((atom, index) => (atom.z === 0 ? [index] : []));
    expect(dummyAtoms(smiles).map((dummy) => dummy.atomIndex)).toEqual(rdkitDummies);
  });

  it("counts a SMILES's atoms from its text and refuses more than a unit's before RDKit reads it", () => {
    expect(smilesAtomCount("[*:1]C(=O)Cl[*:2] |$;;;;$|")).toBe(5);
    const tooLong = `[*:1]${"C".repeat(MAX_UNIT_ATOMS - 1)}[*:2]`;
    const throwing = {
      get_mol: () => {
        throw new Error("must not be called");
      },
    } as unknown as RDKitModule;
    expect(checkConnectionSmiles(throwing, tooLong, CONNECTION_RULES.linearRepeatingUnit)).toEqual({
      code: BuildingBlockErrors.VALIDATE_SMILES_TOO_LARGE,
      message: SMILES_FORMAT_MESSAGES.tooLarge,
    });
    // A failure of RDKit itself is a fault, never "invalid".
    expect(() => isParsableSmiles(throwing, "CCO")).toThrow(RDKitFault);
  });

  it("reads chains that used to break RDKit's module, and counts atoms with hydrogens as the engine does", () => {
    // Read with RDKit's defaults, 900 carbons in a row failed with 'memory access out of bounds'.
    for (const smiles of ["C".repeat(900), "OCC".repeat(1000), `C1${"C".repeat(898)}C1`]) {
      expect(isParsableSmiles(rdkit, smiles)).toBe(true);
    }
    expect(structureAtomCount(rdkit, "C".repeat(900))).toBe(2702);
    expect(structureAtomCount(rdkit, "CCO")).toBe(9);
    expect(structureAtomCount(rdkit, "c1ccccc1")).toBe(12);
    expect(structureAtomCount(rdkit, "[Na+].[Cl-]")).toBe(2);
    expect(structureAtomCount(rdkit, "[H]C([H])([H])[H]")).toBe(5);
    expect(structureAtomCount(rdkit, "C1CC")).toBeNull();
    expect(structureAtomCount(rdkit, " ")).toBeNull();
  });

  it("loads RDKit once and shares it", async () => {
    expect(await loadRDKit()).toBe(rdkit);
  });
});
