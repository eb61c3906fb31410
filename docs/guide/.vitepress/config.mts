import { defineConfig } from "vitepress";

// The user guide, served by the PolyForge server under /docs/ (apps/server/src/platform/web.ts).
// `make docs` builds it into .vitepress/dist; DOCS_DIST_DIR tells the server where it is.
export default defineConfig({
  title: "PolyForge user guide",
  description: "Build, parametrise and simulate molecular and polymer systems in the browser.",
  base: "/docs/",
  lang: "en",
  cleanUrls: true,
  lastUpdated: false,
  // Everything the guide shows comes with it: no fonts or scripts from elsewhere.
  head: [["meta", { name: "robots", content: "noindex" }]],
  themeConfig: {
    nav: [
      { text: "Guide", link: "/" },
      { text: "What happens to your system", link: "/science/building" },
    ],
    sidebar: [
      {
        text: "Using PolyForge",
        items: [
          { text: "Overview", link: "/" },
          { text: "Getting started", link: "/screens/getting-started" },
          { text: "Building blocks", link: "/screens/building-blocks" },
          { text: "Polymer builder", link: "/screens/polymer-builder" },
          { text: "Molecular systems", link: "/screens/systems" },
          { text: "Projects (Modeling Compute)", link: "/screens/projects" },
        ],
      },
      {
        text: "What happens to your system",
        items: [
          { text: "How chains are grown and packed", link: "/science/building" },
          { text: "Charges and GAFF/GAFF2 parameters", link: "/science/parameters" },
          { text: "The simulation protocol", link: "/science/protocol" },
          { text: "Files and where to go next", link: "/science/results" },
        ],
      },
      {
        text: "Reference",
        items: [
          { text: "Limits and messages", link: "/reference/limits" },
          { text: "API", link: "/reference/api" },
        ],
      },
    ],
    search: { provider: "local" },
    outline: { level: [2, 3] },
  },
});
