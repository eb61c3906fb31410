import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import i18next from "i18next";
import { initReactI18next } from "react-i18next";
import { toast } from "sonner";
import { settleRouters } from "./routerRegistry";

// Pages load lazily (routes, RDKit); on a busy 2-core CI machine the first render of a file can take
// longer than testing-library's 1 s default for findBy/waitFor.
configure({ asyncUtilTimeout: 5000 });

// Tests read the real English locale files the app serves from public/locales.
const localeFiles = import.meta.glob<{ default: Record<string, unknown> }>("../../public/locales/en/**/*.json", {
  eager: true,
});
const english: Record<string, Record<string, unknown>> = {};
for (const [path, module] of Object.entries(localeFiles)) {
  const namespace = path.replace(/^.*\/locales\/en\//, "").replace(/\.json$/, "");
  english[namespace] = module.default;
}

await i18next.use(initReactI18next).init({
  lng: "en",
  resources: { en: english },
  ns: Object.keys(english),
  defaultNS: "common",
  interpolation: { escapeValue: false },
  showSupportNotice: false,
});

// jsdom lacks the layout APIs Mantine asks for.
Object.defineProperty(window, "matchMedia", {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});
window.ResizeObserver = class {
  observe() {}
  unobserve() {}
  disconnect() {}
};
window.HTMLElement.prototype.scrollIntoView = () => {};

// Sonner keeps its toasts in a module-wide store and replays the active ones to a newly mounted
// Toaster: dismiss them, or one test's toast shows up on the next test's page.
afterEach(async () => {
  await settleRouters();
  toast.dismiss();
  cleanup();
});
