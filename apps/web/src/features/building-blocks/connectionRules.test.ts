import {
  CONNECTION_RULES,
  checkConnectionSmiles,
  connectionLabels,
} from "@polyforge/contracts/smiles/connection-rules";
import { loadRDKit, type RDKitModule } from "@polyforge/contracts/smiles/rdkit";
import {
  CONNECTION_LABEL_CASES,
  SMILES_CONNECTION_CASES,
} from "../../../../../packages/contracts/test/smiles-connection-cases";

// The contracts' table of cases, run again in the web's test environment (jsdom) so the forms are
// proven to apply the same rules and messages as the server.
let rdkit: RDKitModule;
beforeAll(async () => {
  rdkit = await loadRDKit();
});

describe("SMILES connection rules in the web", () => {
  it.each(SMILES_CONNECTION_CASES)("$rule: '$smiles'", ({ rule, smiles, expected }) => {
    expect(checkConnectionSmiles(rdkit, smiles, CONNECTION_RULES[rule])).toEqual(expected);
  });

  it.each(CONNECTION_LABEL_CASES)("lists the labels of '$smiles' in order", ({ smiles, labels }) => {
    expect(connectionLabels(smiles)).toEqual(labels);
  });
});
