import { Alert, Center, MantineProvider } from "@mantine/core";
import i18next from "i18next";
import { errorTitle } from "../lib/api/productError";
import { theme } from "./providers/theme";

/** Shown when the app cannot start (configuration or sign-in unavailable). */
export function StartupError() {
  return (
    <MantineProvider theme={theme}>
      <Center h="100vh" p="md">
        <Alert color="red" title={errorTitle()} maw={480}>
          {i18next.t("startup.failed")}
        </Alert>
      </Center>
    </MantineProvider>
  );
}
