import { describe, expect, it } from "vitest";
import {
  type ChainComposition,
  type CompositionBlock,
  type CompositionSegment,
  chainComposition,
  chainTotals,
  rdkitUnitMeasure,
} from "../src/composition";
import { estimatedAtoms, estimatedChainAtoms } from "../src/job-limits";
import { loadRDKit } from "../src/smiles/rdkit";

const PE: CompositionBlock = {
  id: "pe",
  name: "Ethylene",
  type: "linear",
  data: { repeating_unit: "[*:1]CC[*:2]", head_repeating_unit: "[*:2][H]", tail_repeating_unit: "[*:1][H]" },
};
const PS: CompositionBlock = {
  id: "ps",
  name: "Styrene",
  type: "linear",
  data: { repeating_unit: "[*:1]CC(c1ccccc1)[*:2]", head_repeating_unit: "[*:2]C", tail_repeating_unit: "[*:1][H]" },
};
const GLY: CompositionBlock = {
  id: "gly",
  name: "Glycine",
  type: "aminoacid",
  data: { one_letter_code: "G", three_letter_code: "Gly", repeating_unit: "[*:1]NCC(=O)[*:2]" },
};
const DENDRON: CompositionBlock = {
  id: "den",
  name: "Dendron",
  type: "dendrimer",
  data: {
    central_unit: "[*:2]C([*:2])[*:2]",
    repeating_unit: "[*:1]CN([*:2])[*:2]",
    capping_central_unit: "[*:1][H]",
    head_repeating_unit: "[*:2][H]",
    tail_repeating_unit: "[*:1]C",
  },
};
const blocks = new Map([PE, PS, GLY, DENDRON].map((b) => [b.id, b]));

function segment(id: string, type: CompositionSegment["type"], refs: Array<[string, number]>, data = {}) {
  return {
    id,
    type,
    data,
    blocks: refs.map(([building_block_id, n], order) => ({
      building_block_id,
      order,
      occurrence: type === "linear_random" ? null : n,
      ratio: type === "linear_random" ? n : null,
    })),
  } satisfies CompositionSegment;
}

const counts = (composition: ChainComposition | null) =>
  Object.fromEntries((composition?.units ?? []).map((u) => [`${u.blockId}:${u.role}`, u.perChain]));

describe("chain composition", () => {
  it("counts every unit of a linear chain and its two caps", () => {
    const segments = new Map([
      ["s1", segment("s1", "linear_block", [["pe", 10]], { total_building_blocks: 10 })],
      ["s2", segment("s2", "linear_block", [["ps", 3]], { total_building_blocks: 3 })],
    ]);
    const polymer = {
      id: "p",
      segments: [
        { segment_id: "s2", occurrence: 1, order: 2 },
        { segment_id: "s1", occurrence: 2, order: 1 },
      ],
    };
    const composition = chainComposition(polymer, segments, blocks);
    // Segments in order: 2 × 10 ethylene, then 3 styrene; the head cap from ethylene, the tail from styrene.
    expect(counts(composition)).toEqual({ "pe:unit": 20, "ps:unit": 3, "pe:head": 1, "ps:tail": 1 });
    expect(composition?.exact).toBe(true);
  });

  it("gives a random segment ratio × multiplier of each block, and says when its caps are not known", () => {
    const segments = new Map([
      [
        "r",
        segment(
          "r",
          "linear_random",
          [
            ["pe", 1],
            ["ps", 2],
          ],
          { total_building_blocks: 30, multiplier: 10 },
        ),
      ],
    ]);
    const composition = chainComposition(
      { id: "p", segments: [{ segment_id: "r", occurrence: 1, order: 1 }] },
      segments,
      blocks,
    );
    expect(counts(composition)).toMatchObject({ "pe:unit": 10, "ps:unit": 20 });
    // Ethylene and styrene have different head caps: which one opens the chain depends on the shuffle.
    expect(composition?.exact).toBe(false);
  });

  it("caps a peptide with a free amine and a free acid", () => {
    const segments = new Map([
      [
        "pep",
        segment("pep", "linear_peptide", [
          ["gly", 1],
          ["gly", 1],
          ["gly", 1],
        ]),
      ],
    ]);
    const composition = chainComposition(
      { id: "p", segments: [{ segment_id: "pep", occurrence: 1, order: 1 }] },
      segments,
      blocks,
    );
    expect(composition?.units.map((u) => [u.role, u.smiles, u.perChain])).toEqual([
      ["unit", "[*:1]NCC(=O)[*:2]", 3],
      ["head", "[*:2][H]", 1],
      ["tail", "[*:1]O", 1],
    ]);
  });

  it("grows a dendrimer shell by shell from its core, as the engine does", () => {
    // Central unit with 3 sites, 2 grown (mask), generation 1: shells 0 and 1 of a unit with 2 branches.
    const fromCore = new Map([
      ["d", segment("d", "dendrimer_from_central_unit", [["den", 1]], { generation_number: 1, mask: [1, 1, 0] })],
    ]);
    expect(
      counts(chainComposition({ id: "p", segments: [{ segment_id: "d", occurrence: 1, order: 1 }] }, fromCore, blocks)),
    ).toEqual({
      "den:central": 1,
      "den:capping": 1,
      "den:unit": 2 + 4,
      "den:tail": 8,
    });
    // From a repeating unit, generation 0: the core unit alone, its head closed, its two sites closed by tails.
    const fromUnit = new Map([["d", segment("d", "dendrimer_from_rep_unit", [["den", 1]], { generation_number: 0 })]]);
    expect(
      counts(chainComposition({ id: "p", segments: [{ segment_id: "d", occurrence: 1, order: 1 }] }, fromUnit, blocks)),
    ).toEqual({
      "den:unit": 1,
      "den:head": 1,
      "den:tail": 2,
    });
  });

  it("is not known while a segment or block is missing", () => {
    const segments = new Map([["s", segment("s", "linear_block", [["missing", 1]])]]);
    expect(
      chainComposition({ id: "p", segments: [{ segment_id: "s", occurrence: 1, order: 1 }] }, segments, blocks),
    ).toBeNull();
    expect(
      chainComposition({ id: "p", segments: [{ segment_id: "x", occurrence: 1, order: 1 }] }, segments, blocks),
    ).toBeNull();
  });

  it("adds up atoms (hydrogens included) and mass with RDKit", async () => {
    const measure = rdkitUnitMeasure(await loadRDKit());
    expect(measure("[*:1]CC[*:2]")).toEqual({ atoms: 6, heavyAtoms: 2, mass: expect.closeTo(28.054, 3) });
    const segments = new Map([["s", segment("s", "linear_block", [["pe", 100]], { total_building_blocks: 100 })]]);
    const composition = chainComposition(
      { id: "p", segments: [{ segment_id: "s", occurrence: 1, order: 1 }] },
      segments,
      blocks,
    );
    // H-(CH2CH2)100-H: C200H402.
    const totals = chainTotals(composition!, measure);
    expect(totals.atoms).toBe(602);
    expect(totals.heavyAtoms).toBe(200);
    expect(totals.mass).toBeCloseTo(200 * 12.011 + 402 * 1.008, 1);
  });
});

describe("the server's atom estimate on the builder's draft", () => {
  it("estimates each chain and the system without hydrogens", () => {
    const input = {
      blocks: [PE, PS],
      segments: [
        { id: "s1", blocks: [{ building_block_id: "pe" }], data: { total_building_blocks: 10 } },
        { id: "s2", blocks: [{ building_block_id: "ps" }], data: { total_building_blocks: 3 } },
      ],
      polymers: [
        {
          id: "p",
          segments: [
            { segment_id: "s1", occurrence: 2 },
            { segment_id: "s2", occurrence: 1 },
          ],
        },
      ],
    };
    expect(estimatedChainAtoms(input).get("p")).toBe(2 * 10 * 2 + 3 * 8);
    expect(estimatedAtoms({ ...input, system_setup: { polymers: [{ polymer_id: "p", occurrence: 5 }] } })).toBe(5 * 64);
  });
});
