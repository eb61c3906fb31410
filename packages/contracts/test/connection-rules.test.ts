import { beforeAll, describe, expect, it } from "vitest";
import { CONNECTION_RULES, checkConnectionSmiles, connectionLabels } from "../src/smiles/connection-rules";
import { drawConnectionSvg } from "../src/smiles/drawing";
import { loadRDKit, type RDKitModule } from "../src/smiles/rdkit";
import { CONNECTION_LABEL_CASES, SMILES_CONNECTION_CASES } from "./smiles-connection-cases";

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

  it("loads RDKit once and shares it", async () => {
    expect(await loadRDKit()).toBe(rdkit);
  });
});

describe("drawConnectionSvg", () => {
  it("draws the molecule with each connection point labelled by its number", () => {
    const svg = drawConnectionSvg(rdkit, "[*:1]CC(c1ccccc1)[*:2]", { width: 300, height: 200 });
    expect(svg).toMatch(/^<\?xml|^<svg/);
    // The two markers (atoms 0 and 9) are highlighted and drawn with their labels instead of `*`.
    expect(svg).toContain("atom-0");
    expect(svg).toContain("atom-9");
    expect(svg).not.toContain("*");
  });

  it("answers null for a SMILES RDKit cannot read", () => {
    expect(drawConnectionSvg(rdkit, "C1CC", { width: 100, height: 100 })).toBeNull();
  });
});
