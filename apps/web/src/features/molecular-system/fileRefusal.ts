import { fileProblem, type UploadFileKind, unsupportedFileTypeMessage } from "@polyforge/contracts/uploads";
import { useTranslation } from "react-i18next";

/** SPEC §5 File input: why a chosen file is refused before anything is sent, in the locale's words,
 * or null when it may be sent. */
export function useFileRefusal(kind: UploadFileKind): (file: File) => string | null {
  const { t } = useTranslation("molecularSystems");
  return (file) => {
    const reason = fileProblem(kind, file.name, file.size);
    if (!reason) return null;
    return reason === unsupportedFileTypeMessage(kind.extensions)
      ? t("messages.unsupportedFileType", { list: kind.extensions.join(", ") })
      : t("messages.fileTooLarge", { max: kind.maxMegabytes });
  };
}
