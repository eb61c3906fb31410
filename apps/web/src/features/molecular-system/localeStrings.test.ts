import {
  CONVERSION_STATUSES,
  FILE_UPLOAD_STATUSES,
  FINISH_SMILES_EDIT_MESSAGE,
  fileBadge,
  INVALID_SMILES_MESSAGE,
  PROVIDE_STRUCTURE_MESSAGE,
  STRUCTURE_BADGES,
} from "@polyforge/contracts/molecular-systems";
import {
  CREATE_POTENTIAL_FAILED_MESSAGE,
  DELETE_POTENTIAL_FAILED_MESSAGE,
  DRAFT_POTENTIAL_MESSAGE,
  POTENTIAL_DELETED_MESSAGE,
} from "@polyforge/contracts/potentials";
import {
  fileTooLargeMessage,
  STRUCTURE_FILE,
  TOPOLOGY_FILE,
  UPLOAD_CANCELED_MESSAGE,
  UPLOAD_FAILED_MESSAGE,
  unsupportedFileTypeMessage,
} from "@polyforge/contracts/uploads";
import { REQUIRED_FIELD } from "@polyforge/contracts/users";
import i18next from "i18next";

// The English texts are SPEC's, as the contracts spell them: the locale file must say the same.
const t = i18next.getFixedT("en", "molecularSystems");

describe("the molecular-system locale", () => {
  it("says every badge as SPEC §4 does", () => {
    for (const status of FILE_UPLOAD_STATUSES) {
      const badge = fileBadge(status, 42);
      if (badge) expect(t(`badges.${status}`, { percent: 42 })).toBe(badge);
    }
    for (const status of CONVERSION_STATUSES) {
      const badge = STRUCTURE_BADGES[status];
      if (badge) expect(t(`structureBadges.${status}`)).toBe(badge);
    }
  });

  it("says every message as SPEC §4-5 does", () => {
    expect(t("messages.uploadFailed")).toBe(UPLOAD_FAILED_MESSAGE);
    expect(t("messages.uploadCanceled")).toBe(UPLOAD_CANCELED_MESSAGE);
    expect(t("messages.fileTooLarge", { max: 2000 })).toBe(fileTooLargeMessage(2000));
    expect(t("messages.unsupportedFileType", { list: STRUCTURE_FILE.extensions.join(", ") })).toBe(
      unsupportedFileTypeMessage(STRUCTURE_FILE.extensions),
    );
    expect(t("messages.invalidSmiles")).toBe(INVALID_SMILES_MESSAGE);
    expect(t("messages.finishSmiles")).toBe(FINISH_SMILES_EDIT_MESSAGE);
    expect(t("messages.provideStructure")).toBe(PROVIDE_STRUCTURE_MESSAGE);
    expect(t("messages.required")).toBe(REQUIRED_FIELD);
  });

  it("says the potentials' messages as SPEC §2, §5 and §8 do", () => {
    expect(t("potentials.finishDraft")).toBe(DRAFT_POTENTIAL_MESSAGE);
    expect(t("potentials.deleted")).toBe(POTENTIAL_DELETED_MESSAGE);
    expect(t("potentials.deleteFailed")).toBe(DELETE_POTENTIAL_FAILED_MESSAGE);
    expect(t("potentials.createFailed")).toBe(CREATE_POTENTIAL_FAILED_MESSAGE);
    expect(t("potentials.status.not_submitted")).toBe("Not submitted");
    expect(t("messages.fileTooLarge", { max: TOPOLOGY_FILE.maxMegabytes })).toBe(fileTooLargeMessage(4000));
    expect(t("messages.unsupportedFileType", { list: TOPOLOGY_FILE.extensions.join(", ") })).toBe(
      unsupportedFileTypeMessage(TOPOLOGY_FILE.extensions),
    );
  });
});
