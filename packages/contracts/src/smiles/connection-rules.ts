import { BuildingBlockErrors } from "../errors";
import type { RDKitModule } from "./rdkit";

/**
 * Connection markers of building-block SMILES (ARCHITECTURE §5): `[*:1]` is a unit's head side,
 * `[*:2]` its tail side. These rules are shared by the web forms and the server, which is
 * authoritative.
 */
export type MarkerLabel = 1 | 2;

export type SmilesErrorCode =
  | typeof BuildingBlockErrors.VALIDATE_SMILES_INVALID_FORMAT
  | typeof BuildingBlockErrors.VALIDATE_SMILES_MISSING_BRACKETS
  | typeof BuildingBlockErrors.VALIDATE_SMILES_MISSING_LABEL
  | typeof BuildingBlockErrors.VALIDATE_SMILES_INVALID_LABEL_FORMAT
  | typeof BuildingBlockErrors.VALIDATE_SMILES_INVALID_CONNECTIONS
  | typeof BuildingBlockErrors.VALIDATE_SMILES_TOO_LARGE;

export interface SmilesIssue {
  code: SmilesErrorCode;
  message: string;
}

/** A building block is one unit, not a polymer: its SMILES has at most this many atoms. Checked on
 * the text before RDKit reads it (RDKit's WebAssembly module fails on chains of ~900 atoms and is
 * unusable afterwards). */
export const MAX_UNIT_ATOMS = 250;

export const SMILES_FORMAT_MESSAGES = {
  tooLarge: `A building block is one repeating unit: its SMILES can have at most ${MAX_UNIT_ATOMS} atoms`,
  invalidFormat: "Invalid SMILES format",
  missingBrackets: "Connection points must be written in brackets with a label, e.g. [*:1]",
  missingLabel: "Connection points need a label: [*:1] or [*:2]",
  invalidLabelFormat: "Connection point labels can only be 1 or 2: [*:1] or [*:2]",
} as const;

/** What one SMILES field accepts: which labels are forbidden, and how many of each it needs. */
export interface ConnectionRule {
  forbiddenLabel?: { label: MarkerLabel; message: string };
  /** SPEC §5's message for a label the field cannot hold, [*:3] say ('This SMILES can only contain
   * …'); without one, the generic label-format message. */
  onlyMessage?: string;
  countsAreValid: (counts: Record<MarkerLabel, number>) => boolean;
  countMessage: string;
}

const ONLY_HEAD_MARKERS = "This SMILES can only contain [*:1] connections";
const ONLY_TAIL_MARKERS = "This SMILES can only contain [*:2] connections";
const ONLY_HEAD_AND_TAIL_MARKERS = "This SMILES can only contain [*:1] and [*:2] connections";

/** SPEC §5: the rule of every SMILES field of linear and dendrimer blocks. */
export const CONNECTION_RULES = {
  dendrimerCentralUnit: {
    forbiddenLabel: { label: 1, message: ONLY_TAIL_MARKERS },
    onlyMessage: ONLY_TAIL_MARKERS,
    countsAreValid: (c) => c[2] >= 1,
    countMessage: "This SMILES must contain one or more [*:2] connections",
  },
  dendrimerRepeatingUnit: {
    onlyMessage: ONLY_HEAD_AND_TAIL_MARKERS,
    countsAreValid: (c) => c[1] === 1 && c[2] >= 1,
    countMessage: "This SMILES must contain exactly one [*:1] and one or more [*:2] connections",
  },
  linearRepeatingUnit: {
    onlyMessage: ONLY_HEAD_AND_TAIL_MARKERS,
    countsAreValid: (c) => c[1] === 1 && c[2] === 1,
    countMessage: "This SMILES must contain exactly one [*:1] and exactly one [*:2] connection",
  },
  /** Head units (linear and dendrimer): start a chain, bond by their tail side. */
  headUnit: {
    forbiddenLabel: { label: 1, message: ONLY_TAIL_MARKERS },
    onlyMessage: ONLY_TAIL_MARKERS,
    countsAreValid: (c) => c[2] === 1,
    countMessage: "This SMILES must contain exactly one [*:2] connection",
  },
  /** Tail units and the dendrimer's capping central unit: close a site, bond by their head side. */
  capUnit: {
    forbiddenLabel: { label: 2, message: ONLY_HEAD_MARKERS },
    onlyMessage: ONLY_HEAD_MARKERS,
    countsAreValid: (c) => c[1] === 1,
    countMessage: "This SMILES must contain exactly one [*:1] connection",
  },
} as const satisfies Record<string, ConnectionRule>;

/** One `*` atom of a SMILES, in SMILES order. `atomIndex` is RDKit's index when H atoms are kept. */
export interface DummyAtom {
  atomIndex: number;
  bracketed: boolean;
  /** The text after `:` in `[*:n]`, or undefined when there is none. */
  labelText: string | undefined;
}

// Atoms outside brackets are the organic subset (two-letter ones first) and the bare `*`.
const ATOM_TOKEN = /\[[^\]]*\]|Cl|Br|[BCNOPSFIbcnops*]/g;
const BRACKET_DUMMY = /^\[\d*\*[^:\]]*(?::(\d+))?\]$/;

/**
 * Lists the `*` atoms of a SMILES RDKit could parse. Only the part before any whitespace is read
 * (CXSMILES extensions follow a space).
 */
export function dummyAtoms(smiles: string): DummyAtom[] {
  const smilesPart = smiles.trim().split(/\s/)[0] ?? "";
  const dummies: DummyAtom[] = [];
  let atomIndex = 0;
  for (const [token] of smilesPart.matchAll(ATOM_TOKEN)) {
    if (token === "*") {
      dummies.push({ atomIndex, bracketed: false, labelText: undefined });
    } else if (token.startsWith("[")) {
      const dummy = BRACKET_DUMMY.exec(token);
      if (dummy) dummies.push({ atomIndex, bracketed: true, labelText: dummy[1] });
    }
    atomIndex += 1;
  }
  return dummies;
}

function isMarkerLabel(labelText: string | undefined): labelText is "1" | "2" {
  return labelText === "1" || labelText === "2";
}

/** The connection labels of a SMILES in SMILES order, e.g. `[*:2]CC([*:2])[*:1]` → [2, 2, 1]. */
export function connectionLabels(smiles: string): MarkerLabel[] {
  return dummyAtoms(smiles)
    .map((dummy) => dummy.labelText)
    .filter(isMarkerLabel)
    .map((labelText) => Number(labelText) as MarkerLabel);
}

/** The number of atoms written in a SMILES (bracket atoms, organic-subset atoms and `*`), read from
 * the text alone: cheap enough to bound an input before RDKit parses it. */
export function smilesAtomCount(smiles: string): number {
  const smilesPart = smiles.trim().split(/\s/)[0] ?? "";
  return smilesPart.match(ATOM_TOKEN)?.length ?? 0;
}

/** RDKit threw instead of answering: a fault of the toolkit (its WebAssembly memory may be
 * corrupt), never a verdict on the SMILES. Whoever holds the module should discard it. */
export class RDKitFault extends Error {
  override name = "RDKitFault";
}

type RDKitMol = NonNullable<ReturnType<RDKitModule["get_mol"]>>;

/** Reads a SMILES with RDKit and hands the molecule (null when RDKit cannot read it) to `use`.
 * Hydrogens written in the SMILES are kept: removing them is what broke RDKit's WebAssembly module
 * on chains of ~900 atoms ('memory access out of bounds'), and the verdict is the same either way.
 * Throws RDKitFault when RDKit itself fails. */
function withMolecule<T>(rdkit: RDKitModule, smiles: string, use: (mol: RDKitMol | null) => T): T {
  let mol: ReturnType<RDKitModule["get_mol"]> = null;
  try {
    mol = rdkit.get_mol(smiles, JSON.stringify({ removeHs: false }));
    return use(mol?.is_valid() === true ? mol : null);
  } catch (error) {
    throw new RDKitFault(`RDKit failed reading a SMILES: ${String(error)}`, { cause: error });
  } finally {
    try {
      mol?.delete();
    } catch {
      // A poisoned module may fail here too; the fault above is what counts.
    }
  }
}

/** True when RDKit reads the text as a non-empty molecule; false when it cannot. Throws RDKitFault
 * when RDKit itself fails. */
export function isParsableSmiles(rdkit: RDKitModule, smiles: string): boolean {
  if (smiles.trim() === "") return false;
  return withMolecule(rdkit, smiles, (mol) => mol !== null && mol.get_num_atoms() > 0);
}

/** The atoms of the molecules a SMILES describes, hydrogens included (as the engine's convert-smiles
 * counts them), or null when RDKit cannot read it or it holds no atom. Throws RDKitFault when RDKit
 * itself fails. */
export function structureAtomCount(rdkit: RDKitModule, smiles: string): number | null {
  if (smiles.trim() === "") return null;
  return withMolecule(rdkit, smiles, (mol) => {
    if (mol === null || mol.get_num_atoms() === 0) return null;
    mol.add_hs_in_place();
    return mol.get_num_atoms();
  });
}

/**
 * Checks one SMILES field against its rule. Returns the first issue, checked in this order:
 * size (the text, before RDKit), format (RDKit), bare `*`, `[*]` without label, labels other than 1
 * and 2 (the field's own 'can only contain' message), forbidden label, counts. Throws RDKitFault when RDKit fails.
 */
export function checkConnectionSmiles(rdkit: RDKitModule, smiles: string, rule: ConnectionRule): SmilesIssue | null {
  if (smilesAtomCount(smiles) > MAX_UNIT_ATOMS) {
    return { code: BuildingBlockErrors.VALIDATE_SMILES_TOO_LARGE, message: SMILES_FORMAT_MESSAGES.tooLarge };
  }
  if (!isParsableSmiles(rdkit, smiles)) {
    return { code: BuildingBlockErrors.VALIDATE_SMILES_INVALID_FORMAT, message: SMILES_FORMAT_MESSAGES.invalidFormat };
  }
  const dummies = dummyAtoms(smiles);
  if (dummies.some((dummy) => !dummy.bracketed)) {
    return {
      code: BuildingBlockErrors.VALIDATE_SMILES_MISSING_BRACKETS,
      message: SMILES_FORMAT_MESSAGES.missingBrackets,
    };
  }
  if (dummies.some((dummy) => dummy.labelText === undefined)) {
    return { code: BuildingBlockErrors.VALIDATE_SMILES_MISSING_LABEL, message: SMILES_FORMAT_MESSAGES.missingLabel };
  }
  const invalidConnections = BuildingBlockErrors.VALIDATE_SMILES_INVALID_CONNECTIONS;
  if (dummies.some((dummy) => !isMarkerLabel(dummy.labelText))) {
    if (rule.onlyMessage) return { code: invalidConnections, message: rule.onlyMessage };
    return {
      code: BuildingBlockErrors.VALIDATE_SMILES_INVALID_LABEL_FORMAT,
      message: SMILES_FORMAT_MESSAGES.invalidLabelFormat,
    };
  }
  const labels = connectionLabels(smiles);
  if (rule.forbiddenLabel && labels.includes(rule.forbiddenLabel.label)) {
    return { code: invalidConnections, message: rule.forbiddenLabel.message };
  }
  const counts: Record<MarkerLabel, number> = {
    1: labels.filter((label) => label === 1).length,
    2: labels.filter((label) => label === 2).length,
  };
  return rule.countsAreValid(counts) ? null : { code: invalidConnections, message: rule.countMessage };
}
