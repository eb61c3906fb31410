import { Button, Stack, Text, Title } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";

/** Support mailbox named in the render-failure message. */
export const SUPPORT_EMAIL = "support@polyforge.local";

export function ErrorFallback() {
  const { t } = useTranslation();
  return (
    <Stack align="center" gap="md" py="xl" role="alert">
      <Title order={2}>{t("errorFallback.title")}</Title>
      <Text c="dimmed" ta="center">
        {t("errorFallback.message", { email: SUPPORT_EMAIL })}
      </Text>
      <Button component={Link} to="/">
        {t("goHome")}
      </Button>
    </Stack>
  );
}
