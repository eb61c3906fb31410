import { describe, expect, it } from "vitest";
import { SegmentErrors } from "../src/errors";
import {
  type AminoacidCodes,
  checkPeptideSequence,
  linearBlockSegmentForm,
  linearBlockTotal,
  linearRandomSegmentForm,
  linearRandomTotal,
  parseWholeNumber,
  ratioPercentages,
  type SegmentCreateBody,
  segmentBodyProblem,
  segmentCreateBody,
} from "../src/segments";

const GLY: AminoacidCodes = { id: "g", one_letter_code: "G", three_letter_code: "Gly" };
const ALA: AminoacidCodes = { id: "a", one_letter_code: "A", three_letter_code: "Ala" };
const GLU: AminoacidCodes = { id: "e", one_letter_code: "E", three_letter_code: "Glu" };
const AMINOACIDS = [GLY, ALA, GLU];

const BLOCK_A = "11111111-1111-4111-8111-111111111111";
const BLOCK_B = "22222222-2222-4222-8222-222222222222";

describe("sequence arithmetic", () => {
  it("parses whole numbers and counts anything unparseable as 0", () => {
    expect(parseWholeNumber("12")).toBe(12);
    expect(parseWholeNumber("7.9")).toBe(7);
    expect(parseWholeNumber("")).toBe(0);
    expect(parseWholeNumber("abc")).toBe(0);
    expect(parseWholeNumber(undefined)).toBe(0);
    expect(parseWholeNumber(Number.NaN)).toBe(0);
  });

  it("sums occurrences for a linear block segment", () => {
    expect(linearBlockTotal([2, "3", 5])).toBe(10);
    expect(linearBlockTotal([])).toBe(0);
  });

  it("multiplies the sum of ratios by the multiplier for a linear random segment", () => {
    expect(linearRandomTotal([1, 2, 3], 4)).toBe(24);
    expect(linearRandomTotal(["1", "x", "3"], "2")).toBe(8);
    expect(linearRandomTotal([1, 2], "")).toBe(0);
  });

  it("shows each ratio's percentage with 2 decimals", () => {
    expect(ratioPercentages([1, 2])).toEqual(["33.33", "66.67"]);
    expect(ratioPercentages([1, 1, 2])).toEqual(["25.00", "25.00", "50.00"]);
    expect(ratioPercentages(["", "oops"])).toEqual(["0.00", "0.00"]);
  });
});

describe("peptide sequence validation", () => {
  it("requires a sequence", () => {
    expect(checkPeptideSequence("  ", "oneLetter", AMINOACIDS)).toEqual({ ok: false, message: "Sequence is required" });
  });

  it("says so when the aminoacid list is not loaded", () => {
    expect(checkPeptideSequence("GA", "oneLetter", undefined)).toEqual({
      ok: false,
      message: "Sequence could not be validated. Please try again or contact support.",
    });
  });

  it("accepts a one-letter sequence and resolves its residues in order", () => {
    const check = checkPeptideSequence("GAGE", "oneLetter", AMINOACIDS);
    expect(check).toEqual({ ok: true, residues: [GLY, ALA, GLY, GLU] });
  });

  it.each(["ga", "G-A", "G1", "GÄ"])("rejects the one-letter sequence %s", (sequence) => {
    expect(checkPeptideSequence(sequence, "oneLetter", AMINOACIDS)).toEqual({
      ok: false,
      message: "One-letter sequence must contain only capital letters (A-Z)",
    });
  });

  it("lists unknown one-letter codes once each", () => {
    expect(checkPeptideSequence("GXZX", "oneLetter", AMINOACIDS)).toEqual({
      ok: false,
      message: "Invalid aminoacid code(s): X, Z. Please use only valid one-letter codes.",
    });
  });

  it.each(["Gly-Ala-Glu", "GLY-ALA-GLU", "gly-ala-glu"])("accepts the three-letter sequence %s", (sequence) => {
    expect(checkPeptideSequence(sequence, "threeLetter", AMINOACIDS)).toEqual({ ok: true, residues: [GLY, ALA, GLU] });
  });

  it.each(["GlyAla", "Gly-Al", "Gly--Ala", "Gly Ala", "Gly-Ala-"])("rejects the malformed sequence %s", (sequence) => {
    expect(checkPeptideSequence(sequence, "threeLetter", AMINOACIDS)).toEqual({
      ok: false,
      message: "Three-letter sequence must contain 3-letter codes separated by hyphens (e.g., Gly-Ala-Glu)",
    });
  });

  it.each(["Gly-ALA", "gly-Ala", "gLy-gly"])("rejects inconsistent casing in %s", (sequence) => {
    expect(checkPeptideSequence(sequence, "threeLetter", AMINOACIDS)).toEqual({
      ok: false,
      message:
        "All three-letter codes must use consistent format: all uppercase (e.g., GLY-ALA), all lowercase (e.g., gly-ala), or first letter uppercase (e.g., Gly-Ala)",
    });
  });

  it("lists unknown three-letter codes", () => {
    expect(checkPeptideSequence("Gly-Xyz-Abc-Xyz", "threeLetter", AMINOACIDS)).toEqual({
      ok: false,
      message: "Invalid aminoacid code(s): Xyz, Abc. Please use only valid three-letter codes.",
    });
  });
});

function body(overrides: Partial<SegmentCreateBody>): SegmentCreateBody {
  return {
    name: "seg",
    type: "linear_block",
    data: { total_building_blocks: 5 },
    blocks: [
      { building_block_id: BLOCK_A, order: 1, occurrence: 2 },
      { building_block_id: BLOCK_B, order: 2, occurrence: 3 },
    ],
    ...overrides,
  };
}

describe("segment body rules", () => {
  it("accepts a linear block segment whose total is the sum of occurrences", () => {
    expect(segmentBodyProblem(body({}))).toBeNull();
  });

  it("answers TOTAL_BUILDING_BLOCKS_MISMATCH with the expected total", () => {
    expect(segmentBodyProblem(body({ data: { total_building_blocks: 6 } }))).toEqual({
      code: SegmentErrors.VALIDATE_TOTAL_BUILDING_BLOCKS_MISMATCH,
      args: { expected: 5, actual: 6 },
    });
  });

  it("requires occurrences on linear block segments and ratios on random ones", () => {
    expect(segmentBodyProblem(body({ blocks: [{ building_block_id: BLOCK_A, order: 1 }] }))?.code).toBe(
      SegmentErrors.VALIDATE_LINEAR_BLOCK_OCCURRENCE_REQUIRED,
    );
    expect(
      segmentBodyProblem(
        body({ type: "linear_random", blocks: [{ building_block_id: BLOCK_A, order: 1, occurrence: 1 }] }),
      )?.code,
    ).toBe(SegmentErrors.VALIDATE_RANDOM_BLOCK_RATIO_REQUIRED);
    expect(
      segmentBodyProblem(body({ type: "linear_peptide", blocks: [{ building_block_id: BLOCK_A, order: 1 }] }))?.code,
    ).toBe(SegmentErrors.VALIDATE_MISSING_OCCURRENCE_OR_RATIO);
  });

  it("rejects an occurrence or ratio below 1", () => {
    expect(segmentBodyProblem(body({ blocks: [{ building_block_id: BLOCK_A, order: 1, occurrence: 0 }] }))?.code).toBe(
      SegmentErrors.VALIDATE_INVALID_BLOCK_OCCURRENCE_OR_RATIO,
    );
    expect(
      segmentBodyProblem(body({ type: "linear_random", blocks: [{ building_block_id: BLOCK_A, order: 1, ratio: -2 }] }))
        ?.code,
    ).toBe(SegmentErrors.VALIDATE_INVALID_BLOCK_OCCURRENCE_OR_RATIO);
  });

  it("checks a random segment's total against ratios × multiplier", () => {
    const blocks = [
      { building_block_id: BLOCK_A, order: 1, ratio: 1 },
      { building_block_id: BLOCK_B, order: 2, ratio: 3 },
    ];
    expect(
      segmentBodyProblem(body({ type: "linear_random", blocks, data: { total_building_blocks: 12, multiplier: 3 } })),
    ).toBeNull();
    expect(
      segmentBodyProblem(body({ type: "linear_random", blocks, data: { total_building_blocks: 8, multiplier: 3 } }))
        ?.code,
    ).toBe(SegmentErrors.VALIDATE_TOTAL_BUILDING_BLOCKS_MISMATCH);
    // Without a multiplier the total must be a whole multiple of the ratios.
    expect(segmentBodyProblem(body({ type: "linear_random", blocks, data: { total_building_blocks: 8 } }))).toBeNull();
    expect(segmentBodyProblem(body({ type: "linear_random", blocks, data: { total_building_blocks: 6 } }))?.code).toBe(
      SegmentErrors.VALIDATE_TOTAL_BUILDING_BLOCKS_MISMATCH,
    );
  });

  it("refuses unknown and dendrimer segment types with INVALID_TYPE", () => {
    expect(segmentBodyProblem(body({ type: "star" }))?.code).toBe(SegmentErrors.VALIDATE_INVALID_TYPE);
    expect(segmentBodyProblem(body({ type: "dendrimer_from_central_unit" }))?.code).toBe(
      SegmentErrors.VALIDATE_INVALID_TYPE,
    );
  });

  it("rejects duplicate block orders and empty names in the schema", () => {
    const duplicate = body({
      blocks: [
        { building_block_id: BLOCK_A, order: 1, occurrence: 1 },
        { building_block_id: BLOCK_B, order: 1, occurrence: 1 },
      ],
    });
    expect(segmentCreateBody.safeParse(duplicate).success).toBe(false);
    expect(segmentCreateBody.safeParse(body({ name: "  " })).success).toBe(false);
    expect(segmentCreateBody.safeParse(body({})).success).toBe(true);
  });
});

describe("segment forms", () => {
  it("gives the spec's messages for occurrences, ratios and multiplier", () => {
    const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
      result.error?.issues.map((i) => i.message) ?? [];
    expect(
      messages(linearBlockSegmentForm.safeParse({ name: "", blocks: [{ building_block_id: "x", occurrence: "0" }] })),
    ).toEqual(["Required field", "Occurrence must be 1 or greater"]);
    expect(
      messages(
        linearRandomSegmentForm.safeParse({
          name: "r",
          multiplier: "0",
          blocks: [{ building_block_id: "x", ratio: "0" }],
        }),
      ),
    ).toEqual(["The multiplier must be greater than 0", "Ratio must be 1 or greater"]);
  });
});
