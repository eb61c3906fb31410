import { ERROR_AREAS } from "@polyforge/contracts/errors";
import i18next from "i18next";
import LanguageDetector from "i18next-browser-languagedetector";
import HttpBackend from "i18next-http-backend";
import { initReactI18next } from "react-i18next";

/** SPEC §7: `common` plus one `errors/<area>` namespace per error area, loaded up front. */
const NAMESPACES = [
  "common",
  "buildingBlocks",
  "polymerBuilder",
  "systems",
  "projects",
  "molecularSystems",
  ...Object.values(ERROR_AREAS).map((area) => `errors/${area}`),
];

export function initI18n(): Promise<unknown> {
  return i18next
    .use(HttpBackend)
    .use(LanguageDetector)
    .use(initReactI18next)
    .init({
      fallbackLng: "en",
      ns: NAMESPACES,
      defaultNS: "common",
      backend: {
        loadPath: "/locales/{{lng}}/{{ns}}.json",
        // Loaded beside the sign-in (main.tsx): at low priority, so that the browser's few
        // connections to the server go to the sign-in's requests first (issue 27).
        requestOptions: { mode: "cors", credentials: "same-origin", cache: "default", priority: "low" },
      },
      detection: {
        order: ["querystring", "cookie", "localStorage", "sessionStorage", "navigator", "htmlTag"],
        lookupQuerystring: "lng",
      },
      // The languages with files under public/locales. Any other detected language (or "en-GB") uses
      // English instead of asking for files that do not exist (the server would answer with the SPA page).
      supportedLngs: ["en"],
      nonExplicitSupportedLngs: true,
      load: "languageOnly",
      interpolation: { escapeValue: false }, // React escapes already
      showSupportNotice: false,
    });
}
