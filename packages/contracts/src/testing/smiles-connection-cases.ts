import { BuildingBlockErrors } from "../errors";
import type { CONNECTION_RULES } from "../smiles/connection-rules";

/**
 * The one table of SMILES connection cases, run by the contracts tests (Node) and again by the web
 * tests, so both sides prove the same behaviour. `expected` is null for an accepted SMILES.
 */
export type RuleName = keyof typeof CONNECTION_RULES;

export interface SmilesConnectionCase {
  rule: RuleName;
  smiles: string;
  expected: { code: string; message: string } | null;
}

const FORMAT = BuildingBlockErrors.VALIDATE_SMILES_INVALID_FORMAT;
const BRACKETS = BuildingBlockErrors.VALIDATE_SMILES_MISSING_BRACKETS;
const LABEL = BuildingBlockErrors.VALIDATE_SMILES_MISSING_LABEL;
const CONNECTIONS = BuildingBlockErrors.VALIDATE_SMILES_INVALID_CONNECTIONS;

const invalidFormat = { code: FORMAT, message: "Invalid SMILES format" };
const missingBrackets = {
  code: BRACKETS,
  message: "Connection points must be written in brackets with a label, e.g. [*:1]",
};
const missingLabel = { code: LABEL, message: "Connection points need a label: [*:1] or [*:2]" };
const connections = (message: string) => ({ code: CONNECTIONS, message });

const ONLY_2 = "This SMILES can only contain [*:2] connections";
const ONLY_1 = "This SMILES can only contain [*:1] connections";
const ONLY_1_AND_2 = "This SMILES can only contain [*:1] and [*:2] connections";
const CENTRAL_COUNT = "This SMILES must contain one or more [*:2] connections";
const DENDRIMER_REPEATING_COUNT = "This SMILES must contain exactly one [*:1] and one or more [*:2] connections";
const LINEAR_REPEATING_COUNT = "This SMILES must contain exactly one [*:1] and exactly one [*:2] connection";
const ONE_2 = "This SMILES must contain exactly one [*:2] connection";
const ONE_1 = "This SMILES must contain exactly one [*:1] connection";

export const SMILES_CONNECTION_CASES: SmilesConnectionCase[] = [
  // Format rules, the same for every field.
  { rule: "linearRepeatingUnit", smiles: "", expected: invalidFormat },
  { rule: "linearRepeatingUnit", smiles: "   ", expected: invalidFormat },
  { rule: "linearRepeatingUnit", smiles: "C1CC", expected: invalidFormat },
  { rule: "linearRepeatingUnit", smiles: "[*:1]C(C[*:2]", expected: invalidFormat },
  { rule: "linearRepeatingUnit", smiles: "not a smiles", expected: invalidFormat },
  { rule: "linearRepeatingUnit", smiles: "*CC[*:2]", expected: missingBrackets },
  { rule: "headUnit", smiles: "*[H]", expected: missingBrackets },
  { rule: "linearRepeatingUnit", smiles: "[*]CC[*:2]", expected: missingLabel },
  { rule: "capUnit", smiles: "[*][H]", expected: missingLabel },
  // A label other than 1 and 2: the field's own SPEC §5 'can only contain' message.
  { rule: "linearRepeatingUnit", smiles: "[*:3]CC[*:2]", expected: connections(ONLY_1_AND_2) },
  { rule: "linearRepeatingUnit", smiles: "[*:0]CC[*:2]", expected: connections(ONLY_1_AND_2) },
  { rule: "dendrimerRepeatingUnit", smiles: "[*:1]CCN([*:2])[*:3]", expected: connections(ONLY_1_AND_2) },
  { rule: "dendrimerCentralUnit", smiles: "C([*:12])[*:2]", expected: connections(ONLY_2) },
  { rule: "headUnit", smiles: "[*:3][H]", expected: connections(ONLY_2) },
  { rule: "capUnit", smiles: "[*:3][H]", expected: connections(ONLY_1) },
  // Linear repeating unit: exactly one [*:1] and exactly one [*:2].
  { rule: "linearRepeatingUnit", smiles: "[*:1]CC[*:2]", expected: null },
  { rule: "linearRepeatingUnit", smiles: "[*:1]CC(c1ccccc1)[*:2]", expected: null },
  { rule: "linearRepeatingUnit", smiles: "[*:1]C[*:1]", expected: connections(LINEAR_REPEATING_COUNT) },
  { rule: "linearRepeatingUnit", smiles: "[*:1]CC", expected: connections(LINEAR_REPEATING_COUNT) },
  { rule: "linearRepeatingUnit", smiles: "CC", expected: connections(LINEAR_REPEATING_COUNT) },
  { rule: "linearRepeatingUnit", smiles: "[*:1]CC([*:2])[*:2]", expected: connections(LINEAR_REPEATING_COUNT) },
  // Head units: only [*:2], exactly one.
  { rule: "headUnit", smiles: "[*:2][H]", expected: null },
  { rule: "headUnit", smiles: "C[*:2]", expected: null },
  { rule: "headUnit", smiles: "[*:1]C", expected: connections(ONLY_2) },
  { rule: "headUnit", smiles: "C([*:2])[*:2]", expected: connections(ONE_2) },
  { rule: "headUnit", smiles: "CO", expected: connections(ONE_2) },
  // Tail units and capping central units: only [*:1], exactly one.
  { rule: "capUnit", smiles: "[*:1][H]", expected: null },
  { rule: "capUnit", smiles: "[*:1]OC", expected: null },
  { rule: "capUnit", smiles: "[*:2]C", expected: connections(ONLY_1) },
  { rule: "capUnit", smiles: "[*:1]C[*:1]", expected: connections(ONE_1) },
  { rule: "capUnit", smiles: "C", expected: connections(ONE_1) },
  // Dendrimer central unit: only [*:2], one or more.
  { rule: "dendrimerCentralUnit", smiles: "N([*:2])([*:2])[*:2]", expected: null },
  { rule: "dendrimerCentralUnit", smiles: "C[*:2]", expected: null },
  { rule: "dendrimerCentralUnit", smiles: "[*:1]N([*:2])[*:2]", expected: connections(ONLY_2) },
  { rule: "dendrimerCentralUnit", smiles: "NCCN", expected: connections(CENTRAL_COUNT) },
  // Dendrimer repeating unit: exactly one [*:1], one or more [*:2].
  { rule: "dendrimerRepeatingUnit", smiles: "[*:1]CCN([*:2])[*:2]", expected: null },
  { rule: "dendrimerRepeatingUnit", smiles: "[*:1]CC[*:2]", expected: null },
  { rule: "dendrimerRepeatingUnit", smiles: "[*:1]CCN([*:1])[*:2]", expected: connections(DENDRIMER_REPEATING_COUNT) },
  { rule: "dendrimerRepeatingUnit", smiles: "CCN([*:2])[*:2]", expected: connections(DENDRIMER_REPEATING_COUNT) },
  { rule: "dendrimerRepeatingUnit", smiles: "[*:1]CCN", expected: connections(DENDRIMER_REPEATING_COUNT) },
];

/** Connection labels in SMILES order (dendrimer masks list the [*:2] sites in this order). */
export const CONNECTION_LABEL_CASES: { smiles: string; labels: number[] }[] = [
  { smiles: "[*:1]CC[*:2]", labels: [1, 2] },
  { smiles: "[*:2]CC([*:2])[*:1]", labels: [2, 2, 1] },
  { smiles: "N([*:2])([*:2])[*:2]", labels: [2, 2, 2] },
  { smiles: "[Cl-].[*:1]c1ccc(Br)cc1[*:2]", labels: [1, 2] },
  { smiles: "CCO", labels: [] },
];
