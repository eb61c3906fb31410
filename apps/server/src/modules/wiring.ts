import { addSampleBlocks } from "./building-blocks/sample-blocks";
import { onBlockUsageCheck } from "./building-blocks/service";
import { isBlockUsedBySegment } from "./segments/service";
import { onUserProvisioned } from "./users/provisioning";

/**
 * The hooks one module offers and another fills, wired here in one place (app.ts calls this once
 * per app; registering the same function again is a no-op).
 */
export function wireModules(): void {
  // A new user starts with the sample building blocks (inside the provisioning transaction).
  onUserProvisioned(addSampleBlocks);
  // A block used by a segment keeps its chemistry (BUILDING_BLOCK UPDATE IN_USE).
  onBlockUsageCheck(isBlockUsedBySegment);
}
