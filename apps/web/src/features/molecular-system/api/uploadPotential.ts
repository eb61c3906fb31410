import { potentialPath } from "../../../lib/api/potentials";
import { type UploadTarget, uploadTargetAt } from "../../../lib/uploads/uploadTarget";

/** The upload calls of a potential's .top (SPEC §7), the same protocol as a system's structure file. */
export const potentialUploadTarget = (systemId: string, potentialId: string): UploadTarget =>
  uploadTargetAt(`${potentialPath(systemId, potentialId)}/upload`);
