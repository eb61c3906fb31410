import { SimpleGrid, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

/** The home page: heading, summary text, and the summary cards the data-owning features provide. */
export function DashboardPage({ cards }: { cards: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Stack gap="lg">
      <Stack gap={4}>
        <Title order={2}>{t("dashboard.title")}</Title>
        <Text c="dimmed">{t("dashboard.description")}</Text>
      </Stack>
      <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }} spacing="lg">
        {cards}
      </SimpleGrid>
    </Stack>
  );
}
