import { Alert, Center, MantineProvider } from "@mantine/core";
import i18next from "i18next";
import { theme } from "./providers/theme";

/** Shown when the app cannot start (configuration or sign-in unavailable). */
export function StartupError() {
  return (
    <MantineProvider theme={theme}>
      <Center h="100vh" p="md">
        <Alert color="red" title={i18next.t("errors.title")} maw={480}>
          {i18next.t("startup.failed")}
        </Alert>
      </Center>
    </MantineProvider>
  );
}
