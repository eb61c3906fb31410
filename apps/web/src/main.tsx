import "@mantine/core/styles.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App, type AppProps } from "./app/App";
import { loadFlags } from "./app/providers/flags";
import { initI18n } from "./app/providers/i18n";
import { createQueryClient } from "./app/providers/queryClient";
import { createAppRouter } from "./app/router";
import { StartupError } from "./app/StartupError";
import { identityFromClaims } from "./lib/auth/identity";
import { signIn } from "./lib/auth/session";
import { useSessionIdentity } from "./lib/auth/useIdentity";
import { appConfigQuery, DEFAULT_DOCS_URL, loadAppConfig } from "./lib/config/appConfig";
import { startLiveUpdates } from "./lib/notifications/liveUpdates";

/** The app with the user as the latest token describes them (names change after an account update). */
function SignedInApp(props: Omit<AppProps, "identity">) {
  return <App {...props} identity={useSessionIdentity()} />;
}

/** Configuration and translations, then sign-in, then flags for this user; only then the app renders. */
async function start(root: ReturnType<typeof createRoot>) {
  const [config] = await Promise.all([loadAppConfig(), initI18n()]);
  const keycloak = await signIn(config.identity);
  const growthbook = await loadFlags(config, identityFromClaims(keycloak.tokenParsed ?? {}));
  const queryClient = createQueryClient();
  queryClient.setQueryData(appConfigQuery.queryKey, config);
  const router = createAppRouter({
    queryClient,
    flags: { isOn: (flag) => growthbook.isOn(flag) },
    docsUrl: config.docsUrl || DEFAULT_DOCS_URL,
  });
  startLiveUpdates(queryClient);
  root.render(
    <StrictMode>
      <SignedInApp router={router} queryClient={queryClient} growthbook={growthbook} />
    </StrictMode>,
  );
}

const root = createRoot(document.getElementById("root")!);
start(root).catch((error: unknown) => {
  console.error("PolyForge could not start", error);
  root.render(<StartupError />);
});
