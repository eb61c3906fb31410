import { AppShell } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { Outlet, useRouteContext, useRouterState } from "@tanstack/react-router";
import { FeedbackModal } from "../../features/feedback/FeedbackModal";
import { ErrorBoundary } from "./ErrorBoundary";
import { ErrorFallback } from "./ErrorFallback";
import { Header } from "./Header";
import { ImpersonationBanner } from "./ImpersonationBanner";
import { Sidebar } from "./Sidebar";

/** The shared layout of SPEC §2: header, sidebar, main area (with the error fallback) and feedback modal. */
export function AppLayout() {
  const [navbarOpened, navbar] = useDisclosure(false);
  const [feedbackOpened, feedback] = useDisclosure(false);
  const { docsUrl } = useRouteContext({ from: "__root__" });
  // The path of the page actually rendered: state.location moves ahead while the next page loads.
  const path = useRouterState({
    select: (state) => (state.resolvedLocation ?? state.location).pathname,
  });

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 250, breakpoint: "sm", collapsed: { mobile: !navbarOpened } }}
      padding="lg"
    >
      <AppShell.Header>
        <Header navbarOpened={navbarOpened} onToggleNavbar={navbar.toggle} />
      </AppShell.Header>
      <AppShell.Navbar p="sm">
        <Sidebar docsUrl={docsUrl} onFeedback={feedback.open} onNavigate={navbar.close} />
      </AppShell.Navbar>
      <AppShell.Main>
        <ImpersonationBanner />
        <ErrorBoundary resetKey={path} fallback={<ErrorFallback />}>
          <Outlet />
        </ErrorBoundary>
      </AppShell.Main>
      <FeedbackModal opened={feedbackOpened} onClose={feedback.close} />
    </AppShell>
  );
}
