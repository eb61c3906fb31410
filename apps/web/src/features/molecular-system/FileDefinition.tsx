import { STRUCTURE_FILE } from "@polyforge/contracts/uploads";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import type { MolecularSystem } from "./api/getMolecularSystem";
import { systemUploadTarget } from "./api/uploadStructure";
import { FileUpload } from "./FileUpload";
import { useStatusBadgeText } from "./StatusBadge";

/**
 * Definition from a file (SPEC §4 File-based system): a .pdb or .gro up to 2000 MB, checked before
 * anything is sent, uploaded in parts by the upload machine, then validated by the server's job.
 */
export function FileDefinition({ system }: { system: MolecularSystem }) {
  const { t } = useTranslation("molecularSystems");
  const badgeText = useStatusBadgeText();
  const target = useMemo(() => systemUploadTarget(system.id), [system.id]);
  return (
    <FileUpload
      kind={STRUCTURE_FILE}
      target={target}
      stored={system.system_data}
      dropLabel={t("file.dropLabel")}
      badge={(status, percent) => badgeText("upload", status, percent)}
    />
  );
}
