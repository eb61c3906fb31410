import "@mantine/core/styles.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App, type AppProps } from "./app/App";
import { flagsFor, loadFlags } from "./app/providers/flags";
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

/**
 * Configuration, then sign-in; only then the app renders. What does not depend on the user starts
 * as soon as it can and runs beside the sign-in: the translations (with the configuration) and the
 * flags' features (once the configuration names them). The page's own data (the dashboard's lists,
 * through its route's loader) is asked for as soon as the user is signed in, while React renders.
 */
async function start(root: ReturnType<typeof createRoot>) {
  const translations = initI18n();
  const config = await loadAppConfig();
  const flags = loadFlags(config);
  const keycloak = await signIn(config.identity);
  const signedIn = flagsFor(flags.growthbook, identityFromClaims(keycloak.tokenParsed ?? {}));
  const queryClient = createQueryClient();
  queryClient.setQueryData(appConfigQuery.queryKey, config);
  const router = createAppRouter({
    queryClient,
    flags: { isOn: (flag) => flags.growthbook.isOn(flag) },
    docsUrl: config.docsUrl || DEFAULT_DOCS_URL,
  });
  router.load().catch((error: unknown) => console.error("PolyForge could not load the page", error));
  await Promise.all([translations, flags.ready, signedIn]);
  startLiveUpdates(queryClient);
  root.render(
    <StrictMode>
      <SignedInApp router={router} queryClient={queryClient} growthbook={flags.growthbook} />
    </StrictMode>,
  );
}

const root = createRoot(document.getElementById("root")!);
start(root).catch((error: unknown) => {
  console.error("PolyForge could not start", error);
  root.render(<StartupError />);
});
