import { Anchor, Stack, Title } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Stack align="center" gap="md" py="xl">
      <Title order={2}>{t("notFound.title")}</Title>
      <Anchor component={Link} to="/">
        {t("goHome")}
      </Anchor>
    </Stack>
  );
}
