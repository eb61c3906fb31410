import { Anchor, Group } from "@mantine/core";
import { CREATABLE_BLOCK_TYPES } from "@polyforge/contracts/enums";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { SUMMARY_CARD_ITEMS, SUMMARY_FRESH_MS, SummaryCard } from "../../components/SummaryCard";
import { type BlockListParams, blocksQueryOptions } from "./api/getBlocks";
import { BlockDetailLink } from "./BlockDetailLink";
import { BlockTypeBadge } from "./BlockTypeBadge";

const SUMMARY_PARAMS: BlockListParams = {
  page_num: 1,
  page_size: SUMMARY_CARD_ITEMS,
  type: [...CREATABLE_BLOCK_TYPES],
  show_archived: false,
};

/** The card's list. The dashboard's route asks for it before the page renders (its loader); fresh
 * for a few seconds so that the card, mounting just after, uses that answer instead of asking again. */
export const blocksSummaryQuery = queryOptions({ ...blocksQueryOptions(SUMMARY_PARAMS), staleTime: SUMMARY_FRESH_MS });

/** The dashboard's Building blocks card: the five most recently modified active blocks. */
export function BlocksSummaryCard() {
  const { t } = useTranslation("buildingBlocks");
  const blocks = useQuery(blocksSummaryQuery);
  return (
    <SummaryCard
      title={t("summary.title")}
      items={blocks.data?.data ?? []}
      total={blocks.data?.metadata.num_records}
      loading={blocks.isPending}
      error={blocks.isError ? t("catalogue.loadFailed") : null}
      itemKey={(block) => block.id}
      renderItem={(block) => (
        <Group justify="space-between" wrap="nowrap">
          <BlockDetailLink block={block} />
          <BlockTypeBadge type={block.type} />
        </Group>
      )}
      showAll={(label) => (
        <Anchor component={Link} to="/building-blocks" size="sm" fw={600}>
          {label}
        </Anchor>
      )}
    />
  );
}
