import { Anchor, Group } from "@mantine/core";
import { CREATABLE_BLOCK_TYPES } from "@polyforge/contracts/enums";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { SUMMARY_CARD_ITEMS, SummaryCard } from "../../components/SummaryCard";
import { BlockDetailLink } from "./BlockDetailLink";
import { BlockTypeBadge } from "./BlockTypeBadge";
import { type BlockListParams, blockListQueryKey, fetchBlocks } from "./api/getBlocks";

const SUMMARY_PARAMS: BlockListParams = {
  page_num: 1,
  page_size: SUMMARY_CARD_ITEMS,
  type: [...CREATABLE_BLOCK_TYPES],
  show_archived: false,
};

/** The dashboard's Building blocks card: the five most recently modified active blocks. */
export function BlocksSummaryCard() {
  const { t } = useTranslation("buildingBlocks");
  const blocks = useQuery({ queryKey: blockListQueryKey(SUMMARY_PARAMS), queryFn: () => fetchBlocks(SUMMARY_PARAMS) });
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
