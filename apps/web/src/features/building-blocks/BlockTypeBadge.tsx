import { Badge } from "@mantine/core";
import type { BlockType } from "@polyforge/contracts/enums";
import { useTranslation } from "react-i18next";

const TYPE_COLOURS: Record<BlockType, string> = { linear: "blue", dendrimer: "grape", aminoacid: "teal" };

export function BlockTypeBadge({ type }: { type: BlockType }) {
  const { t } = useTranslation("buildingBlocks");
  return (
    <Badge color={TYPE_COLOURS[type]} variant="light">
      {t(`types.${type}`)}
    </Badge>
  );
}
