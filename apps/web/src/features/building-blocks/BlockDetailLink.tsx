import { Anchor } from "@mantine/core";
import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { Link } from "@tanstack/react-router";

/** The block's name linking to its detail page, with the type as search param (SPEC §2). */
export function BlockDetailLink({ block }: { block: Pick<BuildingBlock, "id" | "name" | "type"> }) {
  return (
    <Anchor
      renderRoot={(props) => (
        <Link {...props} to="/building-blocks/$blockId" params={{ blockId: block.id }} search={{ type: block.type }} />
      )}
    >
      {block.name}
    </Anchor>
  );
}
