import { addSampleBlocks } from "./building-blocks/sample-blocks";
import { onBlockUsageCheck } from "./building-blocks/service";
import { isSegmentUsedByPolymer } from "./polymers/queries";
import { isBlockUsedBySegment, onSegmentUsageCheck } from "./segments/service";
import { onUserProvisioned } from "./users/provisioning";

/**
 * The hooks a lower module offers and a higher one fills, wired here in one place: the only file
 * through which a module learns of a module above it (app.ts calls this once per app; registering
 * the same function again is a no-op).
 */
export function wireModules(): void {
  // A new user starts with the sample building blocks (inside the provisioning transaction).
  onUserProvisioned(addSampleBlocks);
  // A block used by a segment keeps its chemistry (BUILDING_BLOCK UPDATE IN_USE).
  onBlockUsageCheck(isBlockUsedBySegment);
  // A segment used by a polymer stays (SEGMENT DELETE IN_USE).
  onSegmentUsageCheck(isSegmentUsedByPolymer);
}
