import { loadRDKit, type RDKitModule } from "@polyforge/contracts/smiles/rdkit";
import { drawConnectionSvg } from "./drawing";

let rdkit: RDKitModule;
beforeAll(async () => {
  rdkit = await loadRDKit();
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
