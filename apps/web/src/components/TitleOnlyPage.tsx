import { Stack, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";

/** A route whose screen belongs to a later piece of work: it shows its title and says so. */
export function TitleOnlyPage({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <Stack gap="xs">
      <Title order={2}>{title}</Title>
      <Text c="dimmed">{t("page.comingSoon")}</Text>
    </Stack>
  );
}
