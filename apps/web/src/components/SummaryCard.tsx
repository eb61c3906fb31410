import { Card, Group, Loader, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

/** SPEC §9: a dashboard card lists this many items before offering 'SHOW ALL'. */
export const SUMMARY_CARD_ITEMS = 5;
/** How long a card's list counts as fresh: the dashboard's route asks for the lists before the
 * cards mount, and the cards use that answer rather than ask again. Changes still show at once (live
 * updates invalidate the lists). */
export const SUMMARY_FRESH_MS = 5000;

export interface SummaryCardProps<T> {
  title: string;
  /** Items in display order; only the first five are shown. */
  items: readonly T[];
  /** How many exist in total (may exceed items.length when only a page was fetched). */
  total?: number;
  renderItem: (item: T) => ReactNode;
  itemKey: (item: T) => string;
  /** The 'SHOW ALL' link, shown when more than five exist; e.g. a router Link. */
  showAll: (label: string) => ReactNode;
  loading?: boolean;
  /** A message to show instead of the list when loading failed. */
  error?: string | null;
}

/** One dashboard card: a titled list of at most five items, an empty text, and 'SHOW ALL'. */
export function SummaryCard<T>({
  title,
  items,
  total = items.length,
  renderItem,
  itemKey,
  showAll,
  loading = false,
  error = null,
}: SummaryCardProps<T>) {
  const { t } = useTranslation();
  let body: ReactNode;
  if (loading) body = <Loader size="sm" aria-label={t("loading")} />;
  else if (error) body = <Text c="red">{error}</Text>;
  else if (items.length === 0) body = <Text c="dimmed">{t("summaryCard.empty")}</Text>;
  else
    body = (
      <Stack gap="xs" component="ul" m={0} p={0} style={{ listStyle: "none" }}>
        {items.slice(0, SUMMARY_CARD_ITEMS).map((item) => (
          <li key={itemKey(item)}>{renderItem(item)}</li>
        ))}
      </Stack>
    );
  return (
    <Card withBorder radius="md" padding="lg">
      <Group justify="space-between" mb="sm">
        <Title order={4}>{title}</Title>
        {!loading && !error && total > SUMMARY_CARD_ITEMS ? showAll(t("summaryCard.showAll")) : null}
      </Group>
      {body}
    </Card>
  );
}
