import { systemPath } from "../../../lib/api/systems";
import { type UploadTarget, uploadTargetAt } from "../../../lib/uploads/uploadTarget";

/** The upload calls of a system's structure file (SPEC §7); lib/uploads drives them. */
export const systemUploadTarget = (id: string): UploadTarget => uploadTargetAt(`${systemPath(id)}/upload`);
